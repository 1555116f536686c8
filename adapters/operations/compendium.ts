import { Type } from "@sinclair/typebox";
import * as characters from "../../application/characters.ts";
import * as entities from "../../application/entities.ts";
import * as links from "../../application/links.ts";
import { getTask, requestMaintenance, type MaintenanceRequest } from "../../application/maintenance.ts";
import { searchCampaign } from "../../application/search.ts";
import { createSpeaker } from "../../application/speakers.ts";
import type { EntityKind, LinkToType } from "../../domain/compendium.ts";
import { invalidField } from "../../domain/errors.ts";
import { defineOperations, type Operation } from "./operation.ts";
import * as S from "./schemas.ts";

const WIKILINKS = "Text fields may hold [[Target]] or [[Target|shown text]] wikilinks; saving syncs the record's links, and reads strip the markup unless with_links is true.";

const maintenanceOperation = (route: string, tag: string, targetType: LinkToType): Operation => ({
  id: `${route}LinkMaintenance`,
  summary: `Bulk link maintenance (${route})`,
  description:
    "Edits a campaign's wikilinks in bulk, in the background. operation add: turns plain mentions of `alias` (default: the target's name) into links to the target; remove: unwraps links to the target (only those with `alias`, if given) and deletes its links; update: points the target's links at new_target_id and/or renames them to new_alias. Answers 202 with a task id; follow it with GET /v1/tasks/{task_id}.",
  tag,
  auth: "user",
  campaignAccess: "write",
  http: { method: "POST", path: `/v1/${route}/links/maintenance`, status: 202 },
  ...(route === "characters" ? { mcp: { name: "bulk_link_maintenance", title: "Bulk link maintenance", readOnly: false, destructive: true, idempotent: false } } : {}),
  input: { body: S.MaintenanceRequest },
  output: S.Accepted,
  run: async ({ deps, caller }, { body }) => {
    const campaignId = body.campaign_id ?? body.worldId;
    if (!campaignId) return { ok: false, error: invalidField(["body", "campaign_id"], "Field required", body, "missing") };
    const targetId = body.target_id ?? body.targetId;
    if (!targetId) return { ok: false, error: invalidField(["body", "target_id"], "Field required", body, "missing") };
    const request: MaintenanceRequest = {
      operation: body.operation,
      campaign_id: campaignId,
      target_id: targetId,
      target_type: body.target_type ?? body.targetType,
      alias: body.alias,
      new_alias: body.new_alias ?? body.newAlias,
      new_target_id: body.new_target_id ?? body.newTargetId,
    };
    return requestMaintenance(deps, caller, targetType, request);
  },
});

