// What the application needs from a record store: quests.
import type { PageRequest } from "../../domain/pagination.ts";
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import type { Listing, Stored } from "../records.ts";

export interface QuestFilters {
  search?: string;
  status?: QuestStatus;
  quest_category?: QuestCategory;
}

export interface QuestRepository extends Stored<Quest> {
  list(campaignId: string, filters: QuestFilters, page: PageRequest): Promise<Listing<Quest>>;
  nextOrderIndex(campaignId: string): Promise<number>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    quests: QuestRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    quests: Quest;
  }
}
