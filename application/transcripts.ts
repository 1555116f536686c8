// Transcripts (import and read), and what is derived from them: cast analyses and handouts.
import { normalizeAlias } from "../domain/aliases.ts";
import { addUtterance, finishCastAnalysis, newCastAccumulator } from "../domain/cast.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import type { Handout, Session, SessionArtifact } from "../domain/sessions.ts";
import { gameMasterNames } from "../domain/speakers.ts";
import { parserFor, sniffFormat, speakersOf, TranscriptError, type StoredUtterance, type TranscriptFormat, type TranscriptRecord, type Utterance } from "../domain/transcripts.ts";
import type { Repositories } from "../ports/records.ts";
import type { TokenCounter } from "../ports/tokens.ts";
import { inCampaign, requireFirstParty, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { SESSION_NOT_FOUND } from "./sessions.ts";

// Transcripts --------------------------------------------------------------------------------------

export interface TranscriptSource {
  /** The body, in pieces as they arrive. */
  pieces: AsyncIterable<string>;
  contentType: string | null;
  format?: TranscriptFormat;
}

const BATCH = 500;
const CHUNK_CHARS = 1200;

interface TranscriptChunk {
  text: string;
  start: number;
  end: number;
}

/** A transcript parsed and measured, ready to be written in one go. */
interface StagedTranscript {
  format: TranscriptFormat;
  batches: StoredUtterance[][];
  chunks: TranscriptChunk[];
  speakers: string[];
  cast: ReturnType<typeof newCastAccumulator>;
  count: number;
  chars: number;
  tokens: number;
}

/** Reads and parses the whole source; touches no database, so a slow source holds nothing. */
async function stageTranscript(source: TranscriptSource, tokenizer: TokenCounter): Promise<StagedTranscript> {
  const speakers = new Map<string, string>(); // key → label as first seen
  const cast = newCastAccumulator();
  let parser: ReturnType<typeof parserFor> | null = source.format ? parserFor(source.format) : null;
  let format = source.format ?? null;
  const batches: StoredUtterance[][] = [[]];
  const chunks: TranscriptChunk[] = [];
  let position = 0;
  let chars = 0;
  let tokens = 0;
  // Utterance texts waiting to be counted (the tokenizer is async: it counts off the event loop).
  const uncounted: string[] = [];
  const count = async () => {
    for (const counted of await Promise.all(uncounted.splice(0).map((text) => tokenizer.count(text)))) tokens += counted;
  };
  let chunk: TranscriptChunk = { text: "", start: 0, end: 0 };
  const take = (utterances: Utterance[]) => {
    for (const u of utterances) {
      for (const name of speakersOf(u.speaker)) if (!speakers.has(name.toLowerCase())) speakers.set(name.toLowerCase(), name);
      addUtterance(cast, u);
      if (batches[batches.length - 1]!.length >= BATCH) batches.push([]);
      batches[batches.length - 1]!.push({ position: position++, speaker_label: u.speaker, text: u.text, start_s: u.start, end_s: u.end });
      chars += u.text.length;
      uncounted.push(u.text);
      if (!chunk.text) chunk.start = u.start;
      chunk.text += `${chunk.text ? "\n" : ""}${u.speaker}: ${u.text}`;
      chunk.end = u.end;
      if (chunk.text.length >= CHUNK_CHARS) {
        chunks.push(chunk);
        chunk = { text: "", start: 0, end: 0 };
      }
    }
  };
  for await (const piece of source.pieces) {
    if (!parser) {
      format = sniffFormat(source.contentType, piece.slice(0, 200));
      parser = parserFor(format);
    }
    take(parser.push(piece));
    await count();
  }
  parser ??= parserFor((format = sniffFormat(source.contentType, "")));
  take(parser.end());
  await count();
  if (chunk.text) chunks.push(chunk);
  return { format: format!, batches: batches.filter((batch) => batch.length), chunks, speakers: [...speakers.values()], cast, count: position, chars, tokens };
}

/**
 * Replaces a session's transcript with the one streamed in. The body is read and parsed first,
 * outside any transaction (a slow client must not hold the database; on PGlite it is the only
 * connection); then utterances, speakers (matched to or created as campaign speakers), the
 * analysis and the search chunks are written in one short transaction. A malformed file changes
 * nothing.
 */
export async function importTranscript(deps: Deps, caller: Caller, sessionId: string, source: TranscriptSource): Promise<Result<{ utterance_count: number; speakers: string[] }>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const session = await deps.records.sessions.get(sessionId);
  if (!session) return fail("not_found", SESSION_NOT_FOUND);
  if (session.type === "rawNotes") return fail("bad_request", "Raw-notes sessions carry notes, not a transcript");
  let staged: StagedTranscript;
  try {
    staged = await stageTranscript(source, deps.ask.tokens);
  } catch (error) {
    if (error instanceof TranscriptError) return fail("invalid", error.message, [{ type: "transcript_invalid", loc: ["body"], msg: error.message, input: null }]);
    throw error;
  }
  return deps.records.withTransaction(async (tx): Promise<Result<{ utterance_count: number; speakers: string[] }>> => {
    // The session may have gone while the body arrived; locked, so one import of a session at a
    // time and none into a session being deleted. Staged in memory, so the work may be retried.
    if (!(await tx.sessions.get(sessionId, { lock: true }))) return fail("not_found", SESSION_NOT_FOUND);
    await tx.transcripts.clear(sessionId);
    await clearTranscriptChunks(tx, sessionId);
    for (const batch of staged.batches) await tx.transcripts.append(sessionId, batch);
    await tx.askIndex.indexTranscript(sessionId);
    for (const [index, chunk] of staged.chunks.entries())
      await tx.search.upsert(
        {
          campaign_id: session.campaign_id,
          doc_type: "transcript",
          doc_id: `${sessionId}:${index}`,
          title: session.title,
          body: chunk.text,
          facets: { session_id: sessionId, start: chunk.start, end: chunk.end },
        },
        nowIso(deps),
      );

    const labels = staged.speakers;
    const campaignSpeakers = await tx.speakers.list(session.campaign_id);
    const known = new Set(campaignSpeakers.map((s) => s.name.toLowerCase()));
    for (const label of labels) {
      if (known.has(label.toLowerCase())) continue;
      await tx.speakers.insert({ id: deps.ids.next(), campaign_id: session.campaign_id, name: normalizeAlias(label), handle: null, user_id: null, roles: [], created_at: nowIso(deps) });
    }
    const previous = await tx.transcripts.get(sessionId);
    const at = nowIso(deps);
    await tx.transcripts.put({
      session_id: sessionId,
      campaign_id: session.campaign_id,
      version: (previous?.version ?? 0) + 1,
      source_type: staged.format,
      speakers: labels,
      utterance_count: staged.count,
      char_count: staged.chars,
      tokens: staged.tokens,
      created_at: at,
    });
    const existing = await tx.castAnalyses.get(sessionId);
    await tx.castAnalyses.put({
      id: existing?.id ?? deps.ids.next(),
      session_id: sessionId,
      campaign_id: session.campaign_id,
      body: finishCastAnalysis(staged.cast, gameMasterNames(campaignSpeakers)),
      source: "computed",
      pdf_saved_at: null,
      pdf_page_count: null,
      created_at: existing?.created_at ?? at,
      updated_at: existing ? at : null,
    });
    return ok({ utterance_count: staged.count, speakers: labels });
  });
}

