// What the application needs from a record store. No SQL or driver types cross this line.
// Shared shapes and the whole store here; each kind's repositories in records/<kind>.ts (re-exported).
import type { Handout } from "../domain/sessions.ts";
import type { BeatRepository } from "./records/beats.ts";
import type { CampaignRepository, CampaignSettingsRepository, MemberRepository } from "./records/campaigns.ts";
import type { CharacterRepository } from "./records/characters.ts";
import type { EntityRepository } from "./records/entities.ts";
import type { ApiKeyRepository, UserRepository } from "./records/identity.ts";
import type { FolderRepository, JournalRepository } from "./records/journals.ts";
import type { LinkRepository, LookupRepository, TaskRepository } from "./records/links.ts";
import type { MomentRepository } from "./records/moments.ts";
import type { OAuthRepository, RateLimitStore } from "./records/oauth.ts";
import type { OwnerLookup } from "./records/owners.ts";
import type { QuestRepository } from "./records/quests.ts";
import type { RecapRepository } from "./records/recaps.ts";
import type { SearchIndex } from "./records/search.ts";
import type { ArtifactRepository, SessionRepository, TranscriptRepository } from "./records/sessions.ts";
import type { SpeakerRepository } from "./records/speakers.ts";

export type * from "./records/identity.ts";
export type * from "./records/campaigns.ts";
export type * from "./records/speakers.ts";
export type * from "./records/characters.ts";
export type * from "./records/entities.ts";
export type * from "./records/links.ts";
export type * from "./records/search.ts";
export type * from "./records/sessions.ts";
export type * from "./records/quests.ts";
export type * from "./records/journals.ts";
export type * from "./records/beats.ts";
export type * from "./records/moments.ts";
export type * from "./records/recaps.ts";
export type * from "./records/owners.ts";
export type * from "./records/oauth.ts";

/**
 * `lock: true` reads the row for update: inside a transaction, every other writer of the row
 * waits until this one ends. A use case that reads, changes and writes a record back reads it so,
 * first thing in its transaction, so concurrent changes never overwrite each other and updates
 * and deletes of one record take their locks in the same order.
 */
export interface ReadOptions {
  lock?: boolean;
}

export interface Listing<T> {
  rows: T[];
  total: number;
}

export interface Repositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  campaigns: CampaignRepository;
  members: MemberRepository;
  speakers: SpeakerRepository;
  settings: CampaignSettingsRepository;
  characters: CharacterRepository;
  entities: EntityRepository;
  links: LinkRepository;
  lookup: LookupRepository;
  search: SearchIndex;
  tasks: TaskRepository;
  sessions: SessionRepository;
  quests: QuestRepository;
  journals: JournalRepository;
  folders: FolderRepository;
  transcripts: TranscriptRepository;
  castAnalyses: ArtifactRepository<Record<string, unknown>>;
  handouts: ArtifactRepository<Handout>;
  beats: BeatRepository;
  moments: MomentRepository;
  recaps: RecapRepository;
  owners: OwnerLookup;
  oauth: OAuthRepository;
  rateLimits: RateLimitStore;
}

export interface StoreHealth {
  backend: string;
  latency_ms: number;
  migrations: { applied: number; latest: string | null };
}

export interface RecordStore extends Repositories {
  readonly backend: string;
  /**
   * Runs `work` atomically: every write inside commits together or not at all. When `work` returns
   * a failed Result (`{ ok: false }`), its writes are rolled back and that result returned, so a
   * use case refusing half-way leaves nothing half-written. When the database
   * rolls it back over a deadlock or serialization failure, `work` runs again (a few times), so it
   * must have no effects outside the transaction; `retry: false` is for work that cannot run twice.
   */
  withTransaction<T>(work: (repos: Repositories) => Promise<T>, options?: { retry?: boolean }): Promise<T>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
