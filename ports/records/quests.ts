// What the application needs from a record store: quests.
import type { PageRequest } from "../../domain/pagination.ts";
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import type { Listing, ReadOptions } from "../records.ts";

export interface QuestFilters {
  search?: string;
  status?: QuestStatus;
  quest_category?: QuestCategory;
}

export interface QuestRepository {
  insert(quest: Quest): Promise<void>;
  replace(quest: Quest): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Quest | null>;
  list(campaignId: string, filters: QuestFilters, page: PageRequest): Promise<Listing<Quest>>;
  nextOrderIndex(campaignId: string): Promise<number>;
  delete(id: string): Promise<boolean>;
}
