// Factions, locations and items: one shape, one set of use cases, parameterized by kind.
import { dedupeAliases, normalizeAlias } from "../domain/aliases.ts";
import { ENTITY_LINK_TYPE, type Entity, type EntityKind } from "../domain/entities.ts";
import { wouldCreateCycle } from "../domain/hierarchy.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { pageCount, toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { stripOrKeep, stripWikilinks } from "../domain/wikilinks.ts";
import type { Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { characterCard } from "./characters.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";
import { createWith, deleteWith, updateWith, type Applied, type Writes } from "./writes.ts";

export const ENTITY_BUCKET: Record<EntityKind, string> = { faction: "factions", location: "locations", item: "items" };

export type EntityView = Omit<Entity, "kind" | "parent_id"> & { parent_id?: string | null };

export interface EntityCard {
  id: string;
  name: string;
  type: string | null;
  image: string | null;
}

export const entityCard = (e: Entity): EntityCard => ({ id: e.id, name: e.name, type: e.type, image: e.image });

const entityView = (e: Entity, withLinks: boolean): EntityView => {
  const { kind, parent_id, ...rest } = e;
  const view: EntityView = { ...rest, description: stripOrKeep(e.description, withLinks) };
  if (kind === "location") view.parent_id = parent_id;
  return view;
};

/** What a client may set on an entity: the record's own fields, typed from it. */
export type EntityFields = Partial<Pick<Entity, "name" | "aliases" | "description" | "type" | "image" | "tcg_image" | "parent_id">>;

async function checkParent(repos: Repositories, entity: Entity): Promise<Result<true>> {
  if (!entity.parent_id) return ok(true);
  const parent = await repos.entities.get(entity.parent_id);
  if (!parent || parent.kind !== "location" || parent.campaign_id !== entity.campaign_id)
    return { ok: false, error: invalidField(["body", "parent_id"], "Parent must be a location of the same campaign", entity.parent_id) };
  const ancestry = await repos.entities.ancestry(entity.parent_id);
  if (wouldCreateCycle(entity.id, entity.parent_id, (id) => ancestry.get(id)))
    return { ok: false, error: invalidField(["body", "parent_id"], "A location cannot be its own ancestor", entity.parent_id) };
  return ok(true);
}

async function applyFields(repos: Repositories, base: Entity, fields: EntityFields): Promise<Result<Applied<Entity, null>>> {
  const next: Entity = { ...base };
  if (fields.name !== undefined) next.name = normalizeAlias(fields.name);
  if (!next.name) return { ok: false, error: invalidField(["body", "name"], "Name cannot be empty", fields.name, "string_too_short") };
  if (fields.aliases !== undefined) next.aliases = dedupeAliases(fields.aliases);
  for (const key of ["description", "type", "image", "tcg_image"] as const) if (fields[key] !== undefined) next[key] = fields[key] ?? null;
  if (base.kind === "location" && fields.parent_id !== undefined) next.parent_id = fields.parent_id || null;
  const parent = await checkParent(repos, next);
  return parent.ok ? ok({ record: next, found: null }) : parent;
}

export async function afterWrite(tx: Repositories, deps: Deps, entity: Entity, previous: Entity | null) {
  if (!previous || previous.description !== entity.description)
    await syncWikilinks(tx, deps, { campaignId: entity.campaign_id, type: ENTITY_LINK_TYPE[entity.kind], id: entity.id }, entity.description);
  await tx.search.upsert(
    {
      campaign_id: entity.campaign_id,
      doc_type: ENTITY_BUCKET[entity.kind],
      doc_id: entity.id,
      title: entity.name,
      body: [entity.aliases.join(", "), entity.type, stripWikilinks(entity.description ?? "")].filter(Boolean).join("\n"),
      facets: { type: entity.type },
    },
    nowIso(deps),
  );
}

const notFound = (kind: EntityKind) => `${ENTITY_LINK_TYPE[kind]} not found`;
const ofKind = (entity: Entity | null, kind: EntityKind) => (entity && entity.kind === kind ? entity : null);

const WRITES: Writes<Entity, EntityFields> = { repository: (tx) => tx.entities, apply: applyFields, afterWrite };

export async function createEntity(deps: Deps, caller: Caller, access: CampaignAccess, kind: EntityKind, fields: EntityFields & { name: string }): Promise<Result<EntityView>> {
  const campaignId = access.campaign.id;
  const blank: Entity = {
    id: deps.ids.next(),
    campaign_id: campaignId,
    kind,
    name: "",
    aliases: [],
    description: null,
    type: null,
    image: null,
    tcg_image: null,
    parent_id: null,
    merge: false,
    created_at: nowIso(deps),
    updated_at: null,
  };
  const created = await createWith(deps, WRITES, blank, fields);
  return created.ok ? ok(entityView(created.value.record, false)) : created;
}

export async function getEntity(deps: Deps, caller: Caller, access: CampaignAccess, kind: EntityKind, id: string, withLinks: boolean): Promise<Result<EntityView>> {
  const found = inCampaign(access, ofKind(await deps.records.entities.get(id), kind), notFound(kind));
  return found.ok ? ok(entityView(found.value, withLinks)) : found;
}

export async function updateEntity(deps: Deps, caller: Caller, access: CampaignAccess, kind: EntityKind, id: string, fields: EntityFields): Promise<Result<EntityView>> {
  const updated = await updateWith(deps, access, WRITES, id, fields, notFound(kind), (entity) => ofKind(entity, kind));
  return updated.ok ? ok(entityView(updated.value.record, false)) : updated;
}

export function deleteEntity(deps: Deps, caller: Caller, access: CampaignAccess, kind: EntityKind, id: string): Promise<Result<null>> {
  // Child locations keep existing, with no parent.
  return deleteWith(deps, access, (tx) => tx.entities, id, notFound(kind), async (tx) => {
    await tx.links.deleteTouching(id);
    await tx.search.remove(ENTITY_BUCKET[kind], id);
  }, (entity) => ofKind(entity, kind));
}

export interface EntityListQuery extends PageRequest {
  search?: string;
  with_links: boolean;
  fields?: "card";
}

export async function listEntities(deps: Deps, caller: Caller, access: CampaignAccess, kind: EntityKind, query: EntityListQuery): Promise<Result<Page<EntityView | EntityCard>>> {
  const campaignId = access.campaign.id;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.entities.list(campaignId, kind, { search: query.search?.trim() || undefined }, page);
  const data = query.fields === "card" ? rows.map(entityCard) : rows.map((e) => entityView(e, query.with_links));
  return ok(toPage(data, total, page));
}

export type PickerType = "characters" | "factions" | "locations" | "items";

export interface PickerPage {
  results: EntityCard[];
  hasMore: boolean;
  page: number;
  pages: number;
  total: number;
}

/** The entities picker: cards of one kind, `limit` per page. Characters show their name as `name`. */
export async function pickEntities(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: { type: PickerType; search?: string; page: number; limit: number },
): Promise<Result<PickerPage>> {
  const campaignId = access.campaign.id;
  const page = { page: query.page, size: query.limit };
  const search = query.search?.trim() || undefined;
  let results: EntityCard[];
  let total: number;
  if (query.type === "characters") {
    const listing = await deps.records.characters.list(campaignId, { search, approvedOnly: true }, page);
    results = listing.rows.map(characterCard).map((card) => ({ id: card.id, name: card.character_name, type: card.type, image: card.image }));
    total = listing.total;
  } else {
    const kind = query.type.slice(0, -1) as EntityKind;
    const listing = await deps.records.entities.list(campaignId, kind, { search }, page);
    results = listing.rows.map(entityCard);
    total = listing.total;
  }
  const pages = pageCount(total, query.limit);
  return ok({ results, hasMore: query.page < pages, page: query.page, pages, total });
}
