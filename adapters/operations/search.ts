// Campaign search: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import { searchCampaign } from "../../application/search.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";
import { CampaignIdPath, Id } from "./common.ts";

export const SearchQuery = Type.Object({
  q: Type.String({ maxLength: 200, description: "What to look for; misspellings are tolerated" }),
  types: Type.Optional(Type.String({ maxLength: 200, description: "Comma list of buckets: characters, factions, locations, items, sessions, beats, moments, quests, journals" })),
});

const SearchHit = Type.Object({ id: Id(), type: Type.String(), name: Type.String(), snippet: Type.String({ description: "HTML: up to 24 words around the first match, matching words wrapped in <mark>, the record's own text escaped" }), score: Type.Number() });
export const SearchResult = Type.Object(
  Object.fromEntries(
    ["characters", "factions", "locations", "items", "sessions", "beats", "moments", "quests", "journals"].map((bucket) => [bucket, Type.Optional(Type.Array(SearchHit, { maxItems: 10 }))]),
  ),
  { title: "SearchResult" },
);

export const searchOperations = defineOperations({ publishedAt: 60 }, [
  defineOperation({
    id: "searchCampaign",
    summary: "Search a campaign",
    description:
      "Searches every kind of record at once. Answers one bucket per type (characters, factions, locations, items, sessions, beats, moments, quests, journals), each at most 10 ranked hits with a snippet: up to 24 words of HTML around the first match, matching words in <mark>, the record's text escaped. Misspelled names still match.",
    tag: "Campaigns",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/search", status: 200 },
    input: { path: CampaignIdPath, query: SearchQuery },
    output: SearchResult,
    run: ({ deps, caller, access }, { path, query }) => searchCampaign(deps, caller, access, { q: query.q, types: query.types }),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    search: typeof searchOperations;
  }
}
