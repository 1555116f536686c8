// Characters: the campaign's people (PCs, NPCs, others).
import type { CampaignRecord } from "./campaign.ts";
import { aliasKey } from "./aliases.ts";

export const CHARACTER_TYPES = ["PC", "NPC", "Other"] as const;
export type CharacterType = (typeof CHARACTER_TYPES)[number];

export interface Character extends CampaignRecord {
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
}

/** What list search matches for a character: name, aliases, player and type. */
export const characterSearchText = (c: Pick<Character, "character_name" | "character_aliases" | "player_name" | "player_handle" | "type">): string =>
  [c.character_name, ...c.character_aliases, c.player_name ?? "", c.player_handle ?? "", c.type].filter(Boolean).join(" ");

/** A character may not be named exactly like the speaker (player) it is linked to. */
export const nameClashesWithSpeaker = (characterName: string, speakerName: string | null | undefined): boolean =>
  Boolean(speakerName) && aliasKey(characterName) === aliasKey(speakerName!);
