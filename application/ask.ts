// Ask: a question about a campaign answered from the passages the asker may read, with numbered
// citations; offline (extractive) or by a language model; counted against per-user token budgets.
import { grants } from "../domain/access.ts";
import { accessLevelOf } from "../domain/access.ts";
import {
  answerPrompt,
  citationsFor,
  CitationNumbering,
  extractiveAnswer,
  questionOf,
  retrievalText,
  type AskCitation,
  type AskMessage,
} from "../domain/ask.ts";
import { fail, failLater, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { ModelFailed, ModelUnavailable, type ChatMessage, type StreamChunk, type TokenUsage } from "../ports/ai.ts";
import type { UsageCounts, UsageWindows } from "../ports/records.ts";
import type { JournalReach, Passage } from "../ports/retrieval.ts";
import type { CampaignAccess } from "./access.ts";
import type { Deps } from "./deps.ts";

export interface AskInput {
  messages: AskMessage[];
  stream: boolean;
  gm_permissions: boolean;
  asker_id?: string | null;
  as_of_session?: string | null;
}

export interface AskRemaining {
  monthlyTokensRemaining: number;
  hourlyTokensRemaining: number;
}

export interface AskAnswer extends AskRemaining {
  answer: string;
  citations: AskCitation[];
}

export type AskChunk = { id: string; type: "delta"; content: string } | ({ id: string; type: "done"; citations: AskCitation[]; error?: string } & AskRemaining);

/** A streamed answer: the counters as they stand once the prompt is counted, then the chunks. */
export interface AskStream {
  remaining: AskRemaining;
  chunks: (signal: AbortSignal) => AsyncIterable<AskChunk>;
}

/**
 * Below this coverage (the share of the question's words, by rarity, the best passage holds) the
 * records probably do not answer: the value bench/ask.ts fixed by hand for "not in the campaign".
 */
const ANSWERED_COVERAGE = 0.6;

/** Passages handed to the answerer. */
export const PASSAGE_LIMIT = 8;
/** Earlier turns sent with the question (the newest ones). */
const HISTORY_LIMIT = 12;
/** Longest answer a model may write, in tokens (less when the budget has less left). */
const MAX_ANSWER_TOKENS = 2048;

// ---------------------------------------------------------------------------------------------
// Budgets

/** The calendar windows (UTC) a moment falls in, and when each ends. */
export function windowsAt(now: Date): UsageWindows & { monthEnds: Date; hourEnds: Date } {
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const hour = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours()));
  return {
    month: month.toISOString(),
    hour: hour.toISOString(),
    monthEnds: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    hourEnds: new Date(hour.getTime() + 3_600_000),
  };
}

const remainingOf = (deps: Deps, used: UsageCounts): AskRemaining => ({
  monthlyTokensRemaining: Math.max(0, deps.ask.limits.monthly - used.month),
  hourlyTokensRemaining: Math.max(0, deps.ask.limits.hourly - used.hour),
});

/** 429: which budget is used up, when it comes back (Retry-After). */
function overBudget(deps: Deps, used: UsageCounts, now: Date, needed: number): Result<never> {
  const windows = windowsAt(now);
  const { monthly, hourly } = deps.ask.limits;
  const monthOver = used.month + needed > monthly;
  const which = monthOver ? "monthly" : "hourly";
  const limit = monthOver ? monthly : hourly;
  const ends = monthOver ? windows.monthEnds : windows.hourEnds;
  const left = Math.max(0, limit - (monthOver ? used.month : used.hour));
  const seconds = Math.ceil((ends.getTime() - now.getTime()) / 1000);
  const detail =
    left === 0
      ? `Your ${which} Ask token limit (${limit.toLocaleString("en-US")} tokens) is used up; it resets at ${ends.toISOString()}`
      : `This question needs about ${needed.toLocaleString("en-US")} tokens and ${left.toLocaleString("en-US")} are left of your ${which} Ask limit; it resets at ${ends.toISOString()}`;
  return failLater("rate_limited", detail, seconds);
}

export async function askQuota(deps: Deps, caller: Caller): Promise<Result<AskRemaining & { launchPromoActive: boolean }>> {
  const used = await deps.records.askUsage.used(caller.userId, windowsAt(deps.clock.now()));
  return ok({ ...remainingOf(deps, used), launchPromoActive: false });
}

// ---------------------------------------------------------------------------------------------
// Who the answer is for

