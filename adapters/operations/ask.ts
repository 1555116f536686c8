// Ask: wire schemas and operations (POST /v1/ask, GET /v1/ask/quota, the MCP tool ask_campaign).
import { Type } from "@sinclair/typebox";
import { askCampaign, askCampaignStream, askQuota } from "../../application/ask.ts";
import { ok } from "../../domain/errors.ts";
import { Defaulted, Id, Nullable } from "./common.ts";
import { defineOperation, defineOperations, EventStream } from "./operation.ts";
import { byBodyCampaign } from "./crud.ts";

const ChatMessage = Type.Object(
  {
    role: Type.Union([Type.Literal("system"), Type.Literal("user"), Type.Literal("assistant")], { description: "user: a question; assistant: an earlier answer; system: extra instructions" }),
    content: Type.String({ maxLength: 20_000 }),
  },
  { title: "ChatMessage" },
);

export const AskBody = Type.Object({
  campaign_id: Id("The campaign to ask about"),
  messages: Type.Array(ChatMessage, {
    maxItems: 50,
    description: "Required. The conversation, oldest first; the last user message is the question. Earlier messages make follow-ups work (\"what about her sister?\").",
    "x-missing": "messages is required",
  }),
  stream: Defaulted(Type.Boolean({ default: false, description: "Answer as Server-Sent Events: each event's data is an AskChunk; citations and counters on the final `done` chunk" })),
  gm_permissions: Defaulted(Type.Boolean({ default: false, description: "Read every journal entry (needs manage access: owner or admin); overrides asker_id" })),
  asker_id: Type.Optional(Nullable(Id("Answer with the journal access of this user, a player, admin or owner of the campaign (another user than you needs manage access)"))),
  as_of_session: Type.Optional(Nullable(Id("Spoiler-safe: sessions, transcripts, beats and moments after this session of the campaign are left out"))),
});

const TranscriptSpan = Type.Object(
  {
    session_id: Id(),
    utterance_start: Type.Integer({ minimum: 0, description: "First cited utterance (GET /v1/sessions/{id}/transcript?from=&to= takes these)" }),
    utterance_end: Type.Integer({ minimum: 0, description: "Last cited utterance, inclusive" }),
    start: Type.Number({ description: "Seconds into the recording" }),
    end: Type.Number({ description: "Seconds into the recording" }),
    speakers: Type.Array(Type.String()),
  },
  { title: "AskTranscriptSpan" },
);

export const AskCitation = Type.Object(
  {
    citation_id: Type.String({ description: "S1, S2… as the answer's [S1] markers name them, in the order the answer first uses them" }),
    source_type: Type.String({ description: "character, faction, location, item, beat, moment, hero_award, quote, spotlight, session, transcript, quest or journal" }),
    source_id: Type.String({ description: "The record's id (transcript: the session's)" }),
    title: Type.String(),
    session_number: Nullable(Type.Integer({ minimum: 1 })),
    excerpt: Type.String({ description: "The cited passage's text (cut near 320 characters)" }),
    metadata: Type.Optional(TranscriptSpan),
  },
  { title: "AskCitation" },
);

const Remaining = {
  monthlyTokensRemaining: Type.Integer({ minimum: 0 }),
  hourlyTokensRemaining: Type.Integer({ minimum: 0 }),
};

export const AskAnswer = Type.Object(
  {
    answer: Type.String({ description: "The answer, with [S1]-style markers naming its citations" }),
    citations: Type.Array(AskCitation),
    ...Remaining,
  },
  { title: "AskAnswer" },
);

export const AskChunk = Type.Object(
  {
    id: Type.String({ description: "The same for every chunk of one answer" }),
    type: Type.Union([Type.Literal("delta"), Type.Literal("done")]),
    content: Type.Optional(Type.String({ description: "delta: the next piece of the answer" })),
    citations: Type.Optional(Type.Array(AskCitation, { description: "done: the citations of the whole answer" })),
    monthlyTokensRemaining: Type.Optional(Type.Integer({ minimum: 0 })),
    hourlyTokensRemaining: Type.Optional(Type.Integer({ minimum: 0 })),
    error: Type.Optional(Type.String({ description: "done: why the answer stopped early, when it did" })),
  },
  { title: "AskChunk" },
);

export const AskQuota = Type.Object({ ...Remaining, launchPromoActive: Type.Boolean() }, { title: "AskQuota" });

const ASK_DESCRIPTION = `Answers a question about the campaign from its records (characters, factions, locations, items, sessions and their transcripts, beats, moments, recap cards, quests, journal entries) that the asker may read. The answer cites its sources with markers [S1], [S2]… matching citations[].citation_id; transcript citations carry metadata {session_id, utterance_start, utterance_end, start, end, speakers} to jump to the moment. Offline (no language model configured) the answer is extractive: quoted lines, and it says so. Follow-ups: send the earlier turns in messages. as_of_session leaves out later sessions (no spoilers). Prompt and answer tokens count against the caller's monthly and hourly budgets (429 with Retry-After when used up).`;

export const askOperations = defineOperations({ publishedAt: 65 }, [
  defineOperation({
    id: "askCampaign",
    summary: "Ask a question about a campaign",
    description: ASK_DESCRIPTION,
    tag: "Ask",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byBodyCampaign },
    http: {
      method: "POST",
      path: "/v1/ask",
      status: 200,
      eventStream: AskChunk,
      documents: [
        { status: 400, description: "messages is missing, or holds no user message" },
        { status: 404, description: "asker_id user or as_of_session session not found" },
        { status: 429, description: "The caller's monthly or hourly Ask token budget is used up (Retry-After says when it resets)" },
        { status: 503, description: "The language model is unavailable or failed (Retry-After when it said when to try again)" },
      ],
    },
    mcp: { name: "ask_campaign", title: "Ask about a campaign", readOnly: true },
    input: { body: AskBody },
    output: AskAnswer,
    run: async ({ deps, caller, access, eventStreams }, { body }) => {
      const input = { ...body, asker_id: body.asker_id ?? null, as_of_session: body.as_of_session ?? null };
      if (!(body.stream && eventStreams)) return askCampaign(deps, caller, access, input);
      const streamed = await askCampaignStream(deps, caller, access, input);
      if (!streamed.ok) return streamed;
      const { remaining, chunks } = streamed.value;
      return ok(
        new EventStream(chunks, {
          "x-monthly-remaining-tokens": String(remaining.monthlyTokensRemaining),
          "x-hourly-remaining-tokens": String(remaining.hourlyTokensRemaining),
        }),
      );
    },
  }),
  defineOperation({
    id: "getAskQuota",
    summary: "Ask token budget left",
    description: "The caller's Ask tokens left this calendar month and this hour (UTC). Prompt and answer tokens both count.",
    tag: "Ask",
    access: { auth: "user", scope: "profile" },
    http: { method: "GET", path: "/v1/ask/quota", status: 200 },
    input: {},
    output: AskQuota,
    run: ({ deps, caller }) => askQuota(deps, caller),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    ask: typeof askOperations;
  }
}
