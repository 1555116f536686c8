// What the application needs from a record store. No SQL or driver types cross this line.
import type { Campaign, CampaignChanges, CharacterArcSettings, FieldDefinitionDraft, StatKind } from "../domain/campaign.ts";
import type { User, UserRole } from "../domain/identity.ts";
import type { PageRequest } from "../domain/pagination.ts";

export interface Listing<T> {
  rows: T[];
  total: number;
}

export interface NewUser {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  created_at: string;
}

export interface UserRepository {
  /** Returns null when the email is taken. */
  insert(user: NewUser): Promise<User | null>;
  get(id: string): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
}

export interface ApiKeyRecord {
  id: string;
  user_id: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

export interface ActiveKey {
  keyId: string;
  userId: string;
  scopes: string[];
}

export interface ApiKeyRepository {
  insert(key: Omit<ApiKeyRecord, "revoked_at"> & { hash: string }): Promise<ApiKeyRecord>;
  findActiveByHash(hash: string): Promise<ActiveKey | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Returns false when there is no such active key. */
  revoke(id: string, at: string): Promise<boolean>;
  revokeAllForUserExcept(userId: string, keepHash: string, at: string): Promise<number>;
  listForUser(userId: string): Promise<ApiKeyRecord[]>;
}

export interface CampaignFilters {
  search?: string;
  ownerId?: string;
  publicOnly?: boolean;
}

/** A campaign together with the caller's standing in it, read in one round trip. */
export interface CampaignWithStanding {
  campaign: Campaign;
  roles: string[];
}

export interface CampaignRepository {
  insert(campaign: Campaign): Promise<void>;
  get(id: string): Promise<Campaign | null>;
  getWithStanding(id: string, userId: string): Promise<CampaignWithStanding | null>;
  listVisibleTo(userId: string, filters: CampaignFilters, page: PageRequest): Promise<Listing<Campaign>>;
  update(id: string, changes: CampaignChanges, updatedAt: string): Promise<Campaign | null>;
  transferOwnership(id: string, newOwnerId: string, updatedAt: string): Promise<void>;
  delete(id: string): Promise<boolean>;
  counts(id: string): Promise<Record<StatKind, number>>;
}

export interface Membership {
  campaign_id: string;
  user_id: string;
  roles: string[];
  created_at: string;
}

export interface MemberRepository {
  upsert(member: Membership): Promise<Membership>;
  remove(campaignId: string, userId: string): Promise<boolean>;
  get(campaignId: string, userId: string): Promise<Membership | null>;
  list(campaignId: string): Promise<Membership[]>;
}

export interface Speaker {
  id: string;
  campaign_id: string;
  name: string;
  handle: string | null;
  user_id: string | null;
  roles: string[];
  created_at: string;
}

export interface SpeakerRepository {
  insert(speaker: Speaker): Promise<Speaker>;
  list(campaignId: string): Promise<Speaker[]>;
}

export interface FieldDefinition extends FieldDefinitionDraft {
  id: string;
  campaign_id: string;
  created_at: string;
}

export interface CampaignSettingsRepository {
  putCharacterArc(campaignId: string, settings: CharacterArcSettings, at: string): Promise<void>;
  getCharacterArc(campaignId: string): Promise<CharacterArcSettings | null>;
  insertFieldDefinitions(definitions: FieldDefinition[]): Promise<void>;
  listFieldDefinitions(campaignId: string): Promise<FieldDefinition[]>;
}

export interface Repositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  campaigns: CampaignRepository;
  members: MemberRepository;
  speakers: SpeakerRepository;
  settings: CampaignSettingsRepository;
}

export interface StoreHealth {
  backend: string;
  latency_ms: number;
  migrations: { applied: number; latest: string | null };
}

export interface RecordStore extends Repositories {
  readonly backend: string;
  /** Runs `work` atomically: every write inside commits together or not at all. */
  withTransaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
