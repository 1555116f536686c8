// The quest log: status derived from objectives, and the six patch rules.
import type { CampaignRecord } from "./campaign.ts";
import { withFields } from "./metadata.ts";

export const QUEST_CATEGORIES = ["main", "side", "faction", "personal", "n/a"] as const;
export const QUEST_STATUSES = ["planned", "in-progress", "blocked", "failed", "done", "n/a"] as const;
export const OBJECTIVE_STATUSES = ["pending", "in-progress", "completed", "failed", "blocked"] as const;
export const QUEST_ENTITY_TYPES = ["character", "faction", "location", "item"] as const;

export type QuestCategory = (typeof QUEST_CATEGORIES)[number];
export type QuestStatus = (typeof QUEST_STATUSES)[number];
export type ObjectiveStatus = (typeof OBJECTIVE_STATUSES)[number];
export type QuestEntityType = (typeof QUEST_ENTITY_TYPES)[number];

export interface Objective {
  id: string;
  text: string;
  status: ObjectiveStatus;
  order: number;
}

export interface ProgressEntry {
  id: string;
  text: string;
  order: number;
  session_id: string | null;
}

export interface RelatedRef {
  id: string;
  entity_type: QuestEntityType;
  entity_id: string | null;
  entity_name_snapshot: string | null;
  label: string | null;
  order: number;
}

export interface QuestState {
  quest_name: string;
  quest_giver: string | null;
  quest_giver_id: string | null;
  quest_category: QuestCategory;
  status: QuestStatus;
  success_definition: string | null;
  failure_conditions: string | null;
  next_action: string | null;
  resolution: string | null;
  objectives: Objective[];
  progress_log_entries: ProgressEntry[];
  related_entity_refs: RelatedRef[];
}

/**
 * DESIGN section 9: none → planned; all completed → done; any in progress → in-progress; else any
 * blocked → blocked; else every unfinished one failed → failed; else some completed → in-progress;
 * else planned.
 */
export function deriveQuestStatus(statuses: readonly ObjectiveStatus[]): QuestStatus {
  if (statuses.length === 0) return "planned";
  if (statuses.every((s) => s === "completed")) return "done";
  if (statuses.includes("in-progress")) return "in-progress";
  if (statuses.includes("blocked")) return "blocked";
  if (statuses.filter((s) => s !== "completed").every((s) => s === "failed")) return "failed";
  if (statuses.includes("completed")) return "in-progress";
  return "planned";
}

export type ObjectiveInput = string | { text: string; status?: ObjectiveStatus };
export type ProgressInput = string | { text: string; session_id?: string | null };
export interface RelatedRefInput {
  entity_type: QuestEntityType;
  entity_id?: string | null;
  entity_name_snapshot?: string | null;
  label?: string | null;
}

export const RELATED_ARRAYS = {
  related_characters: "character",
  related_factions: "faction",
  related_locations: "location",
  related_items: "item",
} as const satisfies Record<string, QuestEntityType>;
export type RelatedArrayName = keyof typeof RELATED_ARRAYS;

export const toObjectives = (inputs: readonly ObjectiveInput[], newId: () => string): Objective[] =>
  inputs.map((input, order) =>
    typeof input === "string" ? { id: newId(), text: input.trim(), status: "pending", order } : { id: newId(), text: input.text.trim(), status: input.status ?? "pending", order },
  );

export const toProgressEntries = (inputs: readonly ProgressInput[], newId: () => string): ProgressEntry[] =>
  inputs.map((input, order) =>
    typeof input === "string" ? { id: newId(), text: input, order, session_id: null } : { id: newId(), text: input.text, order, session_id: input.session_id ?? null },
  );

const renumber = (refs: Omit<RelatedRef, "order">[]): RelatedRef[] => refs.map((ref, order) => ({ ...ref, order }));

export const toRelatedRefs = (inputs: readonly RelatedRefInput[], newId: () => string): RelatedRef[] =>
  renumber(
    inputs.map((input) => ({
      id: newId(),
      entity_type: input.entity_type,
      entity_id: input.entity_id ?? null,
      entity_name_snapshot: input.entity_name_snapshot ?? null,
      label: input.label ?? null,
    })),
  );

/** Rule 4: a per-type label array replaces only the refs of its own type; the others keep their order. */
export function replaceBucket(refs: readonly RelatedRef[], type: QuestEntityType, labels: readonly string[], newId: () => string): RelatedRef[] {
  const kept = refs.filter((ref) => ref.entity_type !== type);
  const added = labels
    .map((label) => label.trim())
    .filter(Boolean)
    .map((label) => ({ id: newId(), entity_type: type, entity_id: null, entity_name_snapshot: label, label }));
  return renumber([...kept, ...added]);
}

/** The label arrays a quest shows, derived from its refs. */
export const relatedLabels = (refs: readonly RelatedRef[], type: QuestEntityType): string[] =>
  refs.filter((ref) => ref.entity_type === type).map((ref) => ref.label ?? ref.entity_name_snapshot ?? "").filter(Boolean);

export interface QuestPatch {
  quest_name?: string;
  quest_giver?: string | null;
  quest_category?: QuestCategory;
  status?: QuestStatus;
  success_definition?: string | null;
  failure_conditions?: string | null;
  next_action?: string | null;
  resolution?: string | null;
  objectives?: ObjectiveInput[];
  progress_log?: ProgressInput[];
  related_entity_refs?: RelatedRefInput[];
  related_characters?: string[];
  related_factions?: string[];
  related_locations?: string[];
  related_items?: string[];
}

const SCALARS = ["quest_name", "quest_giver", "quest_category", "success_definition", "failure_conditions", "next_action", "resolution"] as const;

/**
 * The six patch rules: (1) omitted fields stay; (2) objectives replace the list and recompute the
 * status; (3) related_entity_refs replace the whole set; (4) a per-type array replaces only its
 * bucket; (5) progress_log replaces the list; (6) status applies only when objectives are omitted.
 * Giver resolution (quest_giver_id) is the caller's job: it needs the campaign's records.
 */
export function applyQuestPatch(quest: QuestState, patch: QuestPatch, newId: () => string): QuestState {
  const next: QuestState = withFields(quest, patch, SCALARS);
  if (patch.objectives !== undefined) {
    next.objectives = toObjectives(patch.objectives, newId);
    next.status = deriveQuestStatus(next.objectives.map((o) => o.status));
  } else if (patch.status !== undefined) {
    next.status = patch.status;
  }
  if (patch.progress_log !== undefined) next.progress_log_entries = toProgressEntries(patch.progress_log, newId);
  if (patch.related_entity_refs !== undefined) next.related_entity_refs = toRelatedRefs(patch.related_entity_refs, newId);
  for (const [name, type] of Object.entries(RELATED_ARRAYS) as [RelatedArrayName, QuestEntityType][]) {
    const labels = patch[name];
    if (labels !== undefined) next.related_entity_refs = replaceBucket(next.related_entity_refs, type, labels, newId);
  }
  return next;
}

export const emptyQuest = (name: string): QuestState => ({
  quest_name: name,
  quest_giver: null,
  quest_giver_id: null,
  quest_category: "n/a",
  status: "planned",
  success_definition: null,
  failure_conditions: null,
  next_action: null,
  resolution: null,
  objectives: [],
  progress_log_entries: [],
  related_entity_refs: [],
});

export interface Quest extends CampaignRecord, QuestState {
  order_index: number;
}
