// What the application needs from a record store. No SQL or driver types cross this line.
import type { Campaign, CampaignChanges, CharacterArcSettings, FieldDefinitionDraft, StatKind } from "../domain/campaign.ts";
import type { Character, CharacterType, Entity, EntityKind, Link, LinkFromType, LinkToType } from "../domain/compendium.ts";
import type { User, UserRole } from "../domain/identity.ts";
import type { JournalStatus, PermissionLevel } from "../domain/journals.ts";
import type { QuestCategory, QuestState, QuestStatus } from "../domain/quests.ts";
import type { Session, SessionRef, SessionType } from "../domain/sessions.ts";
import type { Beat, Handout, Moment } from "../domain/story.ts";
import type { PageRequest } from "../domain/pagination.ts";

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
  findByEmail(email: string, options?: ReadOptions): Promise<User | null>;
  count(): Promise<number>;
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
  /**
   * The key and, in the same round trip, the caller's standing in one campaign (null when there is
   * no such campaign): most requests name a campaign, and this halves their database round trips.
   */
  findActiveByHashWithCampaign(hash: string, campaignId: string): Promise<{ key: ActiveKey; campaign: CampaignWithStanding | null } | null>;
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

export interface Membership {
  campaign_id: string;
  user_id: string;
  roles: string[];
  created_at: string;
}

export interface MemberRepository {
  upsert(member: Membership): Promise<Membership>;
  remove(campaignId: string, userId: string): Promise<boolean>;
  get(campaignId: string, userId: string, options?: ReadOptions): Promise<Membership | null>;
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
  /** Returns null when the campaign already has a speaker of that name. */
  insert(speaker: Speaker): Promise<Speaker | null>;
  get(id: string): Promise<Speaker | null>;
  list(campaignId: string): Promise<Speaker[]>;
}

export interface CharacterFilters {
  search?: string;
  type?: CharacterType;
  approvedOnly: boolean;
}

export interface CharacterRepository {
  insert(character: Character): Promise<void>;
  /** Writes every field of an existing character. */
  replace(character: Character): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Character | null>;
  list(campaignId: string, filters: CharacterFilters, page: PageRequest): Promise<Listing<Character>>;
  delete(id: string): Promise<boolean>;
}

export interface EntityRepository {
  insert(entity: Entity): Promise<void>;
  replace(entity: Entity): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Entity | null>;
  list(campaignId: string, kind: EntityKind, filters: { search?: string }, page: PageRequest): Promise<Listing<Entity>>;
  /** Parent of each location on the way up from `id` (for cycle checks). */
  ancestry(id: string): Promise<Map<string, string | null>>;
  delete(id: string): Promise<boolean>;
}

export interface LinkFilters {
  to_id?: string;
  from_id?: string;
  to_type?: string;
  from_type?: string;
  alias?: string;
}

export type LinkOrigin = "api" | "wikilink";

export interface LinkRepository {
  /** Insert, or replace the link with the same source and alias key. */
  upsert(link: Link & { alias_key: string; origin: LinkOrigin }): Promise<Link>;
  get(id: string, options?: ReadOptions): Promise<Link | null>;
  /**
   * Links of a campaign. With a viewer, links from or to a journal entry the viewer may not see are
   * left out (the journal permission rule, in the query, so totals and pages agree); null sees all.
   */
  list(campaignId: string, filters: LinkFilters, page: PageRequest, viewerId: string | null): Promise<Listing<Link>>;
  /** Returns null when another link of the same source already has that alias. */
  updateAlias(id: string, alias: string, aliasKey: string): Promise<Link | null | "conflict">;
  delete(id: string): Promise<boolean>;
  /** Removes every link from or to a record. */
  deleteTouching(recordId: string): Promise<number>;
  /** Drops the wikilink-made links of a source whose alias keys are not in `keep`. */
  pruneWikilinks(fromType: LinkFromType, fromId: string, keep: string[]): Promise<number>;
  listTo(campaignId: string, toId: string): Promise<Link[]>;
  retarget(linkIds: string[], toType: LinkToType, toId: string): Promise<void>;
}

/** A record any link may point at or come from, as far as links need to know it. */
export interface RecordRef {
  type: LinkFromType | LinkToType;
  id: string;
  campaign_id: string;
  name: string;
  aliases?: string[];
}

