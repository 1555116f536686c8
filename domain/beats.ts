// Beats: the narrative structure of a campaign (major beats, minor beats, steps).
import type { CampaignRecord } from "./campaign.ts";

export const BEAT_TYPES = ["major", "minor", "step"] as const;
export type BeatType = (typeof BEAT_TYPES)[number];

export interface Beat extends CampaignRecord {
  label: string;
  type: BeatType;
  description: string | null;
  index: number;
  parent_id: string | null;
  metadata: Record<string, unknown> | null;
  game_session_ids: string[];
}

/** Only minor beats and steps hang under a parent. */
export const mayHaveParent = (type: BeatType): boolean => type !== "major";