/** Whose journal entries the question may reach (the spec's gm_permissions and asker_id), or the refusal. */
async function journalReach(deps: Deps, caller: Caller, access: CampaignAccess, input: AskInput): Promise<Result<JournalReach>> {
  if (input.gm_permissions) {
    if (!grants(access.level, "manage")) return fail("forbidden", "gm_permissions needs manage access (owner or admin) to this campaign");
    return ok({ all: true });
  }
  const askerId = input.asker_id ?? null;
  if (askerId === null) return ok({ readableBy: caller.userId });
  // Answering as another user reads what they may read: only a game master may do that.
  if (askerId !== caller.userId && !grants(access.level, "manage"))
    return fail("forbidden", "Asking as another user (asker_id) needs manage access (owner or admin) to this campaign");
  if (!(await deps.records.users.get(askerId))) return fail("not_found", "asker_id user not found");
  const standing = await deps.records.campaigns.getWithStanding(access.campaign.id, askerId);
  const level = standing ? accessLevelOf({ isOwner: standing.campaign.owner_id === askerId, roles: standing.roles, campaignIsPublic: false }) : "none";
  if (!grants(level, "write")) return fail("forbidden", "The asker_id user is not a player, admin or owner of this campaign");
  return ok({ readableBy: askerId });
}

// ---------------------------------------------------------------------------------------------
// The answer

interface Prepared {
  question: string;
  passages: Passage[];
  system: string;
  conversation: ChatMessage[];
  promptTokens: number;
  windows: UsageWindows;
  /** Counts after the prompt was reserved. */
  used: UsageCounts;
}

/** Everything up to generation: checks, retrieval, the prompt, its tokens reserved. */
async function prepare(deps: Deps, caller: Caller, access: CampaignAccess, input: AskInput): Promise<Result<Prepared>> {
  const question = questionOf(input.messages);
  if (question === null) return fail("bad_request", "messages must include a user message with the question");
  const reach = await journalReach(deps, caller, access, input);
  if (!reach.ok) return reach;
  if (input.as_of_session) {
    const session = await deps.records.sessions.get(input.as_of_session);
    if (!session || session.campaign_id !== access.campaign.id) return fail("not_found", "Session not found (as_of_session)");
  }
  const now = deps.clock.now();
  const windows = windowsAt(now);
  const before = await deps.records.askUsage.used(caller.userId, windows);
  // Nothing is retrieved or generated for a user whose budget is already used up.
  if (before.month >= deps.ask.limits.monthly || before.hour >= deps.ask.limits.hourly) return overBudget(deps, before, now, 1);

  const passages = await deps.retriever.retrieve({
    campaignId: access.campaign.id,
    text: retrievalText(input.messages),
    journals: reach.value,
    ...(input.as_of_session ? { asOfSessionId: input.as_of_session } : {}),
    limit: PASSAGE_LIMIT,
  });
  const extraSystem = input.messages.filter((m) => m.role === "system" && m.content.trim()).map((m) => m.content.trim());
  const system = answerPrompt(passages, extraSystem);
  const conversation: ChatMessage[] = input.messages
    .filter((m): m is AskMessage & { role: "user" | "assistant" } => m.role !== "system" && Boolean(m.content.trim()))
    .slice(-HISTORY_LIMIT)
    .map((m) => ({ role: m.role, content: m.content }));
  // The conversation must end with the question (a trailing assistant turn is dropped).
  while (conversation.length && conversation[conversation.length - 1]!.role !== "user") conversation.pop();
  const promptTokens = await deps.ask.tokens.count([system, ...conversation.map((m) => m.content)].join("\n"));

  const used = await deps.records.withTransaction((tx) => tx.askUsage.reserve(caller.userId, windows, promptTokens, { month: deps.ask.limits.monthly, hour: deps.ask.limits.hourly }));
  if (!used) return overBudget(deps, await deps.records.askUsage.used(caller.userId, windows), now, promptTokens);
  return ok({ question, passages, system, conversation, promptTokens, windows, used });
}

/** The answer's pieces as they come: the model's deltas, or the extractive answer's lines. */
async function* answerPieces(deps: Deps, prepared: Prepared, signal: AbortSignal, streamed: boolean): AsyncGenerator<string> {
  const model = deps.ask.model;
  if (!model) {
    const coverages = prepared.passages.map((p) => p.coverage).filter((c): c is number => c !== undefined);
    const weak = coverages.length > 0 && Math.max(...coverages) < ANSWERED_COVERAGE;
    for (const piece of extractiveAnswer(prepared.question, prepared.passages, { weak })) {
      if (signal.aborted) return;
      yield piece;
    }
    return;
  }
  const left = Math.min(deps.ask.limits.monthly - prepared.used.month, deps.ask.limits.hourly - prepared.used.hour);
  const request = { system: prepared.system, messages: prepared.conversation, maxOutputTokens: Math.max(1, Math.min(MAX_ANSWER_TOKENS, left)), temperature: 0.2, signal };
  if (!streamed) {
    yield (await model.generate(request)).text;
    return;
  }
  const chunks: AsyncIterable<StreamChunk> = model.stream(request);
  for await (const chunk of chunks) if ("delta" in chunk) yield chunk.delta;
}