/** A text field that may hold wikilinks, and the link source it syncs as. */
export interface TextSource {
  sourceType: LinkFromType;
  sourceId: string;
  /** Table-level address of the field, for writing it back. */
  field: string;
  text: string;
}

export interface LookupRepository {
  /** Any record by link type and id, with its campaign. */
  findRecord(type: string, id: string): Promise<RecordRef | null>;
  /** Characters, factions, locations and items of a campaign answering to one of these alias keys. */
  resolveNames(campaignId: string, keys: string[]): Promise<RecordRef[]>;
  /** Every wikilink-bearing text of a campaign containing `needle` (case-insensitive). */
  textsMentioning(campaignId: string, needle: string, options?: ReadOptions): Promise<TextSource[]>;
  writeText(source: TextSource, text: string, at: string): Promise<void>;
}

export interface SearchDocument {
  campaign_id: string;
  /** Journal entries only: who may see the hit (the journal permission rule, applied in the query). */
  visibility?: { author_id: string; is_public: boolean; shared_with: string[] };
  doc_type: string;
  doc_id: string;
  title: string;
  body: string;
  facets?: Record<string, unknown>;
}

export interface SearchHit {
  doc_type: string;
  doc_id: string;
  title: string;
  snippet: string;
  score: number;
}

export interface SearchIndex {
  upsert(document: SearchDocument, at: string): Promise<void>;
  remove(docType: string, docId: string): Promise<void>;
  removeByFacet(docType: string, facet: string, value: string): Promise<void>;
  /** Ranked hits per document type, at most `perType` each; full text first, trigram similarity for misspellings. */
  search(campaignId: string, query: string, docTypes: string[], perType: number, viewerId: string): Promise<Map<string, SearchHit[]>>;
}

export type TaskStatus = "queued" | "running" | "succeeded" | "failed";

