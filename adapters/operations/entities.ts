// Factions, locations, items and the entities picker: wire schemas and operations.
import { Type, type TProperties } from "@sinclair/typebox";
import * as entities from "../../application/entities.ts";
import { ENTITY_LINK_TYPE, type EntityKind } from "../../domain/entities.ts";
import type { OwnedKind } from "../../ports/records.ts";
import { defineOperation, defineOperations, type Operation } from "./operation.ts";
import { Aliases, CampaignIdQuery, Fields, Id, ImageUrl, Nullable, PageOf, PageQuery, Text, Timestamp, WIKILINKS_SYNCED, WithLinks, WithLinksQuery, Defaulted } from "./common.ts";
import { maintenanceOperation } from "./links.ts";
import { byBodyCampaign, byQueryCampaign, plainRows } from "./crud.ts";

const entityFields = {
  aliases: Aliases,
  description: Text(50_000, "May hold [[wikilinks]]"),
  type: Text(100, "Free label, e.g. guild, city, weapon"),
  image: Nullable(ImageUrl),
  tcg_image: Nullable(ImageUrl),
};

/** One kind's schemas; `parent` and `parentOut` are the hierarchy fields only locations have. */
const schemasOf = <F extends TProperties, P extends TProperties>(noun: string, fields: F, parentOut: P) => ({
  output: Type.Object(
    {
      id: Id(),
      campaign_id: Id(),
      name: Type.String(),
      aliases: Type.Array(Type.String()),
      description: Nullable(Type.String()),
      type: Nullable(Type.String()),
      image: Nullable(Type.String()),
      tcg_image: Nullable(Type.String()),
      ...parentOut,
      merge: Type.Boolean({ description: "Read-only" }),
      created_at: Timestamp,
      updated_at: Nullable(Timestamp),
    },
    { title: noun },
  ),
  create: Type.Object(
    { name: Type.String({ minLength: 1, maxLength: 200 }), campaign_id: Id("Campaign id"), ...Type.Partial(Type.Object(fields)).properties },
    { title: `${noun}Create` },
  ),
  update: Type.Partial(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), ...fields }), { title: `${noun}Update` }),
});

export const entitySchemas = (noun: "Faction" | "Location" | "Item") =>
  noun === "Location"
    ? schemasOf(noun, { ...entityFields, parent_id: Nullable(Id("Parent location (same campaign); never the location itself or a descendant")) }, { parent_id: Nullable(Id()) })
    : schemasOf(noun, entityFields, {});

export const EntityCard = Type.Object({ id: Id(), name: Type.String(), type: Nullable(Type.String()), image: Nullable(Type.String()) }, { title: "EntityCard" });

export const EntityListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Full text over name, aliases and type, with substring and misspelling fallback" })),
  with_links: Defaulted(WithLinks),
  fields: Fields,
  ...PageQuery,
});

export const PickerQuery = Type.Object({
  ...CampaignIdQuery,
  type: Type.Union([Type.Literal("characters"), Type.Literal("factions"), Type.Literal("locations"), Type.Literal("items")]),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Defaulted(Type.Integer({ minimum: 1, default: 1 })),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page (this route uses limit, not size)" })),
});

export const PickerPage = Type.Object(
  { results: Type.Array(EntityCard), hasMore: Type.Boolean(), page: Type.Integer(), pages: Type.Integer(), total: Type.Integer() },
  { title: "EntityPickerPage" },
);

const ENTITY_RECORDS: Record<EntityKind, OwnedKind> = { faction: "factions", location: "locations", item: "items" };

const entityRows = (kind: EntityKind): Operation[] => {
  const noun = ENTITY_LINK_TYPE[kind];
  const plural = entities.ENTITY_BUCKET[kind];
  const schemas = entitySchemas(noun as "Faction" | "Location" | "Item");
  const hierarchy = kind === "location" ? " Locations nest through parent_id (same campaign; never their own ancestor)." : "";
  const rows = plainRows({ name: noun, tag: `${noun}s`, record: ENTITY_RECORDS[kind], readScope: "worlds_read" });
  return [
    rows.list({
      description: `Lists a campaign's ${plural}, newest first. search matches name, aliases and type, tolerating misspellings, and lists the exact name first, then names starting with the query in name order, then other matches newest first; when no word starts with it, names holding it (newest first), and only when none, similar names (most similar first: the 50 nearest to its words, or when none is near, every name within trigram similarity); fields=card returns id, name, type and image.${hierarchy} ${WIKILINKS_SYNCED}`,
      campaign: byQueryCampaign,
      input: { query: EntityListQuery },
      output: PageOf(Type.Union([schemas.output, EntityCard]), `${noun}Page`),
      run: ({ deps, caller, access }, { query }) =>
        entities.listEntities(deps, caller, access, kind, { page: query.page, size: query.size, search: query.search, with_links: query.with_links, fields: query.fields }),
    }),
    rows.create({
      description: `Creates a ${kind}. Aliases are normalized and deduplicated.${hierarchy} ${WIKILINKS_SYNCED}`,
      campaign: byBodyCampaign,
      input: { body: schemas.create },
      output: schemas.output,
      run: ({ deps, caller, access }, { body: { campaign_id, ...fields } }) => entities.createEntity(deps, caller, access, kind, fields),
    }),
    rows.get({ description: `Reads one ${kind}. ${WIKILINKS_SYNCED}`, withLinks: true, output: schemas.output, use: (deps, caller, access, id, withLinks) => entities.getEntity(deps, caller, access, kind, id, withLinks) }),
    rows.update({ description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit the description.${hierarchy} ${WIKILINKS_SYNCED}`, body: schemas.update, output: schemas.output, use: (deps, caller, access, id, patch) => entities.updateEntity(deps, caller, access, kind, id, patch) }),
    rows.remove({ description: `Deletes a ${kind} and every link to or from it.${kind === "location" ? " Its child locations stay, without a parent." : ""}`, use: (deps, caller, access, id) => entities.deleteEntity(deps, caller, access, kind, id) }),
    maintenanceOperation(plural, `${noun}s`, noun),
  ];
};

export const entityOperations = defineOperations({ publishedAt: 40 }, [
  ...entityRows("faction"),
  ...entityRows("location"),
  ...entityRows("item"),
  defineOperation({
    id: "pickEntities",
    summary: "Entities picker",
    description: "Cards (id, name, type, image) of one kind of compendium record, for pickers and autocompletion. Uses limit (max 100), not size.",
    tag: "Entities",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byQueryCampaign },
    http: { method: "GET", path: "/v1/entities", status: 200 },
    input: { query: PickerQuery },
    output: PickerPage,
    run: ({ deps, caller, access }, { query }) =>
      entities.pickEntities(deps, caller, access, { type: query.type, search: query.search, page: query.page, limit: query.limit }),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    entities: typeof entityOperations;
  }
}