/** What a provider failure tells the client: try later (503 + Retry-After) or a failure to report. */
function modelRefusal(error: unknown): Result<never> | null {
  if (error instanceof ModelUnavailable) return failLater("unavailable", `The language model is unavailable for now: ${error.message}`, error.retryAfterSeconds);
  if (error instanceof ModelFailed) return fail("unavailable", `The language model failed to answer: ${error.message}`);
  return null;
}

/** Charges what the answer used beyond the prompt (or gives the prompt back when nothing was generated). */
async function settle(deps: Deps, caller: Caller, prepared: Prepared, answer: string | null): Promise<AskRemaining> {
  const tokens = answer === null ? -prepared.promptTokens : await deps.ask.tokens.count(answer);
  const used = tokens === 0 ? prepared.used : await deps.records.askUsage.add(caller.userId, prepared.windows, tokens);
  return remainingOf(deps, used);
}

export async function askCampaign(deps: Deps, caller: Caller, access: CampaignAccess, input: AskInput): Promise<Result<AskAnswer>> {
  const prepared = await prepare(deps, caller, access, input);
  if (!prepared.ok) return prepared;
  const p = prepared.value;
  const numbering = new CitationNumbering(p.passages.length);
  let answer = "";
  try {
    for await (const piece of answerPieces(deps, p, new AbortController().signal, false)) answer += numbering.push(piece);
  } catch (error) {
    const refusal = modelRefusal(error);
    if (!refusal) throw error;
    await settle(deps, caller, p, null);
    return refusal;
  }
  answer = (answer + numbering.end()).trim();
  const remaining = await settle(deps, caller, p, answer);
  return ok({ answer, citations: citationsFor(p.passages, numbering.cited()), ...remaining });
}

/**
 * The streamed answer. The first piece is awaited before answering, so a model that refuses at once
 * is still a plain error status; later failures end the stream with a note and the `done` chunk.
 */
export async function askCampaignStream(deps: Deps, caller: Caller, access: CampaignAccess, input: AskInput): Promise<Result<AskStream>> {
  const prepared = await prepare(deps, caller, access, input);
  if (!prepared.ok) return prepared;
  const p = prepared.value;
  const id = `ask-${deps.ids.next()}`;
  const upstream = new AbortController();
  const pieces = answerPieces(deps, p, upstream.signal, true);
  let first: IteratorResult<string>;
  try {
    first = await pieces.next();
  } catch (error) {
    const refusal = modelRefusal(error);
    if (!refusal) throw error;
    await settle(deps, caller, p, null);
    return refusal;
  }
  async function* chunks(signal: AbortSignal): AsyncGenerator<AskChunk> {
    const stop = () => upstream.abort(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    const numbering = new CitationNumbering(p.passages.length);
    let said = "";
    let error: string | undefined;
    let settled = false;
    try {
      let next = first;
      while (!next.done) {
        const shown = numbering.push(next.value);
        said += next.value;
        if (shown) yield { id, type: "delta", content: shown };
        try {
          next = await pieces.next();
        } catch (failure) {
          const refusal = modelRefusal(failure);
          if (!refusal || refusal.ok || signal.aborted) throw failure;
          error = refusal.error.detail;
          break;
        }
      }
      const rest = numbering.end() + (error ? `\n\n(The answer stopped early: ${error})` : "");
      if (rest) yield { id, type: "delta", content: rest };
      settled = true;
      const remaining = await settle(deps, caller, p, said);
      yield { id, type: "done", citations: citationsFor(p.passages, numbering.cited()), ...remaining, ...(error ? { error } : {}) };
    } finally {
      signal.removeEventListener("abort", stop);
      // A client that left: stop the model, and charge what it had written by then.
      if (!settled) {
        upstream.abort();
        await pieces.return(undefined).catch(() => {});
        await settle(deps, caller, p, said).catch(() => {});
      }
    }
  }
  return ok({ remaining: remainingOf(deps, p.used), chunks });
}
