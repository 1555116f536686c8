// What the application needs from a record store: recap cards: hero awards, quotes and spotlights.
import type { PageRequest } from "../../domain/pagination.ts";
import type { HeroAward, RecapEntry, RecapPipeline } from "../../domain/recaps.ts";
import type { Listing, ReadOptions } from "../records.ts";

export interface RecapFilters {
  campaignId?: string;
  sessionId?: string;
  search?: string;
}

export interface RecapRepository {
  /** The session's pipeline for a source, made on first use (unique per session and source). */
  pipeline(campaignId: string, sessionId: string, source: string, make: () => RecapPipeline): Promise<RecapPipeline>;
  insertAward(award: HeroAward, card: Uint8Array | null): Promise<void>;
  replaceAward(award: HeroAward, card: Uint8Array | null): Promise<void>;
  getAward(id: string, options?: ReadOptions): Promise<HeroAward | null>;
  awardCard(id: string): Promise<Uint8Array | null>;
  listAwards(filters: RecapFilters, page: PageRequest): Promise<Listing<HeroAward>>;
  deleteAward(id: string): Promise<boolean>;
  insertEntry(entry: RecapEntry): Promise<void>;
  replaceEntry(entry: RecapEntry): Promise<void>;
  getEntry(id: string, options?: ReadOptions): Promise<RecapEntry | null>;
  listEntries(type: RecapEntry["entry_type"], filters: RecapFilters, page: PageRequest): Promise<Listing<RecapEntry>>;
  deleteEntry(id: string): Promise<boolean>;
  countPipelines(sessionId: string): Promise<number>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    recaps: RecapRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    hero_awards: HeroAward;
    quotes: RecapEntry;
    spotlights: RecapEntry;
  }
}
