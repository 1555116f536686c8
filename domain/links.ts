// Links between records: what may point at what, and how a link is labelled.
import { aliasKey, normalizeAlias } from "./aliases.ts";

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

/** A link's alias is its label: normalized, and the target's name when none is given. */
export const linkAlias = (alias: string | null | undefined, targetName: string): string => normalizeAlias(alias ?? "") || normalizeAlias(targetName);
export const linkAliasKey = (alias: string): string => aliasKey(alias);

/** Wikilink targets resolve to characters first, then factions, locations and items. */
export const RESOLUTION_ORDER: readonly LinkToType[] = ["Character", "Faction", "Location", "Item"];

/** A bulk edit of a campaign's wikilinks to one target, as a background task carries it. */
export interface MaintenanceRequest {
  operation: "add" | "remove" | "update";
  campaign_id: string;
  target_id: string;
  target_type?: LinkToType;
  alias?: string;
  new_alias?: string;
  new_target_id?: string;
}
