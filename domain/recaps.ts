// Recap cards of a session: hero awards, quotes and spotlights, and the pipeline that groups them.
import type { CampaignRecord } from "./campaign.ts";

export interface RecapPipeline {
  id: string;
  campaign_id: string;
  session_id: string;
  source: string;
  recap_set_id: string;
  created_at: string;
}

/** What a client may set on a hero award besides its title and description. */
export interface HeroAwardSettings {
  character_name: string;
  player_name: string | null;
  tone_mode: string;
  award_mode: string;
  style: string;
  variant: string;
  custom_theme: Record<string, unknown> | null;
  order_index: number;
}

/** The settings of an award created without them. */
export const HERO_AWARD_DEFAULTS: HeroAwardSettings = {
  character_name: "",
  player_name: null,
  tone_mode: "default",
  award_mode: "moment",
  style: "verdant",
  variant: "square",
  custom_theme: null,
  order_index: 0,
};

export interface HeroAward extends CampaignRecord, HeroAwardSettings {
  session_id: string;
  title: string;
  description: string;
}

export interface RecapEntry extends CampaignRecord {
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
}