async function clearTranscriptChunks(tx: Repositories, sessionId: string) {
  await tx.search.removeByFacet("transcript", "session_id", sessionId);
}

export interface TranscriptView {
  version: number;
  created_at: string;
  metadata: {
    session_id: string;
    session_type: string;
    campaign_id: string;
    world_title: string;
    world_language: string;
    session_date: string;
    speakers: string[];
    speaker_count: number;
    source_type: string;
    created_at: string;
  };
  utterances: { speaker_label: string; transcript: string; start: number; end: number; said_at: string }[];
  text: string;
  stats: { char_count: number; tokens: number; utterance_count: number };
}

async function transcriptFor(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string): Promise<Result<{ session: Session; record: TranscriptRecord; campaign: { title: string; language: string } }>> {
  const found = inCampaign(access, await deps.records.sessions.get(sessionId), SESSION_NOT_FOUND);
  if (!found.ok) return found;
  const record = await deps.records.transcripts.get(sessionId);
  if (!record) return fail("not_found", "Transcript not found for this session");
  return ok({ session: found.value, record, campaign: access.campaign });
}

/** The utterances from index `first` to `last` (inclusive), in order, a page at a time. */
async function* allUtterances(repos: Repositories, sessionId: string, first = 0, last = Number.MAX_SAFE_INTEGER): AsyncGenerator<StoredUtterance> {
  for (let from = first; ; ) {
    const page = await repos.transcripts.utterances(sessionId, from, Math.min(2000, last - from + 1));
    for (const u of page) {
      if (u.position > last) return;
      yield u;
    }
    if (page.length < 2000) return;
    from = page[page.length - 1]!.position + 1;
  }
}

