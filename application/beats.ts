// Beats: the hierarchical outline of a campaign's story.
import { nest, wouldCreateCycle, type HierarchyNode } from "../domain/hierarchy.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { mayHaveParent, type Beat, type BeatType } from "../domain/beats.ts";
import { mergeMetadata } from "../domain/metadata.ts";
import { stripOrKeep } from "../domain/wikilinks.ts";
import type { Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";
import { createWith, deleteWith, updateWith, type Applied, type Writes } from "./writes.ts";

const NOT_FOUND = "Beat not found";

export type BeatView = Beat & { game_session_id: string | null };
export type BeatNode = BeatView & { children: BeatNode[]; linkedEntities: { characters: string[]; factions: string[]; locations: string[]; items: string[] } };

/** The read shape everywhere a beat is shown (session detail included). */
export const beatView = (beat: Beat, withLinks: boolean): BeatView => ({ ...beat, description: stripOrKeep(beat.description, withLinks), game_session_id: beat.game_session_ids[0] ?? null });

/** What a client may set on a beat: the record's own fields, and its sessions as one id or a list. */
export type BeatFields = Partial<Pick<Beat, "label" | "type" | "description" | "index" | "parent_id" | "metadata">> & {
  game_session_id?: string | null;
  game_session_ids?: string[] | null;
};

/**
 * The sessions a write asks for: `game_session_ids` is the list (duplicates dropped, order kept)
 * and `game_session_id`, when given too, goes first. Undefined when neither is sent.
 */
function requestedSessions(fields: BeatFields, current: readonly string[]): string[] | undefined {
  const { game_session_id: first, game_session_ids: list } = fields;
  if (list === undefined && first === undefined) return undefined;
  if (list === undefined) return first ? [first, ...current.filter((id) => id !== first)] : [];
  return [...new Set([...(first ? [first] : []), ...(list ?? [])])];
}

async function applyFields(repos: Repositories, base: Beat, fields: BeatFields): Promise<Result<Applied<Beat, null>>> {
  const next: Beat = { ...base };
  if (fields.label !== undefined) next.label = fields.label.trim();
  if (!next.label) return { ok: false, error: invalidField(["body", "label"], "Label cannot be empty", fields.label, "string_too_short") };
  if (fields.type !== undefined) next.type = fields.type;
  if (fields.description !== undefined) next.description = fields.description;
  if (fields.index !== undefined) next.index = fields.index;
  if (fields.metadata !== undefined) next.metadata = mergeMetadata(next.metadata, fields.metadata);
  if (fields.parent_id !== undefined) next.parent_id = fields.parent_id || null;
  const sessions = requestedSessions(fields, next.game_session_ids);
  if (sessions) {
    const known = await repos.sessions.refs(next.campaign_id, sessions);
    const missing = sessions.find((id) => !known.has(id));
    if (missing !== undefined) {
      const listed = fields.game_session_ids?.indexOf(missing) ?? -1;
      const loc = listed >= 0 ? ["body", "game_session_ids", listed] : ["body", "game_session_id"];
      return { ok: false, error: invalidField(loc, "Session must belong to the same campaign", missing) };
    }
    next.game_session_ids = sessions;
  }
  if (next.parent_id) {
    if (!mayHaveParent(next.type)) return { ok: false, error: invalidField(["body", "parent_id"], "Only minor beats and steps have a parent", next.parent_id) };
    const parent = await repos.beats.get(next.parent_id);
    if (!parent || parent.campaign_id !== next.campaign_id) return { ok: false, error: invalidField(["body", "parent_id"], "Parent must be a beat of the same campaign", next.parent_id) };
    const ancestry = await repos.beats.ancestry(next.parent_id);
    if (wouldCreateCycle(next.id, next.parent_id, (id) => ancestry.get(id))) return { ok: false, error: invalidField(["body", "parent_id"], "A beat cannot be its own ancestor", next.parent_id) };
  }
  return ok({ record: next, found: null });
}

export async function afterWrite(tx: Repositories, deps: Deps, beat: Beat, previous: Beat | null) {
  if (!previous || previous.description !== beat.description) await syncWikilinks(tx, deps, { campaignId: beat.campaign_id, type: "Beat", id: beat.id }, beat.description);
  await tx.search.upsert({ campaign_id: beat.campaign_id, doc_type: "beats", doc_id: beat.id, title: beat.label, body: beat.description ?? "", facets: { type: beat.type } }, nowIso(deps));
}

const WRITES: Writes<Beat, BeatFields> = { repository: (tx) => tx.beats, apply: applyFields, afterWrite };

export async function createBeat(deps: Deps, caller: Caller, access: CampaignAccess, fields: BeatFields & { label: string; type: BeatType }): Promise<Result<BeatView>> {
  const campaignId = access.campaign.id;
  const blank: Beat = { id: deps.ids.next(), campaign_id: campaignId, label: "", type: fields.type, description: null, index: 0, parent_id: null, metadata: null, game_session_ids: [], created_at: nowIso(deps), updated_at: null };
  const created = await createWith(deps, WRITES, blank, fields);
  return created.ok ? ok(beatView(created.value.record, false)) : created;
}

export async function getBeat(deps: Deps, caller: Caller, access: CampaignAccess, id: string, withLinks: boolean): Promise<Result<BeatView>> {
  const found = inCampaign(access, await deps.records.beats.get(id), NOT_FOUND);
  return found.ok ? ok(beatView(found.value, withLinks)) : found;
}

export async function updateBeat(deps: Deps, caller: Caller, access: CampaignAccess, id: string, fields: BeatFields): Promise<Result<BeatView>> {
  const updated = await updateWith(deps, access, WRITES, id, fields, NOT_FOUND);
  return updated.ok ? ok(beatView(updated.value.record, false)) : updated;
}

/** Children keep existing without a parent; links made from the beat go with it. */
export function deleteBeat(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<null>> {
  return deleteWith(deps, access, (tx) => tx.beats, id, NOT_FOUND, async (tx) => {
    await tx.beats.orphanChildren(id, nowIso(deps));
    await tx.links.deleteTouching(id);
    await tx.search.remove("beats", id);
  });
}

export async function listBeats(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: PageRequest & { campaign_id?: string; session_id?: string; include_hierarchy?: boolean; with_links?: boolean },
): Promise<Result<Page<BeatView> | BeatNode[]>> {
  const withLinks = query.with_links ?? false;
  const page = { page: query.page, size: query.size };
  if (query.session_id) {
    // The session's campaign is the one granted (the table's declaration prefers session_id).
    const session = inCampaign(access, await deps.records.sessions.get(query.session_id), "Session not found");
    if (!session.ok) return session;
    if (query.include_hierarchy) {
      const all = await deps.records.beats.allBySession(session.value.id);
      const linksFrom = new Map<string, BeatNode["linkedEntities"]>();
      for (const beat of all) {
        const links = (await deps.records.links.list(beat.campaign_id, { from_id: beat.id, from_type: "Beat" }, { page: 1, size: 100 }, caller.userId)).rows;
        const of = (type: string) => links.filter((l) => l.to_type === type).map((l) => l.to_id);
        linksFrom.set(beat.id, { characters: of("Character"), factions: of("Faction"), locations: of("Location"), items: of("Item") });
      }
      const toNode = (entry: HierarchyNode<Beat>): BeatNode => ({ ...beatView(entry.node, withLinks), children: entry.children.map(toNode), linkedEntities: linksFrom.get(entry.node.id)! });
      return ok(nest(all).map(toNode));
    }
    const { rows, total } = await deps.records.beats.listBySession(session.value.id, page);
    return ok(toPage(rows.map((b) => beatView(b, withLinks)), total, page));
  }
  const { rows, total } = await deps.records.beats.listByCampaign(access.campaign.id, page);
  return ok(toPage(rows.map((b) => beatView(b, withLinks)), total, page));
}
