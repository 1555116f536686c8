// Moments: remembered scenes of a session; Key Moment cards among them.
import type { CampaignRecord } from "./campaign.ts";

export interface Moment extends CampaignRecord {
  session_id: string | null;
  label: string | null;
  content: string | null;
  image: string | null;
  index: number | null;
  categories: string[];
  kind: string;
  metadata: Record<string, unknown> | null;
}

export const KEY_MOMENT_CATEGORY = "key-moment";

/** Categories: trimmed, lower-cased, no blanks, no repeats, first order kept. */
export const normalizeCategories = (categories: readonly string[]): string[] => [...new Set(categories.map((c) => c.trim().toLowerCase()).filter(Boolean))];
