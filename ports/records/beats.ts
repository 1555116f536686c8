// What the application needs from a record store: beats.
import type { Beat } from "../../domain/beats.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, Stored } from "../records.ts";

export interface BeatRepository extends Stored<Beat> {
  listByCampaign(campaignId: string, page: PageRequest): Promise<Listing<Beat>>;
  listBySession(sessionId: string, page: PageRequest): Promise<Listing<Beat>>;
  allBySession(sessionId: string): Promise<Beat[]>;
  ancestry(id: string): Promise<Map<string, string | null>>;
  /** Children lose their parent. */
  orphanChildren(id: string, at: string): Promise<number>;
  /** Beats lose a deleted session. */
  forgetSession(sessionId: string): Promise<void>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    beats: BeatRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    beats: Beat;
  }
}
