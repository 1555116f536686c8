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

export interface HeroAward extends CampaignRecord {
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
