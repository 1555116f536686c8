// Links, bulk link maintenance and background tasks: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as links from "../../application/links.ts";
import { getTask, requestMaintenance } from "../../application/maintenance.ts";
import type { LinkToType as LinkTarget, MaintenanceRequest as MaintenanceInput } from "../../domain/links.ts";
import { invalidField } from "../../domain/errors.ts";
import { defineOperation, defineOperations, type Operation } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";
import { CampaignIdPath, Id, literals, Nullable, PageOf, PageQuery, Timestamp } from "./common.ts";

export const LinkFromType = literals(["Character", "Faction", "Location", "Item", "Moment", "GameSession", "Beat", "Backstory", "Journal", "World"] as const);
export const LinkToType = literals(["Character", "Faction", "Location", "Item", "Moment"] as const);

export const Link = Type.Object(
  { id: Id(), campaign_id: Id(), from_id: Id(), from_type: LinkFromType, to_id: Id(), to_type: LinkToType, alias: Type.String(), created_at: Timestamp },
  { title: "Link" },
);

export const LinkCreate = Type.Object(
  {
    from_id: Id(),
    from_type: LinkFromType,
    to_id: Id(),
    to_type: LinkToType,
    alias: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "Label; defaults to the target's name. One link per source and alias: a second create with the same alias replaces the first." }))),
  },
  { title: "LinkCreate" },
);

export const LinkUpdate = Type.Object({ alias: Type.String({ minLength: 1, maxLength: 200 }) }, { title: "LinkUpdate" });

export const LinkListQuery = Type.Object({
  to_id: Type.Optional(Id()),
  from_id: Type.Optional(Id()),
  to_type: Type.Optional(Type.String({ maxLength: 40 })),
  from_type: Type.Optional(Type.String({ maxLength: 40 })),
  alias: Type.Optional(Type.String({ maxLength: 200 })),
  ...PageQuery,
});

export const LinkPath = Type.Object({ campaign_id: Id("Campaign id (the legacy routes call it world_id)"), link_id: Id("Link id") });

export const MaintenanceRequest = Type.Object(
  {
    operation: literals(["add", "remove", "update"] as const),
    campaign_id: Type.Optional(Id("Campaign id (or worldId)")),
    worldId: Type.Optional(Id("Legacy name of campaign_id")),
    target_id: Type.Optional(Id("The record the links point at")),
    targetId: Type.Optional(Id()),
    target_type: Type.Optional(LinkToType),
    targetType: Type.Optional(LinkToType),
    alias: Type.Optional(Type.String({ maxLength: 200, description: "add: the plain text to turn into links (default: the target's name); remove: only links with this text" })),
    new_alias: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    newAlias: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    new_target_id: Type.Optional(Id()),
    newTargetId: Type.Optional(Id()),
  },
  { title: "LinkMaintenanceRequest" },
);

export const Accepted = Type.Object({ success: Type.Literal(true), task_id: Id() }, { title: "TaskAccepted" });

export const TaskView = Type.Object(
  {
    id: Id(),
    kind: Type.String(),
    status: literals(["queued", "running", "succeeded", "failed"] as const),
    campaign_id: Nullable(Id()),
    result: Nullable(Type.Record(Type.String(), Type.Unknown())),
    error: Nullable(Type.String()),
    attempts: Type.Integer(),
    created_at: Timestamp,
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
  },
  { title: "Task" },
);

export const maintenanceOperation = (route: string, tag: string, targetType: LinkTarget): Operation =>
  defineOperation({
  id: `${route}LinkMaintenance`,
  summary: `Bulk link maintenance (${route})`,
  description:
    "Edits a campaign's wikilinks in bulk, in the background. operation add: turns plain mentions of `alias` (default: the target's name) into links to the target; remove: unwraps links to the target (only those with `alias`, if given) and deletes its links; update: points the target's links at new_target_id and/or renames them to new_alias. Answers 202 with a task id; follow it with GET /v1/tasks/{task_id}.",
  tag,
  // campaign_id, or its legacy name worldId; neither is 422 as for any missing field.
  access: {
    auth: "campaign",
    level: "write",
    scope: "agent_write",
    campaign: ({ body }) => {
      const campaignId = body.campaign_id ?? body.worldId;
      return campaignId ? { campaign_id: campaignId } : invalidField(["body", "campaign_id"], "Field required", body, "missing");
    },
  },
  http: { method: "POST", path: `/v1/${route}/links/maintenance`, status: 202 },
  ...(route === "characters" ? { mcp: { name: "bulk_link_maintenance", title: "Bulk link maintenance", readOnly: false, destructive: true, idempotent: false } } : {}),
  input: { body: MaintenanceRequest },
  output: Accepted,
  run: async ({ deps, caller, access }, { body }) => {
    const campaignId = access.campaign.id;
    const targetId = body.target_id ?? body.targetId;
    if (!targetId) return { ok: false, error: invalidField(["body", "target_id"], "Field required", body, "missing") };
    const request: MaintenanceInput = {
      operation: body.operation,
      campaign_id: campaignId,
      target_id: targetId,
      target_type: body.target_type ?? body.targetType,
      alias: body.alias,
      new_alias: body.new_alias ?? body.newAlias,
      new_target_id: body.new_target_id ?? body.newTargetId,
    };
    return requestMaintenance(deps, caller, access, targetType, request);
  },
});

