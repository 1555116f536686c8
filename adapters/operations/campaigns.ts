// Campaigns, their stats and members: wire schemas and operations.
import { Type, type Static } from "@sinclair/typebox";
import * as campaigns from "../../application/campaigns.ts";
import * as members from "../../application/members.ts";
import { MEMBER_ROLES } from "../../domain/access.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";
import { CampaignIdPath, FIRST_PARTY, Id, ImageUrl, Nullable, PageOf, PageQuery, Timestamp, WithLinksQuery, Defaulted } from "./common.ts";

export const Campaign = Type.Object(
  {
    id: Id(),
    title: Type.String(),
    description: Nullable(Type.String()),
    system: Nullable(Type.String({ description: "Game system label" })),
    summary: Nullable(Type.String()),
    language: Type.String(),
    image: Nullable(Type.String()),
    public: Type.Boolean({ description: "Read-only" }),
    mature: Type.Boolean(),
    owner_id: Id(),
    archived: Type.Boolean({ description: "Archived campaigns stay readable and writable; lists can filter on it" }),
    archived_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Campaign" },
);

const campaignFields = {
  description: Nullable(Type.String({ maxLength: 20_000 })),
  system: Nullable(Type.String({ maxLength: 200, description: "Game system label, e.g. D&D 5e" })),
  summary: Nullable(Type.String({ maxLength: 50_000 })),
  language: Type.String({ minLength: 2, maxLength: 35, description: "BCP 47 language tag, default en" }),
  image: Nullable(ImageUrl),
  mature: Type.Boolean(),
};

export const CampaignCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), ...Type.Partial(Type.Object(campaignFields)).properties },
  { title: "CampaignCreate" },
);

export type CampaignCreateBody = Static<typeof CampaignCreate>;

export const CampaignUpdate = Type.Partial(
  Type.Object({
    title: Type.String({ minLength: 1, maxLength: 200 }),
    ...campaignFields,
    archived: Type.Boolean({ description: "true archives the campaign now (an archived one keeps its archived_at); false unarchives it" }),
    archived_at: Nullable({ ...Timestamp, description: "Archive at this time; null unarchives. Must agree with archived when both are sent" }),
  }),
  { title: "CampaignUpdate" },
);

export const CampaignListQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of title or description" })),
  owner_id: Type.Optional(Id("Only campaigns owned by this user")),
  public_only: Defaulted(Type.Boolean({ default: false, description: "List public campaigns instead of your own" })),
  archived: Type.Optional(Type.Boolean({ description: "true: only archived campaigns; false: only active ones; absent: both" })),
});

const count = Type.Integer({ minimum: 0 });
export const CampaignStats = Type.Object(
  {
    campaign_id: Id(),
    title: Type.String(),
    public: Type.Boolean(),
    created_at: Timestamp,
    characters: count,
    sessions: count,
    moments: count,
    beats: count,
    factions: count,
    locations: count,
    items: count,
  },
  { title: "CampaignStats" },
);

export const MemberRole = Type.Union(MEMBER_ROLES.map((role) => Type.Literal(role)));

export const MemberCreate = Type.Object({ user_id: Id(), role: MemberRole });

export const Member = Type.Object(
  { campaign_id: Id(), user_id: Id(), role: MemberRole, roles: Type.Array(Type.String()), created_at: Timestamp },
  { title: "Member" },
);

const CAMPAIGN_DOC =
  "A campaign is the top-level container: characters, sessions, story beats, quests, journals and everything else belong to exactly one. The legacy `/v1/worlds` routes and the field name `world_id` mean the same thing.";

