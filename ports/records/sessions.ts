// What the application needs from a record store: sessions, transcripts, and the artifacts of a session (cast analyses, handouts).
import type { PageRequest } from "../../domain/pagination.ts";
import type { Handout, Session, SessionArtifact, SessionRef, SessionType } from "../../domain/sessions.ts";
import type { StoredUtterance, TranscriptRecord } from "../../domain/transcripts.ts";
import type { Listing, Stored } from "../records.ts";

export interface SessionListFilters {
  type?: SessionType;
  publicOnly?: boolean;
}

export interface SessionRepository extends Stored<Session> {
  /** Newest first, with each session's number (date order, from 1). */
  list(campaignId: string, filters: SessionListFilters, page: PageRequest): Promise<Listing<Session & { index: number }>>;
  numberOf(session: Session): Promise<number>;
  /** The sessions with these ids, numbered in date order within their campaign. */
  refs(campaignId: string, ids: string[]): Promise<Map<string, SessionRef>>;
}

export interface TranscriptRepository {
  /** Removes a session's utterances (before a new import). */
  clear(sessionId: string): Promise<void>;
  append(sessionId: string, utterances: StoredUtterance[]): Promise<void>;
  put(record: TranscriptRecord): Promise<void>;
  get(sessionId: string): Promise<TranscriptRecord | null>;
  /** Utterances in order from `fromPosition`, at most `limit`. */
  utterances(sessionId: string, fromPosition: number, limit: number): Promise<StoredUtterance[]>;
  delete(sessionId: string): Promise<void>;
}

export interface ArtifactRepository<T> {
  put(artifact: SessionArtifact<T>): Promise<SessionArtifact<T>>;
  get(sessionId: string): Promise<SessionArtifact<T> | null>;
  delete(sessionId: string): Promise<void>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    sessions: SessionRepository;
    transcripts: TranscriptRepository;
    castAnalyses: ArtifactRepository<Record<string, unknown>>;
    handouts: ArtifactRepository<Handout>;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    sessions: Session;
  }
}