export const linkOperations = defineOperations({ publishedAt: 50 }, [
  defineOperation({
    id: "listLinks",
    summary: "List links",
    description: "Lists a campaign's links (directed relationships between records, newest first), filtered by either end, type or alias. Links come from wikilinks in text or are made directly.",
    tag: "Links",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/links", status: 200, aliases: ["/v1/worlds/{world_id}/links"] },
    mcp: { name: "list_links", title: "List links", readOnly: true },
    input: { path: CampaignIdPath, query: LinkListQuery },
    output: PageOf(Link, "LinkPage"),
    run: ({ deps, caller, access }, { path, query }) => {
      const { page, size, ...filters } = query;
      return links.listLinks(deps, caller, access, filters, { page, size });
    },
  }),
  defineOperation({
    id: "createLink",
    summary: "Create a link",
    description:
      "Links two records of the campaign. from_type may be Character, Faction, Location, Item, Moment, GameSession, Beat, Backstory, Journal or World; to_type Character, Faction, Location, Item or Moment. The alias (label) defaults to the target's name; a second link from the same record with the same alias replaces the first (201 either way).",
    tag: "Links",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/links", status: 201, aliases: ["/v1/worlds/{world_id}/links"] },
    mcp: { name: "create_link", title: "Create a link", readOnly: false, destructive: false, idempotent: true },
    input: { path: CampaignIdPath, body: LinkCreate },
    output: Link,
    run: ({ deps, caller, access }, { path, body }) => links.createLink(deps, caller, access, body),
  }),
  defineOperation({
    id: "updateLink",
    summary: "Rename a link",
    description: "Changes a link's alias (label). It cannot be empty, nor the alias of another link from the same record.",
    tag: "Links",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "PATCH", path: "/v1/campaigns/{campaign_id}/links/{link_id}", status: 200, aliases: ["/v1/worlds/{world_id}/links/{link_id}"] },
    mcp: { name: "update_link", title: "Rename a link", readOnly: false, destructive: false, idempotent: true },
    input: { path: LinkPath, body: LinkUpdate },
    output: Link,
    run: ({ deps, caller, access }, { path, body }) => links.updateLink(deps, caller, access, path.link_id, body.alias),
  }),
  defineOperation({
    id: "deleteLink",
    summary: "Delete a link",
    description: "Deletes one link. A link made from a wikilink comes back when its text is saved again with the markup.",
    tag: "Links",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}/links/{link_id}", status: 204, aliases: ["/v1/worlds/{world_id}/links/{link_id}"] },
    mcp: { name: "delete_link", title: "Delete a link", readOnly: false, destructive: true, idempotent: true },
    input: { path: LinkPath },
    run: ({ deps, caller, access }, { path }) => links.deleteLink(deps, caller, access, path.link_id),
  }),

  maintenanceOperation("moments", "Moments", "Moment"),
]);

export const taskOperations = defineOperations({ publishedAt: 70 }, [
  defineOperation({
    id: "getTask",
    summary: "Get a background task",
    description: "Status and result counts of a background task, such as bulk link maintenance.",
    tag: "Tasks",
    access: { auth: "user", scope: "worlds_read" },
    http: { method: "GET", path: "/v1/tasks/{task_id}", status: 200 },
    input: { path: Type.Object({ task_id: Id("Task id") }) },
    output: TaskView,
    run: ({ deps, caller }, { path }) => getTask(deps, caller, path.task_id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    links: typeof linkOperations;
    tasks: typeof taskOperations;
  }
}
