// Factions, locations, items and the entities picker: wire schemas and operations.
import { Type, type TSchema } from "@sinclair/typebox";
import * as entities from "../../application/entities.ts";
import type { EntityKind } from "../../domain/entities.ts";
import type { LinkToType } from "../../domain/links.ts";
import { defineOperations, type Operation } from "./operation.ts";
import { Aliases, CampaignIdQuery, Fields, Id, ImageUrl, Nullable, PageOf, PageQuery, Text, Timestamp, WIKILINKS_SYNCED, WithLinks, WithLinksQuery } from "./common.ts";
import { maintenanceOperation } from "./links.ts";

export const entitySchemas = (noun: "Faction" | "Location" | "Item") => {
  const hierarchical = noun === "Location";
  const parent: Record<string, TSchema> = hierarchical ? { parent_id: Nullable(Id("Parent location (same campaign); never the location itself or a descendant")) } : {};
  const output = Type.Object(
    {
      id: Id(),
      campaign_id: Id(),
      name: Type.String(),
      aliases: Type.Array(Type.String()),
      description: Nullable(Type.String()),
      type: Nullable(Type.String()),
      image: Nullable(Type.String()),
      tcg_image: Nullable(Type.String()),
      ...(hierarchical ? { parent_id: Nullable(Id()) } : {}),
      merge: Type.Boolean({ description: "Read-only" }),
      created_at: Timestamp,
      updated_at: Nullable(Timestamp),
    },
    { title: noun },
  );
  const fields: Record<string, TSchema> = {
    aliases: Aliases,
    description: Text(50_000, "May hold [[wikilinks]]"),
    type: Text(100, "Free label, e.g. guild, city, weapon"),
    image: Nullable(ImageUrl),
    tcg_image: Nullable(ImageUrl),
    ...parent,
  };
  return {
    output,
    create: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 200 }), campaign_id: Id("Campaign id"), ...Type.Partial(Type.Object(fields)).properties },
      { title: `${noun}Create` },
    ),
    update: Type.Partial(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), ...fields }), { title: `${noun}Update` }),
  };
};

export const EntityCard = Type.Object({ id: Id(), name: Type.String(), type: Nullable(Type.String()), image: Nullable(Type.String()) }, { title: "EntityCard" });

export const EntityListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Full text over name, aliases and type, with substring and misspelling fallback" })),
  with_links: Type.Optional(WithLinks),
  fields: Fields,
  ...PageQuery,
});

export const PickerQuery = Type.Object({
  ...CampaignIdQuery,
  type: Type.Union([Type.Literal("characters"), Type.Literal("factions"), Type.Literal("locations"), Type.Literal("items")]),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page (this route uses limit, not size)" })),
});

export const PickerPage = Type.Object(
  { results: Type.Array(EntityCard), hasMore: Type.Boolean(), page: Type.Integer(), pages: Type.Integer(), total: Type.Integer() },
  { title: "EntityPickerPage" },
);

const entityRows = (kind: EntityKind): Operation[] => {
  const noun = entities.ENTITY_NOUN[kind];
  const plural = entities.ENTITY_BUCKET[kind];
  const idName = `${kind}_id`;
  const schemas = entitySchemas(noun as "Faction" | "Location" | "Item");
  const path = Type.Object({ [idName]: Id(`${noun} id`) });
  const hierarchy = kind === "location" ? " Locations nest through parent_id (same campaign; never their own ancestor)." : "";
  return [
    {
      id: `list${noun}s`,
      summary: `List ${plural}`,
      description: `Lists a campaign's ${plural}, newest first. search matches name, aliases and type, tolerating misspellings, and lists the exact name first, then names starting with the query; fields=card returns id, name, type and image.${hierarchy} ${WIKILINKS_SYNCED}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "read",
      http: { method: "GET", path: `/v1/${plural}`, status: 200 },
      mcp: { name: `list_${plural}`, title: `List ${plural}`, readOnly: true },
      input: { query: EntityListQuery },
      output: PageOf(Type.Union([schemas.output, EntityCard]), `${noun}Page`),
      run: ({ deps, caller }, { query }) =>
        entities.listEntities(deps, caller, kind, query.campaign_id, { page: query.page, size: query.size, search: query.search, with_links: query.with_links ?? false, fields: query.fields }),
    },
    {
      id: `create${noun}`,
      summary: `Create a ${kind}`,
      description: `Creates a ${kind}. Aliases are normalized and deduplicated.${hierarchy} ${WIKILINKS_SYNCED}`,
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
      description: `Reads one ${kind}. ${WIKILINKS_SYNCED}`,
      tag: `${noun}s`,
      auth: "user",
      campaignAccess: "read",
      http: { method: "GET", path: `/v1/${plural}/{${idName}}`, status: 200 },
      mcp: { name: `get_${kind}`, title: `Get a ${kind}`, readOnly: true },
      input: { path, query: WithLinksQuery },
      output: schemas.output,
      run: ({ deps, caller }, { path, query }) => entities.getEntity(deps, caller, kind, path[idName], query.with_links ?? false),
    },
    {
      id: `update${noun}`,
      summary: `Update a ${kind}`,
      description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit the description.${hierarchy} ${WIKILINKS_SYNCED}`,
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

export const entityOperations = defineOperations([
  ...entityRows("faction"),
  ...entityRows("location"),
  ...entityRows("item"),
  {
    id: "pickEntities",
    summary: "Entities picker",
    description: "Cards (id, name, type, image) of one kind of compendium record, for pickers and autocompletion. Uses limit (max 100), not size.",
    tag: "Entities",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/entities", status: 200 },
    input: { query: PickerQuery },
    output: PickerPage,
    run: ({ deps, caller }, { query }) =>
      entities.pickEntities(deps, caller, query.campaign_id, { type: query.type, search: query.search, page: query.page, limit: query.limit }),
  },
]);
