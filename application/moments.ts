// Moments (Key Moments): highlighted scenes of sessions, with presentation metadata.
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { mergeMetadata } from "../domain/metadata.ts";
import { normalizeCategories, type Moment } from "../domain/moments.ts";
import { stripOrKeep, stripWikilinks } from "../domain/wikilinks.ts";
import type { Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";
import { createWith, deleteWith, updateWith, type Applied, type Writes } from "./writes.ts";

const NOT_FOUND = "Moment not found";
const PRESENTATION = ["style", "customTheme", "variant"] as const;

/** What a client may set on a moment: the record's own fields (a label is text when sent), and presentation kept in metadata. */
export type MomentFields = Partial<Pick<Moment, "content" | "image" | "index" | "categories" | "kind" | "metadata" | "session_id">> & {
  label?: string;
  style?: string;
  customTheme?: Record<string, unknown> | null;
  variant?: string;
};

export type MomentCard = Pick<Moment, "id" | "label" | "image" | "session_id" | "created_at" | "categories">;
const card = (m: Moment): MomentCard => ({ id: m.id, label: m.label, image: m.image, session_id: m.session_id, created_at: m.created_at, categories: m.categories });
const view = (m: Moment, withLinks: boolean): Moment => ({ ...m, content: stripOrKeep(m.content, withLinks) });

async function applyFields(repos: Repositories, base: Moment, fields: MomentFields): Promise<Result<Applied<Moment, null>>> {
  if (fields.label !== undefined && !fields.label.trim()) return { ok: false, error: invalidField(["body", "label"], "Label cannot be empty", fields.label, "string_too_short") };
  const next: Moment = { ...base };
  if (fields.label !== undefined) next.label = fields.label.trim();
  if (fields.content !== undefined) next.content = fields.content;
  if (fields.image !== undefined) next.image = fields.image;
  if (fields.index !== undefined) next.index = fields.index;
  if (fields.categories !== undefined) next.categories = normalizeCategories(fields.categories);
  if (fields.kind !== undefined) next.kind = fields.kind.trim() || "legacy";
  if (fields.metadata !== undefined) next.metadata = mergeMetadata(next.metadata, fields.metadata);
  // Presentation fields sent at the top level land in metadata, where they live.
  const presentation = Object.fromEntries(PRESENTATION.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]));
  if (Object.keys(presentation).length) next.metadata = mergeMetadata(next.metadata, presentation);
  if (fields.session_id !== undefined) {
    if (fields.session_id) {
      const session = await repos.sessions.get(fields.session_id);
      if (!session || session.campaign_id !== next.campaign_id) return { ok: false, error: invalidField(["body", "session_id"], "Session must belong to the same campaign", fields.session_id) };
    }
    next.session_id = fields.session_id || null;
  }
  return ok({ record: next, found: null });
}

export async function afterWrite(tx: Repositories, deps: Deps, moment: Moment, previous: Moment | null) {
  if (!previous || previous.content !== moment.content) await syncWikilinks(tx, deps, { campaignId: moment.campaign_id, type: "Moment", id: moment.id }, moment.content);
  await tx.search.upsert(
    { campaign_id: moment.campaign_id, doc_type: "moments", doc_id: moment.id, title: moment.label ?? "", body: stripWikilinks(moment.content ?? ""), facets: { session_id: moment.session_id, categories: moment.categories } },
    nowIso(deps),
  );
}

const WRITES: Writes<Moment, MomentFields> = { repository: (tx) => tx.moments, apply: applyFields, afterWrite };

export async function createMoment(deps: Deps, caller: Caller, access: CampaignAccess, fields: MomentFields & { label: string }): Promise<Result<Moment>> {
  const campaignId = access.campaign.id;
  const blank: Moment = { id: deps.ids.next(), campaign_id: campaignId, session_id: null, label: null, content: null, image: null, index: null, categories: [], kind: "legacy", metadata: null, created_at: nowIso(deps), updated_at: null };
  const created = await createWith(deps, WRITES, blank, fields);
  return created.ok ? ok(view(created.value.record, false)) : created;
}

export async function getMoment(deps: Deps, caller: Caller, access: CampaignAccess, id: string, withLinks: boolean): Promise<Result<Moment>> {
  const found = inCampaign(access, await deps.records.moments.get(id), NOT_FOUND);
  return found.ok ? ok(view(found.value, withLinks)) : found;
}

export async function updateMoment(deps: Deps, caller: Caller, access: CampaignAccess, id: string, fields: MomentFields): Promise<Result<Moment>> {
  const updated = await updateWith(deps, access, WRITES, id, fields, NOT_FOUND);
  return updated.ok ? ok(view(updated.value.record, false)) : updated;
}

export function deleteMoment(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<null>> {
  return deleteWith(deps, access, (tx) => tx.moments, id, NOT_FOUND, async (tx) => {
    await tx.links.deleteTouching(id);
    await tx.search.remove("moments", id);
  });
}

const ids = (list?: string) => (list ? list.split(",").map((id) => id.trim()).filter(Boolean) : []);

export async function listMoments(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: PageRequest & {
    campaign_id?: string;
    session_id?: string;
    search?: string;
    fields?: "card";
    character_ids?: string;
    location_ids?: string;
    faction_ids?: string;
    item_ids?: string;
    session_ids?: string;
    categories?: string;
    kind?: string;
    with_links?: boolean;
  },
): Promise<Result<Page<Moment | MomentCard>>> {
  // The campaign is campaign_id's, or else session_id's (the table's declaration locates it).
  const campaignId = access.campaign.id;
  const linkedTo = [...ids(query.character_ids), ...ids(query.location_ids), ...ids(query.faction_ids), ...ids(query.item_ids)];
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.moments.list(
    {
      campaignId,
      sessionId: query.session_id,
      sessionIds: ids(query.session_ids),
      search: query.search?.trim() || undefined,
      categories: query.categories ? normalizeCategories(query.categories.split(",")) : undefined,
      kind: query.kind,
      linkedTo: linkedTo.length ? linkedTo : undefined,
    },
    page,
  );
  return ok(toPage(query.fields === "card" ? rows.map(card) : rows.map((m) => view(m, query.with_links ?? false)), total, page));
}