export interface Task {
  id: string;
  campaign_id: string | null;
  kind: string;
  status: TaskStatus;
  payload: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface TaskRepository {
  insert(task: Pick<Task, "id" | "campaign_id" | "kind" | "payload" | "created_by" | "created_at">): Promise<Task>;
  get(id: string): Promise<Task | null>;
  /** Takes the oldest ready task (queued, or running with an expired lease) so no other worker does. */
  claim(at: string, leaseUntil: string): Promise<Task | null>;
  finish(id: string, status: "succeeded" | "failed", result: Record<string, unknown> | null, error: string | null, at: string): Promise<void>;
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

export interface SessionListFilters {
  type?: SessionType;
  publicOnly?: boolean;
}

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  replace(session: Session): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Session | null>;
  /** Newest first, with each session's number (date order, from 1). */
  list(campaignId: string, filters: SessionListFilters, page: PageRequest): Promise<Listing<Session & { index: number }>>;
  numberOf(session: Session): Promise<number>;
  /** The sessions with these ids, numbered in date order within their campaign. */
  refs(campaignId: string, ids: string[]): Promise<Map<string, SessionRef>>;
  delete(id: string): Promise<boolean>;
}

export interface Quest extends QuestState {
  id: string;
  campaign_id: string;
  order_index: number;
  created_at: string;
  updated_at: string | null;
}

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

export interface JournalEntry {
  id: string;
  campaign_id: string;
  title: string;
  summary: string | null;
  content: string;
  content_rich: unknown;
  content_metadata: unknown;
  tags: string[];
  token_count: number;
  cover_image: string | null;
  is_pinned: boolean;
  is_public: boolean;
  status: JournalStatus;
  published_at: string | null;
  archived_at: string | null;
  folder_id: string | null;
  author_id: string;
  last_edited_by_id: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface JournalShare {
  user_id: string;
  level: PermissionLevel;
}

export interface JournalChunk {
  position: number;
  text: string;
  token_count: number;
}

export interface JournalRepository {
  insert(entry: JournalEntry): Promise<void>;
  replace(entry: JournalEntry): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<JournalEntry | null>;
  /** Entries the viewer may see (public, authored, or shared): the journal permission rule in the query. */
  listVisible(campaignId: string, viewerId: string, filters: { folderId?: string }, page: PageRequest): Promise<Listing<JournalEntry>>;
  delete(id: string): Promise<boolean>;
  shares(entryId: string): Promise<JournalShare[]>;
  putShare(entryId: string, share: JournalShare, at: string): Promise<void>;
  removeShare(entryId: string, userId: string): Promise<void>;
  /** Tokens of every entry of the campaign except one (the one being saved). */
  campaignTokens(campaignId: string, exceptEntryId: string | null): Promise<number>;
  replaceChunks(entryId: string, campaignId: string, chunks: JournalChunk[]): Promise<void>;
  chunks(entryId: string): Promise<JournalChunk[]>;
  moveFolderEntriesToRoot(folderId: string): Promise<number>;
}

export interface JournalFolder {
  id: string;
  campaign_id: string;
  parent_id: string | null;
  name: string;
  path: string;
  description: string | null;
  position: number;
  metadata: unknown;
  created_at: string;
  updated_at: string | null;
}

export interface FolderRepository {
  /** Returns false when the campaign already has a folder at that path. */
  insert(folder: JournalFolder): Promise<boolean>;
  replace(folder: JournalFolder): Promise<boolean>;
  get(id: string, options?: ReadOptions): Promise<JournalFolder | null>;
  list(campaignId: string, parentId?: string): Promise<JournalFolder[]>;
  /** Parent of each folder on the way up from `id`. */
  ancestry(id: string): Promise<Map<string, string | null>>;
  reparentChildren(folderId: string, newParentId: string | null, at: string): Promise<number>;
  delete(id: string): Promise<boolean>;
}

export interface TranscriptRecord {
  session_id: string;
  campaign_id: string;
  version: number;
  source_type: string;
  speakers: string[];
  utterance_count: number;
  char_count: number;
  tokens: number;
  created_at: string;
}

export interface StoredUtterance {
  position: number;
  speaker_label: string;
  text: string;
  start_s: number;
  end_s: number;
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

export interface SessionArtifact<T> {
  id: string;
  session_id: string;
  campaign_id: string;
  body: T;
  source: string;
  pdf_saved_at: string | null;
  pdf_page_count: number | null;
  created_at: string;
  updated_at: string | null;
}

export interface ArtifactRepository<T> {
  put(artifact: SessionArtifact<T>): Promise<SessionArtifact<T>>;
  get(sessionId: string): Promise<SessionArtifact<T> | null>;
  delete(sessionId: string): Promise<void>;
}

export interface BeatRepository {
  insert(beat: Beat): Promise<void>;
  replace(beat: Beat): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Beat | null>;
  listByCampaign(campaignId: string, page: PageRequest): Promise<Listing<Beat>>;
  listBySession(sessionId: string, page: PageRequest): Promise<Listing<Beat>>;
  allBySession(sessionId: string): Promise<Beat[]>;
  ancestry(id: string): Promise<Map<string, string | null>>;
  /** Children lose their parent. */
  orphanChildren(id: string, at: string): Promise<number>;
  /** Beats lose a deleted session. */
  forgetSession(sessionId: string): Promise<void>;
  delete(id: string): Promise<boolean>;
}

export interface MomentFilters {
  campaignId?: string;
  sessionId?: string;
  sessionIds?: string[];
  search?: string;
  categories?: string[];
  kind?: string;
  /** Moments linked (through their links) to any of these records. */
  linkedTo?: string[];
}

export interface MomentRepository {
  insert(moment: Moment): Promise<void>;
  replace(moment: Moment): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Moment | null>;
  list(filters: MomentFilters, page: PageRequest): Promise<Listing<Moment>>;
  delete(id: string): Promise<boolean>;
}

export interface RecapPipeline {
  id: string;
  campaign_id: string;
  session_id: string;
  source: string;
  recap_set_id: string;
  created_at: string;
}

export interface HeroAward {
  id: string;
  campaign_id: string;
  session_id: string;
  title: string;
  description: string;
  character_name: string;
  player_name: string | null;
  tone_mode: string;
  award_mode: string;
  style: string;
  variant: string;
  custom_theme: Record<string, unknown> | null;
  order_index: number;
  created_at: string;
  updated_at: string | null;
}

export interface RecapEntry {
  id: string;
  campaign_id: string;
  session_id: string;
  entry_type: "quote" | "spotlight";
  pipeline_id: string | null;
  recap_set_id: string | null;
  text: string | null;
  speaker: string | null;
  character_name: string | null;
  context: string | null;
  title: string | null;
  description: string | null;
  player_name: string | null;
  style: string | null;
  custom_theme: Record<string, unknown> | null;
  order_index: number;
  source_moment_id: string | null;
  created_at: string;
  updated_at: string | null;
}

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
