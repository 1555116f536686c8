// Characters, factions, locations and items: the campaign's compendium, and the links between records.
import { aliasKey, normalizeAlias } from "./aliases.ts";

export const CHARACTER_TYPES = ["PC", "NPC", "Other"] as const;
export type CharacterType = (typeof CHARACTER_TYPES)[number];

export const ENTITY_KINDS = ["faction", "location", "item"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export interface Character {
  id: string;
  campaign_id: string;
  character_name: string;
  character_aliases: string[];
  player_name: string | null;
  player_handle: string | null;
  speaker_id: string | null;
  description: string | null;
  backstory: string | null;
  type: CharacterType;
  image: string | null;
  tcg_image: string | null;
  approved: boolean;
  merge: boolean;
  created_at: string;
  updated_at: string | null;
}

export interface Entity {
  id: string;
  campaign_id: string;
  kind: EntityKind;
  name: string;
  aliases: string[];
  description: string | null;
  type: string | null;
  image: string | null;
  tcg_image: string | null;
  parent_id: string | null;
  merge: boolean;
  created_at: string;
  updated_at: string | null;
}

/** What list search matches for a character: name, aliases, player and type. */
export const characterSearchText = (c: Pick<Character, "character_name" | "character_aliases" | "player_name" | "player_handle" | "type">): string =>
  [c.character_name, ...c.character_aliases, c.player_name ?? "", c.player_handle ?? "", c.type].filter(Boolean).join(" ");

export const entitySearchText = (e: Pick<Entity, "name" | "aliases" | "type">): string => [e.name, ...e.aliases, e.type ?? ""].filter(Boolean).join(" ");

// Links -------------------------------------------------------------------------------------------

export const LINK_FROM_TYPES = ["Character", "Faction", "Location", "Item", "Moment", "GameSession", "Beat", "Backstory", "Journal", "World"] as const;
export const LINK_TO_TYPES = ["Character", "Faction", "Location", "Item", "Moment"] as const;
export type LinkFromType = (typeof LINK_FROM_TYPES)[number];
export type LinkToType = (typeof LINK_TO_TYPES)[number];

export interface Link {
  id: string;
  campaign_id: string;
  from_id: string;
  from_type: LinkFromType;
  to_id: string;
  to_type: LinkToType;
  alias: string;
  created_at: string;
}

export const ENTITY_LINK_TYPE: Record<EntityKind, LinkToType> = { faction: "Faction", location: "Location", item: "Item" };

/** A link's alias is its label: normalized, and the target's name when none is given. */
export const linkAlias = (alias: string | null | undefined, targetName: string): string => normalizeAlias(alias ?? "") || normalizeAlias(targetName);
export const linkAliasKey = (alias: string): string => aliasKey(alias);

/** Wikilink targets resolve to characters first, then factions, locations and items. */
export const RESOLUTION_ORDER: readonly LinkToType[] = ["Character", "Faction", "Location", "Item"];

// Location hierarchy ------------------------------------------------------------------------------

/**
 * Whether giving `id` the parent `newParent` would make a location its own ancestor.
 * `parentOf` answers for every location on the way up (undefined = no parent).
 */
export function wouldCreateCycle(id: string, newParent: string | null, parentOf: (id: string) => string | null | undefined): boolean {
  const seen = new Set<string>();
  for (let current: string | null | undefined = newParent; current; current = parentOf(current)) {
    if (current === id) return true;
    if (seen.has(current)) return true; // an existing loop: refuse rather than spin
    seen.add(current);
  }
  return false;
}

/** A character may not be named exactly like the speaker (player) it is linked to. */
export const nameClashesWithSpeaker = (characterName: string, speakerName: string | null | undefined): boolean =>
  Boolean(speakerName) && aliasKey(characterName) === aliasKey(speakerName!);
