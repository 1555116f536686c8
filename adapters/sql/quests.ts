// Quests on SQL.
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import type { QuestRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, likePattern, lockClause, paged, str, strOrNull } from "./rows.ts";

const toQuest = (row: Row): Quest => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  order_index: Number(row.order_index),
  quest_name: str(row.quest_name),
  quest_giver: strOrNull(row.quest_giver),
  quest_giver_id: strOrNull(row.quest_giver_id),
  quest_category: str(row.quest_category) as QuestCategory,
  status: str(row.status) as QuestStatus,
  success_definition: strOrNull(row.success_definition),
  failure_conditions: strOrNull(row.failure_conditions),
  next_action: strOrNull(row.next_action),
  resolution: strOrNull(row.resolution),
  objectives: (row.objectives ?? []) as Quest["objectives"],
  progress_log_entries: (row.progress_log_entries ?? []) as Quest["progress_log_entries"],
  related_entity_refs: (row.related_entity_refs ?? []) as Quest["related_entity_refs"],
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

/** Name, giver and the narrative fields: what quest search matches. */
const questSearchText = (q: Quest) =>
  [q.quest_name, q.quest_giver, q.success_definition, q.failure_conditions, q.next_action, q.resolution, ...q.objectives.map((o) => o.text), ...q.progress_log_entries.map((e) => e.text)]
    .filter(Boolean)
    .join("\n");

const questParams = (q: Quest) => [
  q.id,
  q.campaign_id,
  q.order_index,
  q.quest_name,
  q.quest_giver,
  q.quest_giver_id,
  q.quest_category,
  q.status,
  q.success_definition,
  q.failure_conditions,
  q.next_action,
  q.resolution,
  json(q.objectives),
  json(q.progress_log_entries),
  json(q.related_entity_refs),
  questSearchText(q),
  q.created_at,
  q.updated_at,
];

export function quests(db: SqlExecutor): QuestRepository {
  return {
    async insert(q) {
      await db.query(
        `insert into quests (id, campaign_id, order_index, quest_name, quest_giver, quest_giver_id, quest_category, status, success_definition,
           failure_conditions, next_action, resolution, objectives, progress_log_entries, related_entity_refs, search_text, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::text::jsonb, $14::text::jsonb, $15::text::jsonb, $16, $17::timestamptz, $18::timestamptz)`,
        questParams(q),
      );
    },
    async replace(q) {
      await db.query(
        `update quests set campaign_id = $2, order_index = $3, quest_name = $4, quest_giver = $5, quest_giver_id = $6, quest_category = $7, status = $8,
           success_definition = $9, failure_conditions = $10, next_action = $11, resolution = $12, objectives = $13::text::jsonb,
           progress_log_entries = $14::text::jsonb, related_entity_refs = $15::text::jsonb, search_text = $16, created_at = $17::timestamptz,
           updated_at = $18::timestamptz
         where id = $1`,
        questParams(q),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from quests where id = $1${lockClause(options)}`, [id]);
      return row ? toQuest(row) : null;
    },
    async list(campaignId, filters, page) {
      const params: unknown[] = [campaignId];
      const where = [`campaign_id = $1`];
      if (filters.status) {
        params.push(filters.status);
        where.push(`status = $${params.length}`);
      }
      if (filters.quest_category) {
        params.push(filters.quest_category);
        where.push(`quest_category = $${params.length}`);
      }
      if (filters.search) {
        params.push(likePattern(filters.search));
        where.push(`search_text ilike $${params.length}`);
      }
      const { rows, total } = await paged(db, "*", `from quests where ${where.join(" and ")}`, `order_index, created_at, id`, params, page);
      return { rows: rows.map(toQuest), total };
    },
    async nextOrderIndex(campaignId) {
      const [row] = await db.query(`select coalesce(max(order_index) + 1, 0)::int as next from quests where campaign_id = $1`, [campaignId]);
      return Number(row!.next);
    },
    async delete(id) {
      return (await db.query(`delete from quests where id = $1 returning id`, [id])).length > 0;
    },
  };
}