export const campaignOperations = defineOperations({ publishedAt: 20 }, [
  defineOperation({
    id: "listCampaigns",
    summary: "List campaigns",
    description: `Lists the campaigns you own or are a member of, newest first (paginated). With public_only=true, lists public campaigns instead. Archived campaigns are listed too unless archived=false (archived=true lists only them). ${CAMPAIGN_DOC}`,
    tag: "Campaigns",
    access: { auth: "user", scope: "worlds_read" },
    // Its published 403 predates the declaration (no campaign is checked); kept, the document must not change.
    http: { method: "GET", path: "/v1/campaigns", status: 200, aliases: ["/v1/worlds"], documents403: true },
    mcp: { name: "list_campaigns", title: "List campaigns", readOnly: true },
    input: { query: Type.Composite([CampaignListQuery, WithLinksQuery]) },
    output: PageOf(Campaign, "CampaignPage"),
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
  }),
  defineOperation({
    id: "createCampaign",
    summary: "Create a campaign",
    description:
      "Creates a campaign owned by you. You join it as player and game master (admin); a default GM speaker, Character Arc defaults and default compendium field definitions are created with it.",
    tag: "Campaigns",
    access: { auth: "user", scope: "agent_write" },
    http: { method: "POST", path: "/v1/campaigns", status: 201, aliases: ["/v1/worlds"] },
    mcp: { name: "create_campaign", title: "Create a campaign", readOnly: false, destructive: false, idempotent: false },
    input: { body: CampaignCreate },
    output: Campaign,
    run: ({ deps, caller }, { body }) => campaigns.createCampaign(deps, caller, body),
  }),
  defineOperation({
    id: "getCampaign",
    summary: "Get a campaign",
    description: `Reads one campaign you can access. ${CAMPAIGN_DOC}`,
    tag: "Campaigns",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}", status: 200, aliases: ["/v1/worlds/{world_id}"] },
    mcp: { name: "get_campaign", title: "Get a campaign", readOnly: true },
    input: { path: CampaignIdPath, query: WithLinksQuery },
    output: Campaign,
    run: ({ deps, caller, access }, { path, query }) => campaigns.getCampaign(deps, caller, access, query.with_links ?? false),
  }),
  defineOperation({
    id: "updateCampaign",
    summary: "Update a campaign",
    description:
      "Changes a campaign's title, description, system, summary, language, image or mature flag, or archives it (archived: true sets archived_at; false clears it). Omitted fields stay as they are. Needs owner or game-master (admin) access. The summary may hold [[wikilinks]]: read with with_links=true before editing it.",
    tag: "Campaigns",
    access: { auth: "campaign", level: "manage", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "PATCH", path: "/v1/campaigns/{campaign_id}", status: 200, aliases: ["/v1/worlds/{world_id}"] },
    mcp: { name: "update_campaign", title: "Update a campaign", readOnly: false, destructive: false, idempotent: true },
    input: { path: CampaignIdPath, body: CampaignUpdate },
    output: Campaign,
    run: ({ deps, caller, access }, { path, body }) => campaigns.updateCampaign(deps, caller, access, body),
  }),
  defineOperation({
    id: "deleteCampaign",
    summary: "Delete a campaign",
    description: "Permanently deletes a campaign and everything in it. Only the owner may do this. Not offered as an MCP tool.",
    tag: "Campaigns",
    access: { auth: "campaign", level: "owner", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}", status: 204 },
    input: { path: CampaignIdPath },
    run: ({ deps, caller, access }, { path }) => campaigns.deleteCampaign(deps, caller, access),
  }),
  defineOperation({
    id: "getCampaignStats",
    summary: "Campaign statistics",
    description: "Counts of characters, sessions, moments, beats, factions, locations and items in a campaign.",
    tag: "Campaigns",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/stats", status: 200, aliases: ["/v1/worlds/{world_id}/stats"] },
    mcp: { name: "get_campaign_stats", title: "Get campaign statistics", readOnly: true },
    input: { path: CampaignIdPath },
    output: CampaignStats,
    run: ({ deps, caller, access }, { path }) => campaigns.campaignStats(deps, caller, access),
  }),
]);

export const memberOperations = defineOperations({ publishedAt: 160 }, [
  defineOperation({
    id: "internalAddMember",
    summary: "Add a campaign member",
    description: `${FIRST_PARTY} Adds a user to a campaign with a role, or changes their role. Role owner hands the campaign over; the previous owner stays as admin.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/{campaign_id}/members", status: 201 },
    input: { path: CampaignIdPath, body: MemberCreate },
    output: Member,
    run: ({ deps, caller }, { path, body }) =>
      members.addMember(deps, caller, { campaign_id: path.campaign_id, user_id: body.user_id, role: body.role }),
  }),
  defineOperation({
    id: "internalRemoveMember",
    summary: "Remove a campaign member",
    description: `${FIRST_PARTY} The owner cannot be removed.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/campaigns/{campaign_id}/members/{user_id}", status: 204 },
    input: { path: Type.Object({ campaign_id: Id(), user_id: Id() }) },
    run: ({ deps, caller }, { path }) => members.removeMember(deps, caller, path.campaign_id, path.user_id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    campaigns: typeof campaignOperations;
    members: typeof memberOperations;
  }
}
