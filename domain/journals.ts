// Journal entries: who may see and do what, folder paths, and token counts.
import type { CampaignRecord } from "./campaign.ts";

export const PERMISSION_LEVELS = ["view", "comment", "edit", "manage"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];
export const JOURNAL_STATUSES = ["draft", "published", "archived"] as const;
export type JournalStatus = (typeof JOURNAL_STATUSES)[number];

export const levelRank = (level: PermissionLevel): number => PERMISSION_LEVELS.indexOf(level);
export const atLeast = (held: PermissionLevel | null, needed: PermissionLevel): boolean => held !== null && levelRank(held) >= levelRank(needed);

const strongest = (levels: (PermissionLevel | null | undefined)[]): PermissionLevel | null =>
  levels.reduce<PermissionLevel | null>((best, level) => (level && (best === null || levelRank(level) > levelRank(best)) ? level : best), null);

export interface JournalAccessFacts {
  authorId: string;
  isPublic: boolean;
  /** Explicit shares, by user id. */
  shares: ReadonlyMap<string, PermissionLevel>;
}

/**
 * The caller's level on an entry, or null when they may not see it: the author manages; a share
 * gives its level; a public entry can be viewed by anyone in the campaign. `fullAccess` is the
 * game master's Ask override (gm_permissions): it reads everything.
 */
export function journalPermission(facts: JournalAccessFacts, userId: string, fullAccess = false): PermissionLevel | null {
  if (facts.authorId === userId) return "manage";
  return strongest([facts.shares.get(userId), facts.isPublic ? "view" : null, fullAccess ? "view" : null]);
}

/** Trimmed segments, no leading, trailing or doubled slashes. */
export const normalizeFolderPath = (path: string): string =>
  path
    .split("/")
    .map((segment) => segment.trim())
    .filter(Boolean)
    .join("/");

export const isDescendantPath = (path: string, ancestor: string): boolean => path.startsWith(`${ancestor}/`);

export const ENTRY_TOKEN_LIMIT = 50_000;
export const CAMPAIGN_TOKEN_LIMIT = 1_000_000;
export const REQUEST_CHARACTER_LIMIT = 2_000_000;

/**
 * A quick size estimate, four characters a token (code points, rounded up), for cutting journal
 * entries into chunks (domain code has no tokenizer). Limits, stats and Ask budgets count with the
 * real tokenizer (o200k_base, the TokenCounter port).
 */
export const estimateTokens = (text: string | null | undefined): number => (text ? Math.ceil([...text].length / 4) : 0);

/**
 * Status moves: any to any. Moving into published or archived stamps the time unless the request
 * gives one; staying there keeps the old stamp.
 */
export function statusTimestamps(
  status: JournalStatus | undefined,
  given: { published_at?: string | null; archived_at?: string | null },
  current: { status: JournalStatus | null; published_at: string | null; archived_at: string | null },
  now: string,
): { published_at: string | null; archived_at: string | null } {
  const next = {
    published_at: given.published_at !== undefined ? given.published_at : current.published_at,
    archived_at: given.archived_at !== undefined ? given.archived_at : current.archived_at,
  };
  const entering = (target: JournalStatus, stamp: string | null) => status === target && (current.status !== target || stamp === null);
  if (given.published_at === undefined && entering("published", current.published_at)) next.published_at = now;
  if (given.archived_at === undefined && entering("archived", current.archived_at)) next.archived_at = now;
  return next;
}

export interface JournalEntry extends CampaignRecord {
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
}

/** An entry as lists show it: everything but the content, which a list never answers. */
export type JournalListEntry = Omit<JournalEntry, "content" | "content_rich" | "content_metadata">;

export interface JournalShare {
  user_id: string;
  level: PermissionLevel;
}

export interface JournalChunk {
  position: number;
  text: string;
  token_count: number;
}

export interface JournalFolder extends CampaignRecord {
  parent_id: string | null;
  name: string;
  path: string;
  description: string | null;
  position: number;
  metadata: unknown;
}
