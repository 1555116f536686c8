// What the application needs from a record store: Ask's retrieval index, where triggers do not reach.
// Records of every kind are indexed by the store itself in the transaction that writes them;
// transcripts are cut into windows of utterances when imported.

export interface AskIndexRepository {
  /** Replaces the session's transcript windows with windows of its stored utterances. */
  indexTranscript(sessionId: string): Promise<number>;
  /** Rebuilds the whole index of one campaign (or of every campaign); returns the passages written. */
  reindex(campaignId: string | null): Promise<number>;
  /**
   * Folds the running counts of the campaigns (at most `limit`, most split first) whose counts have
   * more than `threshold` rows beyond one a word; each campaign in a statement of its own, safe beside
   * concurrent writes. Returns the campaigns folded.
   */
  foldCounts(threshold: number, limit: number): Promise<string[]>;
  /**
   * Packs the posting lists of campaigns of at least `minPassages` passages whose lists were never
   * packed or changed by more than a tenth since (at most `limit`), for the retriever to score in
   * the application. Returns the campaigns packed. A build is written in short statements and
   * switched to at the end (questions meanwhile read the previous one); rows of builds replaced or
   * abandoned are deleted a batch at a time.
   */
  pack(minPassages: number, limit: number, options?: PackOptions): Promise<string[]>;
}

export interface PackOptions {
  /** Postings a statement writes or deletes (about; at least one word). */
  postingsPerStatement?: number;
  /** Awaited after each statement of a build, given its time (default on PGlite: a pause as long, at least 5 ms). */
  between?: (statementMs: number) => Promise<void>;
  /** The packed table is vacuumed after about this many postings written or deleted (default on PGlite 1,000,000; 0: never). */
  vacuumEveryPostings?: number;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    askIndex: AskIndexRepository;
  }
}
