// The quest log.
import { aliasKey } from "../domain/aliases.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import {
  applyQuestPatch,
  emptyQuest,
  QUEST_ENTITY_TYPES,
  RELATED_ARRAYS,
  relatedLabels,
  type ProgressEntry,
  type Quest,
  type QuestEntityType,
  type QuestPatch,
  type QuestState,
  type RelatedRef,
} from "../domain/quests.ts";
import type { SessionRef } from "../domain/sessions.ts";
import type { QuestFilters, Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

type SessionCite = { id: string; number: number; title: string; session_date: string } | null;

export interface QuestSummary {
  id: string;
  campaign_id: string;
  order_index: number;
  quest_name: string;
  quest_giver: string | null;
  quest_giver_id: string | null;
  quest_category: Quest["quest_category"];
  status: Quest["status"];
  success_definition: string | null;
  failure_conditions: string | null;
  next_action: string | null;
  resolution: string | null;
  objective_count: number;
  completed_objective_count: number;
  progress_entry_count: number;
  related_entity_count: number;
  first_session: SessionCite;
  last_session: SessionCite;
  created_at: string;
  updated_at: string | null;
}

export interface QuestView extends QuestSummary {
  objectives: Quest["objectives"];
  progress_log: string[];
  progress_log_entries: (ProgressEntry & { session_number: number | null; session_title: string | null; session_date: string | null })[];
  related_characters: string[];
  related_factions: string[];
  related_locations: string[];
  related_items: string[];
  related_entity_refs: RelatedRef[];
}

const sessionIdsOf = (quests: Quest[]) => [...new Set(quests.flatMap((q) => q.progress_log_entries.map((e) => e.session_id).filter((id): id is string => Boolean(id))))];

function summaryOf(quest: Quest, sessions: Map<string, SessionRef>): QuestSummary {
  const cited = quest.progress_log_entries
    .map((entry) => (entry.session_id ? sessions.get(entry.session_id) : undefined))
    .filter((ref): ref is SessionRef => Boolean(ref))
    .sort((a, b) => a.number - b.number);
  const cite = (ref: SessionRef | undefined): SessionCite => (ref ? { id: ref.id, number: ref.number, title: ref.title, session_date: ref.session_date } : null);
  return {
    id: quest.id,
    campaign_id: quest.campaign_id,
    order_index: quest.order_index,
    quest_name: quest.quest_name,
    quest_giver: quest.quest_giver,
    quest_giver_id: quest.quest_giver_id,
    quest_category: quest.quest_category,
    status: quest.status,
    success_definition: quest.success_definition,
    failure_conditions: quest.failure_conditions,
    next_action: quest.next_action,
    resolution: quest.resolution,
    objective_count: quest.objectives.length,
    completed_objective_count: quest.objectives.filter((o) => o.status === "completed").length,
    progress_entry_count: quest.progress_log_entries.length,
    related_entity_count: quest.related_entity_refs.length,
    first_session: cite(cited[0]),
    last_session: cite(cited[cited.length - 1]),
    created_at: quest.created_at,
    updated_at: quest.updated_at,
  };
}

function viewOf(quest: Quest, sessions: Map<string, SessionRef>): QuestView {
  const labels = (type: QuestEntityType) => relatedLabels(quest.related_entity_refs, type);
  return {
    ...summaryOf(quest, sessions),
    objectives: quest.objectives,
    progress_log: quest.progress_log_entries.map((entry) => entry.text),
    progress_log_entries: quest.progress_log_entries.map((entry) => {
      const session = entry.session_id ? sessions.get(entry.session_id) : undefined;
      return { ...entry, session_number: session?.number ?? null, session_title: session?.title ?? null, session_date: session?.session_date ?? null };
    }),
    related_characters: labels("character"),
    related_factions: labels("faction"),
    related_locations: labels("location"),
    related_items: labels("item"),
    related_entity_refs: quest.related_entity_refs,
  };
}

const LINK_TYPE: Record<QuestEntityType, string> = { character: "Character", faction: "Faction", location: "Location", item: "Item" };

/** Checks what needs the campaign's records: the giver, related ids, cited sessions. Fills ids it can resolve. */
export async function resolveAgainstCampaign(repos: Repositories, campaignId: string, state: QuestState, patch: QuestPatch): Promise<Result<QuestState>> {
  const next: QuestState = { ...state };
  if (patch.quest_giver !== undefined) {
    const giver = patch.quest_giver?.trim() || null;
    next.quest_giver = giver;
    next.quest_giver_id = null;
    if (giver) {
      const key = aliasKey(giver);
      const refs = await repos.lookup.resolveNames(campaignId, [key]);
      let found: string | null = null;
      for (const ref of refs) {
        if (ref.type === "Character") {
          const character = await repos.characters.get(ref.id);
          if (character?.approved) found ??= ref.id;
        } else if (ref.type === "Faction") found ??= ref.id;
      }
      if (!found) return fail("bad_request", `quest_giver "${giver}" must name an approved character or faction of this campaign`);
      next.quest_giver_id = found;
    }
  }
  const relatedChanged = patch.related_entity_refs !== undefined || Object.keys(RELATED_ARRAYS).some((name) => name in patch);
  const refs: RelatedRef[] = [];
  for (const ref of relatedChanged ? next.related_entity_refs : []) {
    if (ref.entity_id) {
      const record = await repos.lookup.findRecord(LINK_TYPE[ref.entity_type], ref.entity_id);
      if (!record || record.campaign_id !== campaignId) return fail("bad_request", `Related ${ref.entity_type} ${ref.entity_id} not found in this campaign`);
      refs.push({ ...ref, entity_name_snapshot: ref.entity_name_snapshot ?? record.name });
      continue;
    }
    const name = ref.label ?? ref.entity_name_snapshot;
    const match = name ? (await repos.lookup.resolveNames(campaignId, [aliasKey(name)])).find((r) => r.type === LINK_TYPE[ref.entity_type]) : undefined;
    refs.push(match ? { ...ref, entity_id: match.id } : ref);
  }
  if (relatedChanged) next.related_entity_refs = refs;
  const sessionIds = patch.progress_log === undefined ? [] : [...new Set(next.progress_log_entries.map((e) => e.session_id).filter((id): id is string => Boolean(id)))];
  if (sessionIds.length) {
    const known = await repos.sessions.refs(campaignId, sessionIds);
    const missing = sessionIds.find((id) => !known.has(id));
    if (missing) return fail("bad_request", `Session ${missing} not found in this campaign`);
  }
  return ok(next);
}

const nameProblem = (name: string | undefined) => (name !== undefined && !name.trim() ? fail("bad_request", "quest_name cannot be empty") : null);

export async function indexQuest(tx: Repositories, deps: Deps, quest: Quest) {
  await tx.search.upsert(
    {
      campaign_id: quest.campaign_id,
      doc_type: "quests",
      doc_id: quest.id,
      title: quest.quest_name,
      body: [quest.quest_giver, quest.success_definition, quest.failure_conditions, quest.next_action, quest.resolution, ...quest.objectives.map((o) => o.text), ...quest.progress_log_entries.map((e) => e.text)]
        .filter(Boolean)
        .join("\n"),
      facets: { status: quest.status, quest_category: quest.quest_category },
    },
    nowIso(deps),
  );
}

async function withSessions(repos: Repositories, quest: Quest): Promise<QuestView> {
  return viewOf(quest, await repos.sessions.refs(quest.campaign_id, sessionIdsOf([quest])));
}

export async function createQuest(deps: Deps, caller: Caller, access: CampaignAccess, patch: QuestPatch & { quest_name: string }): Promise<Result<QuestView>> {
  const campaignId = access.campaign.id;
  const problem = nameProblem(patch.quest_name);
  if (problem) return problem;
  return deps.records.withTransaction(async (tx): Promise<Result<QuestView>> => {
    const ids = () => deps.ids.next();
    const state = applyQuestPatch(emptyQuest(patch.quest_name.trim()), { ...patch, quest_name: patch.quest_name.trim(), quest_giver: undefined }, ids);
    const resolved = await resolveAgainstCampaign(tx, campaignId, state, { ...patch, quest_giver: patch.quest_giver ?? null });
    if (!resolved.ok) return resolved;
    const quest: Quest = { ...resolved.value, id: deps.ids.next(), campaign_id: campaignId, order_index: await tx.quests.nextOrderIndex(campaignId), created_at: nowIso(deps), updated_at: null };
    await tx.quests.insert(quest);
    await indexQuest(tx, deps, quest);
    return ok(await withSessions(tx, quest));
  });
}

export async function updateQuest(deps: Deps, caller: Caller, access: CampaignAccess, questId: string, patch: QuestPatch): Promise<Result<QuestView>> {
  const found = inCampaign(access, await deps.records.quests.get(questId), "Quest not found");
  if (!found.ok) return found;
  const problem = nameProblem(patch.quest_name);
  if (problem) return problem;
  return deps.records.withTransaction(async (tx): Promise<Result<QuestView>> => {
    const current = await tx.quests.get(questId, { lock: true });
    if (!current) return fail("not_found", "Quest not found");
    const state = applyQuestPatch(current, { ...patch, quest_name: patch.quest_name?.trim(), quest_giver: undefined }, () => deps.ids.next());
    const resolved = await resolveAgainstCampaign(tx, current.campaign_id, state, patch);
    if (!resolved.ok) return resolved;
    const quest: Quest = { ...current, ...resolved.value, updated_at: nowIso(deps) };
    await tx.quests.replace(quest);
    await indexQuest(tx, deps, quest);
    return ok(await withSessions(tx, quest));
  });
}

export async function getQuest(deps: Deps, caller: Caller, access: CampaignAccess, questId: string): Promise<Result<QuestView>> {
  const found = inCampaign(access, await deps.records.quests.get(questId), "Quest not found");
  return found.ok ? ok(await withSessions(deps.records, found.value)) : found;
}

export async function deleteQuest(deps: Deps, caller: Caller, access: CampaignAccess, questId: string): Promise<Result<null>> {
  const found = inCampaign(access, await deps.records.quests.get(questId), "Quest not found");
  if (!found.ok) return found;
  const deleted = await deps.records.withTransaction(async (tx) => {
    if (!(await tx.quests.get(questId, { lock: true }))) return false;
    await tx.search.remove("quests", questId);
    return tx.quests.delete(questId);
  });
  return deleted ? ok(null) : fail("not_found", "Quest not found");
}

export async function listQuests(deps: Deps, caller: Caller, access: CampaignAccess, filters: QuestFilters, page: PageRequest): Promise<Result<Page<QuestSummary>>> {
  const campaignId = access.campaign.id;
  const { rows, total } = await deps.records.quests.list(campaignId, { ...filters, search: filters.search?.trim() || undefined }, page);
  const sessions = await deps.records.sessions.refs(campaignId, sessionIdsOf(rows));
  return ok(toPage(rows.map((quest) => summaryOf(quest, sessions)), total, page));
}

export { QUEST_ENTITY_TYPES, RELATED_ARRAYS };
