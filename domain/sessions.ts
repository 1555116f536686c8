// Sessions: play events in time, and the handouts written about them.
import type { CampaignRecord } from "./campaign.ts";

export const SESSION_TYPES = ["audioUpload", "playByPost", "chatVoice", "txtUpload", "rawNotes", "other"] as const;
export type SessionType = (typeof SESSION_TYPES)[number];

export interface Session extends CampaignRecord {
  type: SessionType;
  title: string;
  summary: string | null;
  notes: string | null;
  session_date: string;
  image: string | null;
  public: boolean;
  pbp_start_msg_url: string | null;
  pbp_end_msg_url: string | null;
}

/** A session as other records cite it, numbered from 1 in date order within its campaign. */
export interface SessionRef {
  id: string;
  number: number;
  title: string;
  session_date: string;
}

export interface Handout {
  summary: string;
  sessionOutline: string | { title: string }[];
  encounters: { title: string; bullets: string[] }[];
  characterSpotlight: { name: string; description: string; bullets: string[] }[];
  otherEntitySpotlight: { name: string; description: string }[];
  items: { name: string; description: string }[];
  valuableInformation: { info: string }[];
  partyStatusAndNextSteps: { partyStatus: { summary: string; bullets: string[] }; nextSteps: { summary: string } };
  moments: { label: string; content: string }[];
}

export interface SessionArtifact<T> {
  id: string;
  session_id: string;
  campaign_id: string;
  body: T;
  source: string;
  pdf_saved_at: string | null;
  pdf_page_count: number | null;
  created_at: string;
  updated_at: string | null;
}
