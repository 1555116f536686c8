// Factions, locations and items: the rest of the campaign's compendium.
import type { CampaignRecord } from "./campaign.ts";
import type { LinkToType } from "./links.ts";

export const ENTITY_KINDS = ["faction", "location", "item"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export interface Entity extends CampaignRecord {
  kind: EntityKind;
  name: string;
  aliases: string[];
  description: string | null;
  type: string | null;
  image: string | null;
  tcg_image: string | null;
  parent_id: string | null;
  merge: boolean;
}

export const entitySearchText = (e: Pick<Entity, "name" | "aliases" | "type">): string => [e.name, ...e.aliases, e.type ?? ""].filter(Boolean).join(" ");

export const ENTITY_LINK_TYPE: Record<EntityKind, LinkToType> = { faction: "Faction", location: "Location", item: "Item" };
