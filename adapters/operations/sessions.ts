// Sessions, transcripts, cast analyses and handouts: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as sessions from "../../application/sessions.ts";
import * as transcripts from "../../application/transcripts.ts";
import { fail, ok } from "../../domain/errors.ts";
import { BODY_LIMITS, defineOperation, defineOperations, RawResponse } from "./operation.ts";
import { byPathSession, byQueryCampaign } from "./crud.ts";
import { Beat } from "./beats.ts";
import { CampaignIdQuery, FIRST_PARTY, Id, literals, Nullable, PageOf, PageQuery, Timestamp, WIKILINKS_STRIPPED, WithLinks, Defaulted } from "./common.ts";
import { Moment } from "./moments.ts";

export const SessionType = literals(["audioUpload", "playByPost", "chatVoice", "txtUpload", "rawNotes", "other"] as const);
/** On input the live service's own name for a chat-platform voice recording is taken too. */
const SessionTypeInput: typeof SessionType = { ...SessionType, "x-aliases": { discordVoice: "chatVoice" }, description: "chatVoice is also accepted as discordVoice" };

export const Session = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    type: SessionType,
    title: Type.String(),
    summary: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    session_date: Timestamp,
    image: Nullable(Type.String()),
    public: Type.Boolean(),
    pbp_start_msg_url: Nullable(Type.String()),
    pbp_end_msg_url: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Session" },
);

export const SessionCreate = Type.Object({
  campaign_id: Id("Campaign id"),
  type: SessionTypeInput,
  title: Type.String({ minLength: 1, maxLength: 300 }),
  session_date: Type.String({ format: "date-time", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$", "x-error": "session_date must be an ISO 8601 date-time (without a zone it is read as UTC)" }),
  summary: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 2_000_000 }))),
});

export const SessionView = Type.Object({ ...Session.properties, index: Type.Integer({ description: "Number of the session in date order, from 1" }) }, { title: "SessionSummary" });

export const SessionListQuery = Type.Object({
  ...CampaignIdQuery,
  session_type: Type.Optional(SessionTypeInput),
  public_only: Defaulted(Type.Boolean({ default: false })),
  with_links: Defaulted(WithLinks),
  ...PageQuery,
});

export const SessionDetailQuery = Type.Object({
  include_beats: Defaulted(Type.Boolean({ default: false })),
  include_moments: Defaulted(Type.Boolean({ default: false })),
  with_links: Defaulted(WithLinks),
});

export const SessionPatch = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    summary: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: "May hold [[wikilinks]]" }))),
    session_date: Type.Optional(Timestamp),
  },
  { title: "SessionPatch" },
);

export const SessionIdPath = Type.Object({ session_id: Id("Session id") });

export const Transcript = Type.Object(
  {
    version: Type.Integer(),
    created_at: Timestamp,
    metadata: Type.Object({
      session_id: Id(),
      session_type: Type.String(),
      campaign_id: Id(),
      world_title: Type.String(),
      world_language: Type.String(),
      session_date: Timestamp,
      speakers: Type.Array(Type.String()),
      speaker_count: Type.Integer(),
      source_type: Type.String(),
      created_at: Timestamp,
    }),
    utterances: Type.Array(Type.Object({ speaker_label: Type.String(), transcript: Type.String(), start: Type.Number(), end: Type.Number(), said_at: Timestamp })),
    text: Type.String(),
    stats: Type.Object({ char_count: Type.Integer(), tokens: Type.Integer(), utterance_count: Type.Integer() }),
  },
  { title: "Transcript" },
);

export const TranscriptQuery = Type.Object({
  format: Type.Optional(literals(["json", "markdown"] as const)),
  from: Type.Optional(Type.Integer({ minimum: 0, description: "First utterance to return, by index from 0 (as Ask's citations give it)" })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: "Last utterance to return, inclusive" })),
});

export const CastAnalysis = Type.Object(
  {
    id: Id(),
    session_id: Id(),
    analysis: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
    pdfSavedAt: Nullable(Timestamp),
    pdfPageCount: Nullable(Type.Integer()),
  },
  { title: "CastAnalysis" },
);

