// Link maintenance: bulk edits of a campaign's wikilinks, run as durable background tasks.
import { aliasKey, normalizeAlias } from "../domain/aliases.ts";
import { RESOLUTION_ORDER, type Link, type LinkToType, type MaintenanceRequest } from "../domain/links.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { atLeast } from "../domain/journals.ts";
import { linkMentions, retargetLinks, unlinkTarget } from "../domain/wikilinks.ts";
import type { RecordRef, Repositories, Task, TaskKind, TextSource } from "../ports/records.ts";
import { campaignAccess, journalEntryPermission, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";

export const LINK_MAINTENANCE = "link_maintenance" satisfies TaskKind;

export interface TaskView {
  id: string;
  kind: string;
  status: Task["status"];
  campaign_id: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const taskView = ({ payload: _payload, created_by: _by, ...task }: Task): TaskView => task;

/** Kinds a [[wikilink]] can name: only their mentions in text are rewritten (a moment's never are). */
const namedByWikilinks = (type: string) => (RESOLUTION_ORDER as readonly string[]).includes(type);

/** The target of the given type; without one, a record wikilinks can name (what a new target must be). */
async function findTarget(repos: Repositories, type: LinkToType | undefined, id: string): Promise<(RecordRef & { type: LinkToType }) | null> {
  for (const candidate of type ? [type] : RESOLUTION_ORDER) {
    const found = await repos.lookup.findRecord(candidate, id);
    if (found) return { ...found, type: candidate };
  }
  return null;
}

/** Queues a maintenance request after checking what can be checked now; 202 with the task id. */
export async function requestMaintenance(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  routeType: LinkToType,
  request: MaintenanceRequest,
): Promise<Result<{ success: true; task_id: string }>> {
  if (access.campaign.id !== request.campaign_id) return fail("not_found", "Campaign not found");
  const targetType = request.target_type ?? routeType;
  const target = await findTarget(deps.records, targetType, request.target_id);
  if (!target || target.campaign_id !== request.campaign_id) return fail("not_found", `${targetType} ${request.target_id} not found in this campaign`);
  if (request.operation === "add" && !namedByWikilinks(target.type))
    return { ok: false, error: invalidField(["body", "target_type"], `Wikilinks name characters, factions, locations and items; mentions cannot be linked to a ${target.type}`, target.type) };
  if (request.operation === "update") {
    if (!request.new_alias && !request.new_target_id)
      return { ok: false, error: invalidField(["body", "new_alias"], "An update needs new_alias or new_target_id", null, "missing") };
    if (request.new_target_id) {
      const next = await findTarget(deps.records, undefined, request.new_target_id);
      if (!next || next.campaign_id !== request.campaign_id) return fail("not_found", `New target ${request.new_target_id} not found in this campaign`);
    }
  }
  const task = await deps.records.tasks.insert({
    id: deps.ids.next(),
    campaign_id: request.campaign_id,
    kind: LINK_MAINTENANCE,
    payload: { ...request, target_type: target.type },
    created_by: caller.userId,
    created_at: nowIso(deps),
  });
  deps.tasks.wake();
  return ok({ success: true, task_id: task.id });
}

export async function getTask(deps: Deps, caller: Caller, taskId: string): Promise<Result<TaskView>> {
  const task = await deps.records.tasks.get(taskId);
  if (!task) return fail("not_found", "Task not found");
  if (task.campaign_id) {
    // A second check the table cannot declare: a task may have no campaign (then only its creator sees it).
    const access = await campaignAccess(deps, caller, task.campaign_id, "read");
    if (!access.ok) return access;
  } else if (task.created_by !== caller.userId) return fail("not_found", "Task not found");
  return ok(taskView(task));
}

interface Counts {
  texts_changed: number;
  links_added: number;
  links_removed: number;
  links_updated: number;
}

// Texts are read locked: a text edited meanwhile is rewritten from its new version, never overwritten.
const LOCKED = { lock: true } as const;

async function rewriteTexts(tx: Repositories, deps: Deps, campaignId: string, sources: TextSource[], rewrite: (text: string) => string, counts: Counts) {
  const at = nowIso(deps);
  for (const source of sources) {
    const text = rewrite(source.text);
    if (text === source.text) continue;
    const before = (await tx.links.list(campaignId, { from_id: source.sourceId, from_type: source.sourceType }, { page: 1, size: 100 }, null)).total;
    await tx.lookup.writeText(source, text, at);
    await syncWikilinks(tx, deps, { campaignId, type: source.sourceType, id: source.sourceId }, text);
    const after = (await tx.links.list(campaignId, { from_id: source.sourceId, from_type: source.sourceType }, { page: 1, size: 100 }, null)).total;
    counts.texts_changed++;
    if (after > before) counts.links_added += after - before;
    if (after < before) counts.links_removed += before - after;
  }
}

/**
 * The links to a record that a maintenance request may change: a link from (or to) a journal entry
 * only when the requester may edit that entry now, as for a link PATCH or DELETE. Others are left
 * alone and uncounted, so the result tells nothing about entries the requester cannot see.
 */
async function changeableLinksTo(tx: Repositories, campaignId: string, toId: string, requesterId: string | null): Promise<Link[]> {
  const levels = new Map<string, boolean>();
  const mayEdit = async (entryId: string) => {
    if (!levels.has(entryId)) {
      const entry = await tx.journals.get(entryId);
      const level = entry && requesterId ? await journalEntryPermission(tx, entry, requesterId) : null;
      levels.set(entryId, atLeast(level, "edit"));
    }
    return levels.get(entryId)!;
  };
  const changeable: Link[] = [];
  for (const link of await tx.links.listTo(campaignId, toId)) {
    if (link.from_type === "Journal" && !(await mayEdit(link.from_id))) continue;
    if ((link.to_type as string) === "Journal" && !(await mayEdit(link.to_id))) continue;
    changeable.push(link);
  }
  return changeable;
}

async function runMaintenance(tx: Repositories, deps: Deps, request: MaintenanceRequest, requesterId: string | null): Promise<Counts> {
  const counts: Counts = { texts_changed: 0, links_added: 0, links_removed: 0, links_updated: 0 };
  const linksTo = (toId: string) => changeableLinksTo(tx, request.campaign_id, toId, requesterId);
  const target = await findTarget(tx, request.target_type, request.target_id);
  if (!target || target.campaign_id !== request.campaign_id) throw new Error("the target no longer exists");
  const campaignId = request.campaign_id;
  const names = [target.name, ...(target.aliases ?? [])];
  const notOwnText = (sources: TextSource[]) => sources.filter((source) => source.sourceId !== target.id);
  // Markup naming a moment's label never linked to the moment, so only links change for one.
  const textsMentioning = async (needle: string) => (namedByWikilinks(target.type) ? tx.lookup.textsMentioning(campaignId, needle, LOCKED) : []);

  if (request.operation === "add") {
    const alias = normalizeAlias(request.alias ?? "") || target.name;
    await rewriteTexts(tx, deps, campaignId, notOwnText(await textsMentioning(alias)), (text) => linkMentions(text, alias, target.name), counts);
  } else if (request.operation === "remove") {
    const unlinked = request.alias ? [normalizeAlias(request.alias)] : names;
    for (const name of unlinked)
      await rewriteTexts(tx, deps, campaignId, await textsMentioning(name), (text) => unlinkTarget(text, name), counts);
    const keys = new Set(unlinked.map(aliasKey));
    for (const link of await linksTo(target.id)) {
      if (!request.alias || keys.has(aliasKey(link.alias))) counts.links_removed += Number(await tx.links.delete(link.id));
    }
  } else {
    if (request.new_target_id) {
      const next = await findTarget(tx, undefined, request.new_target_id);
      if (!next || next.campaign_id !== campaignId) throw new Error("the new target no longer exists");
      for (const name of names)
        await rewriteTexts(tx, deps, campaignId, await textsMentioning(name), (text) => retargetLinks(text, name, next.name), counts);
      const remaining = await linksTo(target.id);
      await tx.links.retarget(remaining.map((link) => link.id), next.type as LinkToType, next.id);
      counts.links_updated += remaining.length;
    }
    if (request.new_alias) {
      const newAlias = normalizeAlias(request.new_alias);
      const oldAlias = normalizeAlias(request.alias ?? "") || target.name;
      const pointAt = request.new_target_id ? request.new_target_id : target.id;
      await rewriteTexts(tx, deps, campaignId, await textsMentioning(oldAlias), (text) => retargetLinks(text, oldAlias, newAlias), counts);
      for (const link of await linksTo(pointAt)) {
        if (aliasKey(link.alias) !== aliasKey(oldAlias)) continue;
        const updated = await tx.links.updateAlias(link.id, newAlias, aliasKey(newAlias));
        if (updated && updated !== "conflict") counts.links_updated++;
      }
    }
  }
  return counts;
}

const LEASE_MS = 5 * 60_000;

/** Claims and runs one ready task. Returns false when there was none. Any instance may call this. */
export async function runNextTask(deps: Deps): Promise<boolean> {
  const now = deps.clock.now();
  const task = await deps.records.tasks.claim(now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString());
  if (!task) return false;
  try {
    if (task.kind !== LINK_MAINTENANCE) throw new Error(`unknown task kind ${task.kind}`);
    const counts = await deps.records.withTransaction((tx) => runMaintenance(tx, deps, task.payload, task.created_by));
    await deps.records.tasks.finish(task.id, "succeeded", { ...counts }, null, nowIso(deps));
  } catch (error) {
    deps.log.warn("task failed", { task_id: task.id, kind: task.kind, error: (error as Error).message });
    await deps.records.tasks.finish(task.id, "failed", null, (error as Error).message, nowIso(deps));
  }
  return true;
}
