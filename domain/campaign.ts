// Campaign records and what every new campaign starts with.
import { invalidField, ok, type Result } from "./errors.ts";

/** What every record of a campaign has (the SQL tables declare the same columns once: adapters/sql/table.ts). */
export interface CampaignRecord {
  id: string;
  campaign_id: string;
  created_at: string;
  updated_at: string | null;
}

export interface Campaign {
  id: string;
  title: string;
  description: string | null;
  system: string | null;
  summary: string | null;
  language: string;
  image: string | null;
  public: boolean;
  mature: boolean;
  owner_id: string;
  /** Derived: archived_at is set. */
  archived: boolean;
  archived_at: string | null;
  created_at: string;
  updated_at: string | null;
}

/** Fields a caller may set; everything else on a campaign is system-managed. */
export interface CampaignDraft {
  title: string;
  description?: string | null;
  system?: string | null;
  summary?: string | null;
  language?: string;
  image?: string | null;
  mature?: boolean;
}

export type CampaignChanges = Partial<CampaignDraft> & { archived_at?: string | null };

/** What a PATCH may say about archiving. */
export interface ArchiveRequest {
  archived?: boolean;
  archived_at?: string | null;
}

/**
 * The archived_at a PATCH leaves (undefined: archiving untouched). `archived: true` archives now,
 * keeping the time of an earlier archive; `archived: false` or `archived_at: null` unarchives; an
 * explicit `archived_at` archives at that time (clients copying campaigns keep their history).
 * Fields that contradict each other are refused rather than guessed at.
 */
export function archiveChange(current: string | null, request: ArchiveRequest, now: string): Result<string | null | undefined> {
  const { archived, archived_at: at } = request;
  if (archived === undefined) return ok(at);
  if (at === undefined) return ok(archived ? (current ?? now) : null);
  if (archived === (at !== null)) return ok(at);
  return { ok: false, error: invalidField(["body", "archived_at"], archived ? "archived_at cannot be null when archived is true" : "archived_at must be null when archived is false", at) };
}

export const DEFAULT_LANGUAGE = "en";

export const STAT_KINDS = ["characters", "sessions", "moments", "beats", "factions", "locations", "items"] as const;
export type StatKind = (typeof STAT_KINDS)[number];

export interface CampaignStats extends Record<StatKind, number> {
  campaign_id: string;
  title: string;
  public: boolean;
  created_at: string;
}

export const emptyCounts = (): Record<StatKind, number> =>
  Object.fromEntries(STAT_KINDS.map((kind) => [kind, 0])) as Record<StatKind, number>;

/** The creator joins as owner (mirroring `owner_id`), player and game master. */
export const CREATOR_ROLES = ["owner", "player", "admin"] as const;

export const DEFAULT_GM_SPEAKER = { name: "GM", handle: null, roles: ["gm"] } as const;

export interface CharacterArcSettings {
  enabled: boolean;
  stages: string[];
  track: ("PC" | "NPC")[];
}

export const DEFAULT_CHARACTER_ARC: CharacterArcSettings = {
  enabled: true,
  stages: ["Introduction", "Motivation", "Conflict", "Turning Point", "Resolution"],
  track: ["PC"],
};

export type CompendiumKind = "character" | "faction" | "location" | "item";
export type FieldType = "text" | "number" | "select" | "boolean";

export interface FieldDefinitionDraft {
  entity_type: CompendiumKind;
  key: string;
  label: string;
  field_type: FieldType;
  options: string[];
  position: number;
}

const fields = (entity_type: CompendiumKind, specs: [string, string, FieldType, string[]?][]): FieldDefinitionDraft[] =>
  specs.map(([key, label, field_type, options], position) => ({
    entity_type,
    key,
    label,
    field_type,
    options: options ?? [],
    position,
  }));

export const DEFAULT_FIELD_DEFINITIONS: readonly FieldDefinitionDraft[] = [
  ...fields("character", [
    ["ancestry", "Ancestry", "text"],
    ["class", "Class", "text"],
    ["level", "Level", "number"],
    ["alignment", "Alignment", "text"],
    ["status", "Status", "select", ["Alive", "Dead", "Missing", "Unknown"]],
  ]),
  ...fields("faction", [
    ["leader", "Leader", "text"],
    ["goals", "Goals", "text"],
    ["disposition", "Disposition", "select", ["Ally", "Neutral", "Hostile", "Unknown"]],
  ]),
  ...fields("location", [
    ["region", "Region", "text"],
    ["population", "Population", "text"],
    ["ruler", "Ruler", "text"],
  ]),
  ...fields("item", [
    ["rarity", "Rarity", "select", ["Common", "Uncommon", "Rare", "Very Rare", "Legendary", "Artifact"]],
    ["attunement", "Requires attunement", "boolean"],
    ["holder", "Held by", "text"],
  ]),
];

/** Titles are trimmed; an all-blank title is no title. */
export const normalizeTitle = (title: string): string => title.trim();

export interface Membership {
  campaign_id: string;
  user_id: string;
  roles: string[];
  created_at: string;
}

export interface FieldDefinition extends FieldDefinitionDraft {
  id: string;
  campaign_id: string;
  created_at: string;
}