const Named = Type.Object({ name: Type.String({ maxLength: 500 }), description: Type.String({ maxLength: 5000 }) });
const Bullets = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 });
export const HandoutBody = Type.Object(
  {
    summary: Type.String({ maxLength: 20_000 }),
    sessionOutline: Type.Union([Type.String({ maxLength: 20_000 }), Type.Array(Type.Object({ title: Type.String({ maxLength: 500 }) }), { maxItems: 100 })]),
    encounters: Type.Array(Type.Object({ title: Type.String({ maxLength: 500 }), bullets: Bullets }), { maxItems: 100 }),
    characterSpotlight: Type.Array(Type.Object({ name: Type.String({ maxLength: 500 }), description: Type.String({ maxLength: 5000 }), bullets: Bullets }), { maxItems: 50 }),
    otherEntitySpotlight: Type.Array(Named, { maxItems: 50 }),
    items: Type.Array(Named, { maxItems: 100 }),
    valuableInformation: Type.Array(Type.Object({ info: Type.String({ maxLength: 5000 }) }), { maxItems: 100 }),
    partyStatusAndNextSteps: Type.Object({
      partyStatus: Type.Object({ summary: Type.String({ maxLength: 5000 }), bullets: Bullets }),
      nextSteps: Type.Object({ summary: Type.String({ maxLength: 5000 }) }),
    }),
    moments: Type.Array(Type.Object({ label: Type.String({ maxLength: 500 }), content: Type.String({ maxLength: 20_000 }) }), { maxItems: 100 }),
  },
  { title: "SessionHandout" },
);
export const Handout = Type.Object(
  { ...HandoutBody.properties, pdfSavedAt: Nullable(Timestamp), pdfPageCount: Nullable(Type.Integer()) },
  { title: "SessionHandoutView" },
);

export const ImportResult = Type.Object({ utterance_count: Type.Integer(), speakers: Type.Array(Type.String()) }, { title: "TranscriptImport" });
export const TranscriptImportQuery = Type.Object({ format: Type.Optional(literals(["plain", "vtt", "srt", "crd3"] as const)) });