/** A span of a transcript by utterance index, as Ask's citations give it (`from`/`to`, inclusive). */
export interface UtteranceRange {
  from?: number;
  to?: number;
}

export async function getTranscript(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string, range: UtteranceRange = {}): Promise<Result<TranscriptView>> {
  const found = await transcriptFor(deps, caller, access, sessionId);
  if (!found.ok) return found;
  const { session, record, campaign } = found.value;
  const base = Date.parse(session.session_date);
  const utterances: TranscriptView["utterances"] = [];
  const lines: string[] = [];
  for await (const u of allUtterances(deps.records, sessionId, range.from, range.to)) {
    utterances.push({ speaker_label: u.speaker_label, transcript: u.text, start: u.start_s, end: u.end_s, said_at: new Date(base + u.start_s * 1000).toISOString() });
    lines.push(`${u.speaker_label}: ${u.text}`);
  }
  return ok({
    version: record.version,
    created_at: record.created_at,
    metadata: {
      session_id: session.id,
      session_type: session.type,
      campaign_id: session.campaign_id,
      world_title: campaign.title,
      world_language: campaign.language,
      session_date: session.session_date,
      speakers: record.speakers,
      speaker_count: record.speakers.length,
      source_type: record.source_type,
      created_at: record.created_at,
    },
    utterances,
    text: lines.join("\n"),
    stats: { char_count: record.char_count, tokens: record.tokens, utterance_count: record.utterance_count },
  });
}

const clock = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, "0")).join(":");
};

export async function getTranscriptMarkdown(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string, range: UtteranceRange = {}): Promise<Result<string>> {
  const found = await transcriptFor(deps, caller, access, sessionId);
  if (!found.ok) return found;
  const { session, record, campaign } = found.value;
  const parts = [
    `# Transcript: ${session.title}`,
    "",
    `- Session: ${session.id}`,
    `- Campaign: ${campaign.title}`,
    `- Session date: ${session.session_date}`,
    `- Session type: ${session.type}`,
    `- Speakers: ${record.speakers.join(", ")}`,
    `- Speaker count: ${record.speakers.length}`,
    "",
    "## Statistics",
    "",
    `- Utterances: ${record.utterance_count}`,
    `- Characters: ${record.char_count}`,
    `- Tokens: ${record.tokens}`,
    "",
    "## Transcript",
    "",
  ];
  for await (const u of allUtterances(deps.records, sessionId, range.from, range.to)) parts.push(`**[${clock(u.start_s)}] ${u.speaker_label}:** ${u.text}`, "");
  return ok(parts.join("\n"));
}

// Cast analyses and handouts ----------------------------------------------------------------------------

export type ArtifactView = Omit<SessionArtifact<unknown>, "body" | "pdf_saved_at" | "pdf_page_count" | "source" | "campaign_id"> & {
  analysis: Record<string, unknown>;
  pdfSavedAt: string | null;
  pdfPageCount: number | null;
};

export async function getCastAnalysis(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string): Promise<Result<ArtifactView>> {
  const found = inCampaign(access, await deps.records.sessions.get(sessionId), SESSION_NOT_FOUND);
  if (!found.ok) return found;
  const artifact = await deps.records.castAnalyses.get(sessionId);
  if (!artifact) return fail("not_found", "Cast analysis not found for this session");
  return ok({
    id: artifact.id,
    session_id: artifact.session_id,
    analysis: artifact.body,
    created_at: artifact.created_at,
    updated_at: artifact.updated_at,
    pdfSavedAt: artifact.pdf_saved_at,
    pdfPageCount: artifact.pdf_page_count,
  });
}

