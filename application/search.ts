import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { type CampaignAccess } from "./access.ts";
import type { Deps } from "./deps.ts";

export const SEARCH_BUCKETS = ["characters", "factions", "locations", "items", "sessions", "beats", "moments", "quests", "journals"] as const;
export type SearchBucket = (typeof SEARCH_BUCKETS)[number];
export const HITS_PER_BUCKET = 10;

export interface SearchResultItem {
  id: string;
  type: string;
  name: string;
  snippet: string;
  score: number;
}

/** Singular type names of each bucket, as hits report them. */
const TYPE_OF: Record<SearchBucket, string> = {
  characters: "character",
  factions: "faction",
  locations: "location",
  items: "item",
  sessions: "session",
  beats: "beat",
  moments: "moment",
  quests: "quest",
  journals: "journal",
};

/** Cross-type search: one ranked bucket per type, at most 10 hits each. */
export async function searchCampaign(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: { q: string; types?: string },
): Promise<Result<Partial<Record<SearchBucket, SearchResultItem[]>>>> {
  const campaignId = access.campaign.id;
  let buckets: SearchBucket[] = [...SEARCH_BUCKETS];
  if (query.types?.trim()) {
    const asked = query.types.split(",").map((type) => type.trim().toLowerCase()).filter(Boolean);
    const unknown = asked.filter((type) => !(SEARCH_BUCKETS as readonly string[]).includes(type));
    if (unknown.length)
      return fail("invalid", `Unknown search type: ${unknown[0]}`, [
        { type: "enum", loc: ["query", "types"], msg: `types must be a comma list of ${SEARCH_BUCKETS.join(", ")}`, input: query.types },
      ]);
    buckets = SEARCH_BUCKETS.filter((bucket) => asked.includes(bucket));
  }
  const q = query.q.trim();
  const hits = q ? await deps.records.search.search(campaignId, q, buckets, HITS_PER_BUCKET, caller.userId) : new Map();
  const result: Partial<Record<SearchBucket, SearchResultItem[]>> = {};
  for (const bucket of buckets) {
    result[bucket] = (hits.get(bucket) ?? []).map((hit: { doc_id: string; title: string; snippet: string; score: number }) => ({
      id: hit.doc_id,
      type: TYPE_OF[bucket],
      name: hit.title,
      snippet: hit.snippet,
      score: hit.score,
    }));
  }
  return ok(result);
}
