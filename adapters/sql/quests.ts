// Quests on SQL.
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import type { QuestRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { offsetOf } from "../../domain/pagination.ts";
import { counted, countedBy, likePattern, paged, searchedPage, Where } from "./rows.ts";
import { campaignRecord, crud, integer, jsonb, oneOf, table, text, textOrNull, timestamps } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

/** Name, giver and the narrative fields: what quest search matches. */
const questSearchText = (q: Quest) =>
  [q.quest_name, q.quest_giver, q.success_definition, q.failure_conditions, q.next_action, q.resolution, ...q.objectives.map((o) => o.text), ...q.progress_log_entries.map((e) => e.text)]
    .filter(Boolean)
    .join("\n");

const QUESTS = table<Quest>(
  "quests",
  {
    ...campaignRecord,
    order_index: integer,
    quest_name: text,
    quest_giver: textOrNull,
    quest_giver_id: textOrNull,
    quest_category: oneOf<QuestCategory>(),
    status: oneOf<QuestStatus>(),
    success_definition: textOrNull,
    failure_conditions: textOrNull,
    next_action: textOrNull,
    resolution: textOrNull,
    objectives: jsonb<Quest["objectives"]>([]),
    progress_log_entries: jsonb<Quest["progress_log_entries"]>([]),
    related_entity_refs: jsonb<Quest["related_entity_refs"]>([]),
    ...timestamps,
  },
  { addressedAs: "quests", written: { search_text: { value: questSearchText } } },
);

export function quests(db: SqlExecutor): QuestRepository {
  return {
    ...crud(db, QUESTS),
    async list(campaignId, filters, page) {
      if (filters.search) {
        // The page and its exact total from the word starts (migration 0046) and heads (0050).
        const { rows, total } = await searchedPage(db, `quest_search_page($1, $2, $3, $4, $5, $6, $7)`, "quests", QUESTS.columns("r"),
          [campaignId, filters.search, likePattern(filters.search), filters.status ?? null, filters.quest_category ?? null, page.size, offsetOf(page)]);
        return { rows: rows.map(QUESTS.toRecord), total };
      }
      const where = new Where().add(campaignId, (p) => `campaign_id = ${p}`);
      if (filters.status) where.add(filters.status, (p) => `status = ${p}`);
      if (filters.quest_category) where.add(filters.quest_category, (p) => `quest_category = ${p}`);
      // Unfiltered, by status ($2, migration 0029), by category or by both (0038) the total is a counter.
      const count = filters.status && filters.quest_category ? countedBy("$1", "quests:status:", `($2::text || ':category:' || $3)`)
        : filters.status ? countedBy("$1", "quests:status:", "$2")
        : filters.quest_category ? countedBy("$1", "quests:category:", "$2")
        : counted("$1", "quests");
      const { rows, total } = await paged(db, QUESTS.columns(), `from quests where ${where.sql}`, `order_index, created_at, id`, where.params, page, count, !filters.status && !filters.quest_category);
      return { rows: rows.map(QUESTS.toRecord), total };
    },
    async nextOrderIndex(campaignId) {
      const [row] = await db.query(`select coalesce(max(order_index) + 1, 0)::int as next from quests where campaign_id = $1`, [campaignId]);
      return Number(row!.next);
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { quests } satisfies SqlRepositories;