const characterOperations: Operation[] = [
  {
    id: "listCharacters",
    summary: "List characters",
    description: `Lists a campaign's characters (PCs, NPCs, others), newest first. search matches name, aliases, player and type, tolerating misspellings, and lists the exact name first, then names starting with the query; fields=card returns only id, character_name, type and image. ${WIKILINKS}`,
    tag: "Characters",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/characters", status: 200 },
    mcp: { name: "list_characters", title: "List characters", readOnly: true },
    input: { query: S.CharacterListQuery },
    output: S.PageOf(Type.Union([S.Character, S.CharacterCard]), "CharacterPage"),
    run: ({ deps, caller }, { query }) =>
      characters.listCharacters(deps, caller, query.campaign_id, {
        page: query.page,
        size: query.size,
        search: query.search,
        character_type: query.character_type,
        approved_only: query.approved_only ?? true,
        with_links: query.with_links ?? false,
        fields: query.fields,
      }),
  },
  {
    id: "createCharacter",
    summary: "Create a character",
    description: `Creates a character. speaker_id links the player (a speaker of the same campaign); the character may not share the player's name. Aliases are normalized and deduplicated. ${WIKILINKS}`,
    tag: "Characters",
    auth: "user",
    campaignAccess: "write",
    http: { method: "POST", path: "/v1/characters", status: 201 },
    mcp: { name: "create_character", title: "Create a character", readOnly: false, destructive: false, idempotent: false },
    input: { body: S.CharacterCreate },
    output: S.Character,
    run: ({ deps, caller }, { body }) => {
      const { campaign_id, ...fields } = body;
      return characters.createCharacter(deps, caller, campaign_id, fields as characters.CharacterFields & { character_name: string });
    },
  },
  {
    id: "getCharacter",
    summary: "Get a character",
    description: `Reads one character, with the linked player. ${WIKILINKS}`,
    tag: "Characters",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/characters/{character_id}", status: 200 },
    mcp: { name: "get_character", title: "Get a character", readOnly: true },
    input: { path: Type.Object({ character_id: S.Id("Character id") }), query: S.WithLinksQuery },
    output: S.Character,
    run: ({ deps, caller }, { path, query }) => characters.getCharacter(deps, caller, path.character_id, query.with_links ?? false),
  },
  {
    id: "updateCharacter",
    summary: "Update a character",
    description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit description or backstory, so their wikilinks survive. ${WIKILINKS}`,
    tag: "Characters",
    auth: "user",
    campaignAccess: "write",
    http: { method: "PATCH", path: "/v1/characters/{character_id}", status: 200 },
    mcp: { name: "update_character", title: "Update a character", readOnly: false, destructive: false, idempotent: true },
    input: { path: Type.Object({ character_id: S.Id("Character id") }), body: S.CharacterUpdate },
    output: S.Character,
    run: ({ deps, caller }, { path, body }) => characters.updateCharacter(deps, caller, path.character_id, body),
  },
  {
    id: "deleteCharacter",
    summary: "Delete a character",
    description: "Deletes a character and every link to or from it.",
    tag: "Characters",
    auth: "user",
    campaignAccess: "write",
    http: { method: "DELETE", path: "/v1/characters/{character_id}", status: 204 },
    mcp: { name: "delete_character", title: "Delete a character", readOnly: false, destructive: true, idempotent: true },
    input: { path: Type.Object({ character_id: S.Id("Character id") }) },
    run: ({ deps, caller }, { path }) => characters.deleteCharacter(deps, caller, path.character_id),
  },
  maintenanceOperation("characters", "Characters", "Character"),
];

const entityOperations = (kind: EntityKind): Operation[] => {
  const noun = entities.ENTITY_NOUN[kind];
  const plural = entities.ENTITY_BUCKET[kind];
  const idName = `${kind}_id`;
  const schemas = S.entitySchemas(noun as "Faction" | "Location" | "Item");
  const path = Type.Object({ [idName]: S.Id(`${noun} id`) });
  const hierarchy = kind === "location" ? " Locations nest through parent_id (same campaign; never their own ancestor)." : "";
  return [
    {
      id: `list${noun}s`,
      summary: `List ${plural}`,
      description: `Lists a campaign's ${plural}, newest first. search matches name, aliases and type, tolerating misspellings, and lists the exact name first, then names starting with the query; fields=card returns id, name, type and image.${hierarchy} ${WIKILINKS}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "read",
      http: { method: "GET", path: `/v1/${plural}`, status: 200 },
      mcp: { name: `list_${plural}`, title: `List ${plural}`, readOnly: true },
      input: { query: S.EntityListQuery },
      output: S.PageOf(Type.Union([schemas.output, S.EntityCard]), `${noun}Page`),
      run: ({ deps, caller }, { query }) =>
        entities.listEntities(deps, caller, kind, query.campaign_id, { page: query.page, size: query.size, search: query.search, with_links: query.with_links ?? false, fields: query.fields }),
    },
    {
      id: `create${noun}`,
      summary: `Create a ${kind}`,
      description: `Creates a ${kind}. Aliases are normalized and deduplicated.${hierarchy} ${WIKILINKS}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "write",
      http: { method: "POST", path: `/v1/${plural}`, status: 201 },
      mcp: { name: `create_${kind}`, title: `Create a ${kind}`, readOnly: false, destructive: false, idempotent: false },
      input: { body: schemas.create },
      output: schemas.output,
      run: ({ deps, caller }, { body }) => {
        const { campaign_id, ...fields } = body;
        return entities.createEntity(deps, caller, kind, campaign_id, fields as entities.EntityFields & { name: string });
      },
    },
    {
      id: `get${noun}`,
      summary: `Get a ${kind}`,
      description: `Reads one ${kind}. ${WIKILINKS}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "read",
      http: { method: "GET", path: `/v1/${plural}/{${idName}}`, status: 200 },
      mcp: { name: `get_${kind}`, title: `Get a ${kind}`, readOnly: true },
      input: { path, query: S.WithLinksQuery },
      output: schemas.output,
      run: ({ deps, caller }, { path, query }) => entities.getEntity(deps, caller, kind, path[idName], query.with_links ?? false),
    },
    {
      id: `update${noun}`,
      summary: `Update a ${kind}`,
      description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit the description.${hierarchy} ${WIKILINKS}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "write",
      http: { method: "PATCH", path: `/v1/${plural}/{${idName}}`, status: 200 },
      mcp: { name: `update_${kind}`, title: `Update a ${kind}`, readOnly: false, destructive: false, idempotent: true },
      input: { path, body: schemas.update },
      output: schemas.output,
      run: ({ deps, caller }, { path, body }) => entities.updateEntity(deps, caller, kind, path[idName], body),
    },
    {
      id: `delete${noun}`,
      summary: `Delete a ${kind}`,
      description: `Deletes a ${kind} and every link to or from it.${kind === "location" ? " Its child locations stay, without a parent." : ""}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "write",
      http: { method: "DELETE", path: `/v1/${plural}/{${idName}}`, status: 204 },
      mcp: { name: `delete_${kind}`, title: `Delete a ${kind}`, readOnly: false, destructive: true, idempotent: true },
      input: { path },
      run: ({ deps, caller }, { path }) => entities.deleteEntity(deps, caller, kind, path[idName]),
    },
    maintenanceOperation(plural, `${noun}s`, entities.ENTITY_NOUN[kind] as LinkToType),
  ];
};

const linkOperations: Operation[] = [
  {
    id: "listLinks",
    summary: "List links",
    description: "Lists a campaign's links (directed relationships between records, newest first), filtered by either end, type or alias. Links come from wikilinks in text or are made directly.",
    tag: "Links",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/links", status: 200, aliases: ["/v1/worlds/{world_id}/links"] },
    mcp: { name: "list_links", title: "List links", readOnly: true },
    input: { path: S.CampaignIdPath, query: S.LinkListQuery },
    output: S.PageOf(S.Link, "LinkPage"),
    run: ({ deps, caller }, { path, query }) => {
      const { page, size, ...filters } = query;
      return links.listLinks(deps, caller, path.campaign_id, filters, { page, size });
    },
  },
  {
    id: "createLink",
    summary: "Create a link",
    description:
      "Links two records of the campaign. from_type may be Character, Faction, Location, Item, Moment, GameSession, Beat, Backstory, Journal or World; to_type Character, Faction, Location, Item or Moment. The alias (label) defaults to the target's name; a second link from the same record with the same alias replaces the first (201 either way).",
    tag: "Links",
    auth: "user",
    campaignAccess: "write",
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/links", status: 201, aliases: ["/v1/worlds/{world_id}/links"] },
    mcp: { name: "create_link", title: "Create a link", readOnly: false, destructive: false, idempotent: true },
    input: { path: S.CampaignIdPath, body: S.LinkCreate },
    output: S.Link,
    run: ({ deps, caller }, { path, body }) => links.createLink(deps, caller, path.campaign_id, body as links.LinkDraft),
  },
  {
    id: "updateLink",
    summary: "Rename a link",
    description: "Changes a link's alias (label). It cannot be empty, nor the alias of another link from the same record.",
    tag: "Links",
    auth: "user",
    campaignAccess: "write",
    http: { method: "PATCH", path: "/v1/campaigns/{campaign_id}/links/{link_id}", status: 200, aliases: ["/v1/worlds/{world_id}/links/{link_id}"] },
    mcp: { name: "update_link", title: "Rename a link", readOnly: false, destructive: false, idempotent: true },
    input: { path: S.LinkPath, body: S.LinkUpdate },
    output: S.Link,
    run: ({ deps, caller }, { path, body }) => links.updateLink(deps, caller, path.campaign_id, path.link_id, body.alias),
  },
  {
    id: "deleteLink",
    summary: "Delete a link",
    description: "Deletes one link. A link made from a wikilink comes back when its text is saved again with the markup.",
    tag: "Links",
    auth: "user",
    campaignAccess: "write",
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}/links/{link_id}", status: 204, aliases: ["/v1/worlds/{world_id}/links/{link_id}"] },
    mcp: { name: "delete_link", title: "Delete a link", readOnly: false, destructive: true, idempotent: true },
    input: { path: S.LinkPath },
    run: ({ deps, caller }, { path }) => links.deleteLink(deps, caller, path.campaign_id, path.link_id),
  },
];

export const compendiumOperations = defineOperations([
  ...characterOperations,
  ...entityOperations("faction"),
  ...entityOperations("location"),
  ...entityOperations("item"),
  {
    id: "pickEntities",
    summary: "Entities picker",
    description: "Cards (id, name, type, image) of one kind of compendium record, for pickers and autocompletion. Uses limit (max 100), not size.",
    tag: "Entities",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/entities", status: 200 },
    input: { query: S.PickerQuery },
    output: S.PickerPage,
    run: ({ deps, caller }, { query }) =>
      entities.pickEntities(deps, caller, query.campaign_id, { type: query.type, search: query.search, page: query.page, limit: query.limit }),
  },
  ...linkOperations,
  maintenanceOperation("moments", "Moments", "Moment"),
  {
    id: "searchCampaign",
    summary: "Search a campaign",
    description:
      "Searches every kind of record at once. Answers one bucket per type (characters, factions, locations, items, sessions, beats, moments, quests, journals), each at most 10 ranked hits with a snippet: up to 24 words of HTML around the first match, matching words in <mark>, the record's text escaped. Misspelled names still match.",
    tag: "Campaigns",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/search", status: 200 },
    input: { path: S.CampaignIdPath, query: S.SearchQuery },
    output: S.SearchResult,
    run: ({ deps, caller }, { path, query }) => searchCampaign(deps, caller, path.campaign_id, { q: query.q, types: query.types }),
  },
  {
    id: "getTask",
    summary: "Get a background task",
    description: "Status and result counts of a background task, such as bulk link maintenance.",
    tag: "Tasks",
    auth: "user",
    http: { method: "GET", path: "/v1/tasks/{task_id}", status: 200 },
    input: { path: Type.Object({ task_id: S.Id("Task id") }) },
    output: S.TaskView,
    run: ({ deps, caller }, { path }) => getTask(deps, caller, path.task_id),
  },
  {
    id: "internalCreateSpeaker",
    summary: "Add a campaign speaker",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface. A speaker is a voice in transcripts and the player a character can be linked to.",
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/{campaign_id}/speakers", status: 201 },
    input: { path: S.CampaignIdPath, body: S.SpeakerCreate },
    output: S.Speaker,
    run: ({ deps, caller }, { path, body }) => createSpeaker(deps, caller, path.campaign_id, body as { name: string }),
  },
]);
