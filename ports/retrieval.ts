// What Ask needs from a retrieval index: passages of a campaign the asker may read, ranked for a
// question. The default adapter is SQL (full text + trigram + entity and session hints, vectors
// when an embedder is configured); a Meilisearch adapter can implement the same port.

export const PASSAGE_KINDS = [
  "character",
  "faction",
  "location",
  "item",
  "beat",
  "moment",
  "hero_award",
  "quote",
  "spotlight",
  "session",
  "transcript",
  "quest",
  "journal",
] as const;
export type PassageKind = (typeof PASSAGE_KINDS)[number];

/** Whose journal entries a query may reach: every entry (manage access with gm_permissions) or those one user may read. */
export type JournalReach = { all: true } | { readableBy: string };

export interface RetrievalQuery {
  campaignId: string;
  /** The question, with what a follow-up needs from earlier messages already folded in by the caller. */
  text: string;
  journals: JournalReach;
  /** Spoiler-safe asking: sessions, transcripts, beats and moments of later sessions are never read. */
  asOfSessionId?: string;
  limit: number;
  signal?: AbortSignal;
}

/** Where a transcript passage sits in its session's recording. */
export interface TranscriptSpan {
  session_id: string;
  /** Utterance indexes, inclusive, as `GET /v1/sessions/{id}/transcript?from=&to=` takes them. */
  utterance_start: number;
  utterance_end: number;
  /** Seconds into the recording. */
  start: number;
  end: number;
  speakers: string[];
}

export interface Passage {
  kind: PassageKind;
  /** The record's id (a transcript passage: its session's id). */
  sourceId: string;
  title: string;
  /** The passage's own text: what the answer may quote. */
  text: string;
  sessionId: string | null;
  /** The session's number in date order, from 1. */
  sessionNumber: number | null;
  score: number;
  /**
   * Share of the question's words (weighed by rarity) the passage contains, 0–1. A low best
   * coverage says the campaign probably does not hold the answer. Absent when not measured.
   */
  coverage?: number;
  transcript?: TranscriptSpan;
}

export interface Retriever {
  /** Best first; never a passage the query's `journals` reach does not allow, never one after `asOfSessionId`. */
  retrieve(query: RetrievalQuery): Promise<Passage[]>;
  /**
   * Brings dense vectors up to date for passages written since the last call, of one campaign or
   * (null) of all, when an embedder is configured; resolves at once with 0 otherwise. The
   * background worker calls it: writes and lexical retrieval never wait for it.
   */
  indexPending?(campaignId: string | null, signal?: AbortSignal): Promise<number>;
}