export async function putCastAnalysis(deps: Deps, caller: Caller, sessionId: string, analysis: Record<string, unknown>): Promise<Result<ArtifactView>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const session = await deps.records.sessions.get(sessionId);
  if (!session) return fail("not_found", SESSION_NOT_FOUND);
  const existing = await deps.records.castAnalyses.get(sessionId);
  const at = nowIso(deps);
  const saved = await deps.records.castAnalyses.put({
    id: existing?.id ?? deps.ids.next(),
    session_id: sessionId,
    campaign_id: session.campaign_id,
    body: analysis,
    source: "first-party",
    pdf_saved_at: null,
    pdf_page_count: null,
    created_at: existing?.created_at ?? at,
    updated_at: existing ? at : null,
  });
  return ok({ id: saved.id, session_id: sessionId, analysis: saved.body, created_at: saved.created_at, updated_at: saved.updated_at, pdfSavedAt: saved.pdf_saved_at, pdfPageCount: saved.pdf_page_count });
}

export type HandoutView = Handout & { pdfSavedAt: string | null; pdfPageCount: number | null };

export async function getHandout(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string): Promise<Result<HandoutView>> {
  const found = inCampaign(access, await deps.records.sessions.get(sessionId), SESSION_NOT_FOUND);
  if (!found.ok) return found;
  const artifact = await deps.records.handouts.get(sessionId);
  if (!artifact) return fail("not_found", "Handout not found for this session");
  return ok({ ...artifact.body, pdfSavedAt: artifact.pdf_saved_at, pdfPageCount: artifact.pdf_page_count });
}

async function saveHandout(deps: Deps, session: Session, handout: Handout, source: string): Promise<HandoutView> {
  const existing = await deps.records.handouts.get(session.id);
  const at = nowIso(deps);
  const saved = await deps.records.handouts.put({
    id: session.id,
    session_id: session.id,
    campaign_id: session.campaign_id,
    body: handout,
    source,
    pdf_saved_at: null,
    pdf_page_count: null,
    created_at: existing?.created_at ?? at,
    updated_at: existing ? at : null,
  });
  return { ...saved.body, pdfSavedAt: saved.pdf_saved_at, pdfPageCount: saved.pdf_page_count };
}

export async function putHandout(deps: Deps, caller: Caller, sessionId: string, handout: Handout): Promise<Result<HandoutView>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const session = await deps.records.sessions.get(sessionId);
  if (!session) return fail("not_found", SESSION_NOT_FOUND);
  return ok(await saveHandout(deps, session, handout, "first-party"));
}

/** Writes a handout from the session's transcript and the campaign's records through the handout writer. */
export async function generateHandout(deps: Deps, caller: Caller, sessionId: string): Promise<Result<HandoutView>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const session = await deps.records.sessions.get(sessionId);
  if (!session) return fail("not_found", SESSION_NOT_FOUND);
  const utterances: StoredUtterance[] = [];
  for await (const u of allUtterances(deps.records, sessionId)) utterances.push(u);
  const speakers = await deps.records.speakers.list(session.campaign_id);
  const characters = await deps.records.characters.list(session.campaign_id, { approvedOnly: false }, { page: 1, size: 100 });
  const entities = await Promise.all((["faction", "location", "item"] as const).map((kind) => deps.records.entities.list(session.campaign_id, kind, {}, { page: 1, size: 100 })));
  const speakerName = new Map(speakers.map((s) => [s.id, s.name]));
  const handout = await deps.writer.write({
    session: { title: session.title, summary: session.summary, session_date: session.session_date },
    utterances,
    beats: await deps.records.beats.allBySession(sessionId),
    moments: (await deps.records.moments.list({ sessionId }, { page: 1, size: 100 })).rows,
    characters: characters.rows.map((c) => ({ name: c.character_name, aliases: c.character_aliases, description: c.description, speaker: c.speaker_id ? (speakerName.get(c.speaker_id) ?? null) : null })),
    entities: entities.flatMap((listing) => listing.rows.map((e) => ({ kind: e.kind, name: e.name, aliases: e.aliases, description: e.description }))),
    gmSpeakers: gameMasterNames(speakers),
  });
  return ok(await saveHandout(deps, session, handout, deps.writer.name));
}