export const sessionOperations = defineOperations({ publishedAt: 110 }, [
  defineOperation({
    id: "internalCreateSession",
    summary: "Create a session",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface.",
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/sessions", status: 201, maxBodyBytes: BODY_LIMITS.session },
    input: { body: SessionCreate },
    output: Session,
    run: ({ deps, caller }, { body }) => sessions.createSession(deps, caller, body),
  }),
  defineOperation({
    id: "internalDeleteSession",
    summary: "Delete a session",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface.",
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/sessions/{session_id}", status: 204 },
    input: { path: Type.Object({ session_id: Id("Session id") }) },
    run: ({ deps, caller }, { path }) => sessions.deleteSession(deps, caller, path.session_id),
  }),
  defineOperation({
    id: "listSessions",
    summary: "List sessions",
    description: `Lists a campaign's sessions, newest first; index numbers them in date order. Sessions are created by first-party clients only. ${WIKILINKS_STRIPPED}`,
    tag: "Sessions",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: byQueryCampaign },
    http: { method: "GET", path: "/v1/sessions", status: 200 },
    mcp: { name: "list_sessions", title: "List sessions", readOnly: true },
    input: { query: SessionListQuery },
    output: PageOf(SessionView, "SessionPage"),
    run: ({ deps, caller, access }, { query }) => sessions.listSessions(deps, caller, access, query),
  }),
  defineOperation({
    id: "getSession",
    summary: "Get a session",
    description: `Reads one session; include_beats and include_moments add its beats and moments (null unless asked). ${WIKILINKS_STRIPPED}`,
    tag: "Sessions",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: byPathSession },
    http: { method: "GET", path: "/v1/sessions/{session_id}", status: 200 },
    mcp: { name: "get_session", title: "Get a session", readOnly: true },
    input: { path: SessionIdPath, query: SessionDetailQuery },
    output: Type.Object({ ...SessionView.properties, beats: Nullable(Type.Array(Beat)), moments: Nullable(Type.Array(Moment)) }, { title: "SessionDetail" }),
    run: ({ deps, caller, access }, { path, query }) => sessions.getSession(deps, caller, access, path.session_id, query),
  }),
  defineOperation({
    id: "patchSession",
    summary: "Update a session",
    description: `Changes a session's title, summary or session_date; no other field can be changed. Read with with_links=true before editing a summary with wikilinks. ${WIKILINKS_STRIPPED}`,
    tag: "Sessions",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathSession },
    // Clients of the live service (e.g. an MCP bridge) update sessions with PUT: same operation.
    http: { method: "PATCH", path: "/v1/sessions/{session_id}", status: 200, aliases: [{ method: "PUT", operationId: "putSession", summary: "Update a session (PUT: the same as PATCH)" }] },
    mcp: { name: "patch_session", title: "Update a session", readOnly: false, destructive: false, idempotent: true },
    input: { path: SessionIdPath, body: SessionPatch },
    output: SessionView,
    run: ({ deps, caller, access }, { path, body }) => sessions.patchSession(deps, caller, access, path.session_id, body),
  }),
  defineOperation({
    id: "getSessionTranscript",
    summary: "Get a session's transcript",
    description: "The cleaned transcript: metadata, utterances with start/end seconds and said_at times, the full text and statistics. from/to (utterance indexes from 0, inclusive, as Ask citations give them) return only that span; statistics stay the whole transcript's. format=markdown answers text/markdown.",
    tag: "Sessions",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: byPathSession },
    http: { method: "GET", path: "/v1/sessions/{session_id}/transcript", status: 200 },
    mcp: { name: "get_session_transcript", title: "Get a session transcript", readOnly: true, structuredOutput: false },
    input: { path: SessionIdPath, query: TranscriptQuery },
    output: Transcript,
    run: async ({ deps, caller, access }, { path, query }) => {
      if (query.from !== undefined && query.to !== undefined && query.from > query.to)
        return fail("invalid", "from must not be after to", [{ type: "value_error", loc: ["query", "to"], msg: "to must be at least from", input: query.to }]);
      const range = { from: query.from, to: query.to };
      if (query.format !== "markdown") return transcripts.getTranscript(deps, caller, access, path.session_id, range);
      const markdown = await transcripts.getTranscriptMarkdown(deps, caller, access, path.session_id, range);
      return markdown.ok ? ok(new RawResponse("text/markdown; charset=utf-8", markdown.value)) : markdown;
    },
  }),
  defineOperation({
    id: "getSessionCastAnalysis",
    summary: "Get a session's cast analysis",
    description: "Talk share, turns, words, questions, pacing over time, dominance, spotlight equity and longest absences, computed from the transcript. 404 when there is none.",
    tag: "Sessions",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: byPathSession },
    http: { method: "GET", path: "/v1/sessions/{session_id}/cast-analysis", status: 200 },
    mcp: { name: "get_session_cast_analysis", title: "Get a session cast analysis", readOnly: true },
    input: { path: SessionIdPath },
    output: CastAnalysis,
    run: ({ deps, caller, access }, { path }) => transcripts.getCastAnalysis(deps, caller, access, path.session_id),
  }),
  defineOperation({
    id: "getSessionHandout",
    summary: "Get a session's handout",
    description: "The player handout of a session: summary, outline, encounters, spotlights, items, valuable information, party status and next steps, moments. 404 when none has been generated.",
    tag: "Sessions",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: byPathSession },
    http: { method: "GET", path: "/v1/sessions/{session_id}/handout", status: 200 },
    mcp: { name: "get_session_handout", title: "Get a session handout", readOnly: true },
    input: { path: SessionIdPath },
    output: Handout,
    run: ({ deps, caller, access }, { path }) => transcripts.getHandout(deps, caller, access, path.session_id),
  }),
  defineOperation({
    id: "internalImportTranscript",
    summary: "Import a session transcript",
    description: `${FIRST_PARTY} The body is the transcript itself: plain text (Speaker: line), WebVTT, SRT or CRD3 JSON, told by the format query parameter or the content type. Streams; a second import replaces the first.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/sessions/{session_id}/transcript", status: 201, rawBody: true, maxBodyBytes: BODY_LIMITS.transcript },
    input: { path: SessionIdPath, query: TranscriptImportQuery },
    output: ImportResult,
    run: async ({ deps, caller, stream }, { path, query }) =>
      transcripts.importTranscript(deps, caller, path.session_id, {
        pieces: stream?.pieces ?? (async function* () {})(),
        contentType: stream?.contentType ?? null,
        format: query.format,
      }),
  }),
  defineOperation({
    id: "internalPutCastAnalysis",
    summary: "Store a cast analysis",
    description: `${FIRST_PARTY} Replaces the computed analysis with one a first-party analyzer made.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "PUT", path: "/internal/v1/sessions/{session_id}/cast-analysis", status: 200, maxBodyBytes: BODY_LIMITS.artifact },
    input: { path: SessionIdPath, body: Type.Object({ analysis: Type.Record(Type.String(), Type.Unknown()) }) },
    output: CastAnalysis,
    run: ({ deps, caller }, { path, body }) => transcripts.putCastAnalysis(deps, caller, path.session_id, body.analysis),
  }),
  defineOperation({
    id: "internalGenerateHandout",
    summary: "Generate a session handout",
    description: `${FIRST_PARTY} Writes the handout from the transcript and the campaign's records (offline: extractive).`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/sessions/{session_id}/handout", status: 201 },
    input: { path: SessionIdPath },
    output: Handout,
    run: ({ deps, caller }, { path }) => transcripts.generateHandout(deps, caller, path.session_id),
  }),
  defineOperation({
    id: "internalPutHandout",
    summary: "Store a session handout",
    description: `${FIRST_PARTY} Stores a handout a first-party client made, validated against the handout shape.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "PUT", path: "/internal/v1/sessions/{session_id}/handout", status: 200, maxBodyBytes: BODY_LIMITS.artifact },
    input: { path: SessionIdPath, body: HandoutBody },
    output: Handout,
    run: ({ deps, caller }, { path, body }) => transcripts.putHandout(deps, caller, path.session_id, body),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    sessions: typeof sessionOperations;
  }
}
