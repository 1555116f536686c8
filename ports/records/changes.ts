// The change feed (written by the database in the same transaction as each change) and its retention.

export type ChangeOp = "create" | "update" | "delete";

export interface Change {
  seq: number;
  kind: string;
  id: string;
  op: ChangeOp;
  at: string;
  actor_id: string | null;
}

export interface FeedPosition {
  /** The newest committed change's seq (0 when none). */
  last_seq: number;
  /** Changes up to here were removed by retention. */
  pruned_through: number;
}

export interface ChangeRepository {
  /** Where the campaign's feed stands; read before `list` so nothing committed in between is skipped. */
  position(campaignId: string): Promise<FeedPosition>;
  /** Changes with after < seq <= upTo that `viewerId` may read, oldest first. */
  list(campaignId: string, after: number, upTo: number, limit: number, viewerId: string): Promise<Change[]>;
  /**
   * Removes changes older than `before`, never past what an enabled webhook still has to deliver;
   * returns how many went.
   */
  prune(before: string): Promise<number>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    changes: ChangeRepository;
  }
}
