// What the application needs from a record store: campaigns, their members and settings.
import type { Campaign, CampaignChanges, CharacterArcSettings, FieldDefinition, Membership, StatKind } from "../../domain/campaign.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, ReadOptions } from "../records.ts";

export interface CampaignFilters {
  search?: string;
  ownerId?: string;
  publicOnly?: boolean;
  /** Only archived (true) or only active (false) campaigns; both when absent. */
  archived?: boolean;
}

/** A campaign together with the caller's standing in it, read in one round trip. */
export interface CampaignWithStanding {
  campaign: Campaign;
  roles: string[];
}

export interface CampaignRepository {
  insert(campaign: Campaign): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Campaign | null>;
  getWithStanding(id: string, userId: string): Promise<CampaignWithStanding | null>;
  listVisibleTo(userId: string, filters: CampaignFilters, page: PageRequest): Promise<Listing<Campaign>>;
  update(id: string, changes: CampaignChanges, updatedAt: string): Promise<Campaign | null>;
  transferOwnership(id: string, newOwnerId: string, updatedAt: string): Promise<void>;
  delete(id: string): Promise<boolean>;
  counts(id: string): Promise<Record<StatKind, number>>;
}

export interface MemberRepository {
  upsert(member: Membership): Promise<Membership>;
  remove(campaignId: string, userId: string): Promise<boolean>;
  get(campaignId: string, userId: string, options?: ReadOptions): Promise<Membership | null>;
  list(campaignId: string): Promise<Membership[]>;
}

export interface CampaignSettingsRepository {
  putCharacterArc(campaignId: string, settings: CharacterArcSettings, at: string): Promise<void>;
  getCharacterArc(campaignId: string): Promise<CharacterArcSettings | null>;
  insertFieldDefinitions(definitions: FieldDefinition[]): Promise<void>;
  listFieldDefinitions(campaignId: string): Promise<FieldDefinition[]>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    campaigns: CampaignRepository;
    members: MemberRepository;
    settings: CampaignSettingsRepository;
  }
}
