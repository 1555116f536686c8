// Quests: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as quests from "../../application/quests.ts";
import { BODY_LIMITS, defineOperations } from "./operation.ts";
import { byBodyCampaign, byQueryCampaign, plainRows } from "./crud.ts";
import { CampaignIdQuery, Id, literals, Nullable, PageOf, PageQuery, Timestamp } from "./common.ts";

const QuestCategory = literals(["main", "side", "faction", "personal", "n/a"] as const);
const QuestStatus = literals(["planned", "in-progress", "blocked", "failed", "done", "n/a"] as const);
const ObjectiveStatus = literals(["pending", "in-progress", "completed", "failed", "blocked"] as const);
const QuestEntityType = literals(["character", "faction", "location", "item"] as const);
const Narrative = (description: string) => Nullable(Type.String({ maxLength: 20_000, description }));
const LabelList = (what: string) => Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200, description: `Labels of related ${what}; replaces only this bucket` });

const SessionCite = Nullable(Type.Object({ id: Id(), number: Type.Integer(), title: Type.String(), session_date: Timestamp }));

const questScalars = {
  id: Id(),
  campaign_id: Id(),
  order_index: Type.Integer(),
  quest_name: Type.String(),
  quest_giver: Nullable(Type.String()),
  quest_giver_id: Nullable(Id()),
  quest_category: QuestCategory,
  status: QuestStatus,
  success_definition: Nullable(Type.String()),
  failure_conditions: Nullable(Type.String()),
  next_action: Nullable(Type.String()),
  resolution: Nullable(Type.String()),
  objective_count: Type.Integer(),
  completed_objective_count: Type.Integer(),
  progress_entry_count: Type.Integer(),
  related_entity_count: Type.Integer(),
  first_session: SessionCite,
  last_session: SessionCite,
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const QuestSummary = Type.Object(questScalars, { title: "QuestSummary" });

export const Quest = Type.Object(
  {
    ...questScalars,
    objectives: Type.Array(Type.Object({ id: Id(), text: Type.String(), status: ObjectiveStatus, order: Type.Integer() })),
    progress_log: Type.Array(Type.String()),
    progress_log_entries: Type.Array(
      Type.Object({
        id: Id(),
        text: Type.String(),
        order: Type.Integer(),
        session_id: Nullable(Id()),
        session_number: Nullable(Type.Integer()),
        session_title: Nullable(Type.String()),
        session_date: Nullable(Timestamp),
      }),
    ),
    related_characters: Type.Array(Type.String()),
    related_factions: Type.Array(Type.String()),
    related_locations: Type.Array(Type.String()),
    related_items: Type.Array(Type.String()),
    related_entity_refs: Type.Array(
      Type.Object({
        id: Id(),
        entity_type: QuestEntityType,
        entity_id: Nullable(Id()),
        entity_name_snapshot: Nullable(Type.String()),
        label: Nullable(Type.String()),
        order: Type.Integer(),
      }),
    ),
  },
  { title: "Quest" },
);

const questInputFields = {
  quest_giver: Nullable(Type.String({ maxLength: 200, description: "Must name an approved character or faction of the campaign" })),
  quest_category: QuestCategory,
  status: { ...QuestStatus, description: "Ignored when objectives are sent: the status is then derived from them" },
  success_definition: Narrative("What success looks like"),
  failure_conditions: Narrative("What failure looks like"),
  next_action: Narrative("The party's next step"),
  resolution: Narrative("How it ended"),
  objectives: Type.Array(Type.Union([Type.String({ maxLength: 2000 }), Type.Object({ text: Type.String({ maxLength: 2000 }), status: Type.Optional(ObjectiveStatus) })]), {
    maxItems: 200,
    description: "Replaces the whole list and recomputes the status",
  }),
  progress_log: Type.Array(Type.Union([Type.String({ maxLength: 5000 }), Type.Object({ text: Type.String({ maxLength: 5000 }), session_id: Type.Optional(Nullable(Id())) })]), {
    maxItems: 500,
    description: "Replaces the progress list; an entry may cite a session of the campaign",
  }),
  related_characters: LabelList("characters"),
  related_factions: LabelList("factions"),
  related_locations: LabelList("locations"),
  related_items: LabelList("items"),
  related_entity_refs: Type.Array(
    Type.Object({
      entity_type: QuestEntityType,
      entity_id: Type.Optional(Nullable(Id("Must exist in the campaign"))),
      entity_name_snapshot: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
      label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    }),
    { maxItems: 200, description: "Replaces the whole related-entity set" },
  ),
};

export const QuestCreate = Type.Object(
  { campaign_id: Id("Campaign id"), quest_name: Type.String({ maxLength: 300 }), ...Type.Partial(Type.Object(questInputFields)).properties },
  { title: "QuestCreate" },
);
export const QuestUpdate = Type.Partial(Type.Object({ quest_name: Type.String({ maxLength: 300 }), ...questInputFields }), { title: "QuestUpdate" });

export const QuestListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of name, giver or narrative fields" })),
  status: Type.Optional(QuestStatus),
  quest_category: Type.Optional(QuestCategory),
  ...PageQuery,
});

const QUESTS =
  "Quests are the campaign's quest log. Status is derived from the objectives whenever objectives are sent (all completed → done, any in progress → in-progress, else any blocked → blocked, else every unfinished one failed → failed, else some completed → in-progress, else planned); otherwise a sent status applies.";

const quest = plainRows({ name: "Quest", tag: "Quests", record: "quests", readScope: "worlds_read", maxBodyBytes: BODY_LIMITS.quest });

export const questOperations = defineOperations({ publishedAt: 90 }, [
  quest.list({
    description: `Lists quest summaries (with objective, progress and related counts, first and last session) in quest-log order. search matches name, giver and the narrative fields. ${QUESTS}`,
    campaign: byQueryCampaign,
    input: { query: QuestListQuery },
    output: PageOf(QuestSummary, "QuestPage"),
    run: ({ deps, caller, access }, { query }) =>
      quests.listQuests(deps, caller, access, { search: query.search, status: query.status, quest_category: query.quest_category }, { page: query.page, size: query.size }),
  }),
  quest.create({
    description: `Adds a quest to the end of the log. Objectives may be strings or {text, status}; related entities come as related_entity_refs and/or per-type label arrays. ${QUESTS}`,
    campaign: byBodyCampaign,
    input: { body: QuestCreate },
    output: Quest,
    run: ({ deps, caller, access }, { body: { campaign_id, ...patch } }) => quests.createQuest(deps, caller, access, patch),
  }),
  quest.get({ description: `Reads one quest in full. ${QUESTS}`, output: Quest, use: quests.getQuest }),
  // Sending the same progress twice logs it twice.
  quest.update({ description: `Patch rules: omitted fields stay; objectives replace the list and recompute the status; related_entity_refs replace the whole set; each per-type array (related_characters, …) replaces only its own bucket; progress_log replaces the progress list; status applies only when objectives are omitted. ${QUESTS}`, idempotent: false, body: QuestUpdate, output: Quest, use: quests.updateQuest }),
  quest.remove({ description: "Removes a quest from the log.", use: quests.deleteQuest }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    quests: typeof questOperations;
  }
}
