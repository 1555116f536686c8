// What the application needs from a record store: links, the record lookup wikilinks resolve through, and background tasks (link maintenance runs as one).
import type { Link, LinkFromType, LinkToType, MaintenanceRequest } from "../../domain/links.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, ReadOptions } from "../records.ts";

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

export type TaskStatus = "queued" | "running" | "succeeded" | "failed";

/** What each kind of background task carries: stored as JSON, read back as written. */
export interface TaskPayloads {
  link_maintenance: MaintenanceRequest;
}
export type TaskKind = keyof TaskPayloads;

/** A task of one kind with its payload. */
export interface TaskOf<K extends TaskKind> {
  id: string;
  campaign_id: string | null;
  kind: K;
  status: TaskStatus;
  payload: TaskPayloads[K];
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}
/** Any task: checking `kind` types its `payload`. */
export type Task = { [K in TaskKind]: TaskOf<K> }[TaskKind];
export type NewTask = { [K in TaskKind]: Pick<TaskOf<K>, "id" | "campaign_id" | "kind" | "payload" | "created_by" | "created_at"> }[TaskKind];

export interface TaskRepository {
  insert(task: NewTask): Promise<Task>;
  get(id: string): Promise<Task | null>;
  /** Takes the oldest ready task (queued, or running with an expired lease) so no other worker does. */
  claim(at: string, leaseUntil: string): Promise<Task | null>;
  finish(id: string, status: "succeeded" | "failed", result: Record<string, unknown> | null, error: string | null, at: string): Promise<void>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    links: LinkRepository;
    lookup: LookupRepository;
    tasks: TaskRepository;
  }
}
