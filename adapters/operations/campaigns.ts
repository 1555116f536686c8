import { Type } from "@sinclair/typebox";
import * as campaigns from "../../application/campaigns.ts";
import { defineOperations } from "./operation.ts";
import * as S from "./schemas.ts";

const CAMPAIGN_DOC =
  "A campaign is the top-level container: characters, sessions, story beats, quests, journals and everything else belong to exactly one. The legacy `/v1/worlds` routes and the field name `world_id` mean the same thing.";

export const campaignOperations = defineOperations([
  {
    id: "listCampaigns",
    summary: "List campaigns",
    description: `Lists the campaigns you own or are a member of, newest first (paginated). With public_only=true, lists public campaigns instead. Archived campaigns are listed too unless archived=false (archived=true lists only them). ${CAMPAIGN_DOC}`,
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/campaigns", status: 200, aliases: ["/v1/worlds"] },
    mcp: { name: "list_campaigns", title: "List campaigns", readOnly: true },
    input: { query: Type.Composite([S.CampaignListQuery, S.WithLinksQuery]) },
    output: S.PageOf(S.Campaign, "CampaignPage"),
    run: ({ deps, caller }, { query }) =>
      campaigns.listCampaigns(deps, caller, {
        page: query.page,
        size: query.size,
        search: query.search,
        ownerId: query.owner_id,
        publicOnly: query.public_only,
        archived: query.archived,
        withLinks: query.with_links,
      }),
  },
  {
    id: "createCampaign",
    summary: "Create a campaign",
    description:
      "Creates a campaign owned by you. You join it as player and game master (admin); a default GM speaker, Character Arc defaults and default compendium field definitions are created with it.",
    tag: "Campaigns",
    auth: "user",
    http: { method: "POST", path: "/v1/campaigns", status: 201, aliases: ["/v1/worlds"] },
    mcp: { name: "create_campaign", title: "Create a campaign", readOnly: false, destructive: false, idempotent: false },
    input: { body: S.CampaignCreate },
    output: S.Campaign,
    run: ({ deps, caller }, { body }) => campaigns.createCampaign(deps, caller, body as S.CampaignCreateBody),
  },
  {
    id: "getCampaign",
    summary: "Get a campaign",
    description: `Reads one campaign you can access. ${CAMPAIGN_DOC}`,
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}", status: 200, aliases: ["/v1/worlds/{world_id}"] },
    mcp: { name: "get_campaign", title: "Get a campaign", readOnly: true },
    input: { path: S.CampaignIdPath, query: S.WithLinksQuery },
    output: S.Campaign,
    run: ({ deps, caller }, { path, query }) => campaigns.getCampaign(deps, caller, path.campaign_id, query.with_links ?? false),
  },
  {
    id: "updateCampaign",
    summary: "Update a campaign",
    description:
      "Changes a campaign's title, description, system, summary, language, image or mature flag, or archives it (archived: true sets archived_at; false clears it). Omitted fields stay as they are. Needs owner or game-master (admin) access. The summary may hold [[wikilinks]]: read with with_links=true before editing it.",
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "manage",
    http: { method: "PATCH", path: "/v1/campaigns/{campaign_id}", status: 200, aliases: ["/v1/worlds/{world_id}"] },
    mcp: { name: "update_campaign", title: "Update a campaign", readOnly: false, destructive: false, idempotent: true },
    input: { path: S.CampaignIdPath, body: S.CampaignUpdate },
    output: S.Campaign,
    run: ({ deps, caller }, { path, body }) => campaigns.updateCampaign(deps, caller, path.campaign_id, body),
  },
  {
    id: "deleteCampaign",
    summary: "Delete a campaign",
    description: "Permanently deletes a campaign and everything in it. Only the owner may do this. Not offered as an MCP tool.",
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "owner",
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}", status: 204 },
    input: { path: S.CampaignIdPath },
    run: ({ deps, caller }, { path }) => campaigns.deleteCampaign(deps, caller, path.campaign_id),
  },
  {
    id: "getCampaignStats",
    summary: "Campaign statistics",
    description: "Counts of characters, sessions, moments, beats, factions, locations and items in a campaign.",
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/stats", status: 200, aliases: ["/v1/worlds/{world_id}/stats"] },
    mcp: { name: "get_campaign_stats", title: "Get campaign statistics", readOnly: true },
    input: { path: S.CampaignIdPath },
    output: S.CampaignStats,
    run: ({ deps, caller }, { path }) => campaigns.campaignStats(deps, caller, path.campaign_id),
  },
]);
