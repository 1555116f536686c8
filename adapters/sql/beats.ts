// Beats on SQL.
import type { Beat, BeatType } from "../../domain/beats.ts";
import type { BeatRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, jsonOrNull, lockClause, num, paged, str, strOrNull } from "./rows.ts";

const toBeat = (row: Row): Beat => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  label: str(row.label),
  type: str(row.type) as BeatType,
  description: strOrNull(row.description),
  index: num(row.index),
  parent_id: strOrNull(row.parent_id),
  metadata: (row.metadata ?? null) as Beat["metadata"],
  game_session_ids: jsonArray(row.game_session_ids),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const beatParams = (b: Beat) => [b.id, b.campaign_id, b.label, b.type, b.description, b.index, b.parent_id, jsonOrNull(b.metadata), json(b.game_session_ids), b.created_at, b.updated_at];

export function beats(db: SqlExecutor): BeatRepository {
  return {
    async insert(b) {
      await db.query(
        `insert into beats (id, campaign_id, label, type, description, index, parent_id, metadata, game_session_ids, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9::text::jsonb, $10::timestamptz, $11::timestamptz)`,
        beatParams(b),
      );
    },
    async replace(b) {
      await db.query(
        `update beats set campaign_id = $2, label = $3, type = $4, description = $5, index = $6, parent_id = $7, metadata = $8::text::jsonb,
           game_session_ids = $9::text::jsonb, created_at = $10::timestamptz, updated_at = $11::timestamptz where id = $1`,
        beatParams(b),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from beats where id = $1${lockClause(options)}`, [id]);
      return row ? toBeat(row) : null;
    },
    async listByCampaign(campaignId, page) {
      const { rows, total } = await paged(db, "*", `from beats where campaign_id = $1`, `index, created_at, id`, [campaignId], page);
      return { rows: rows.map(toBeat), total };
    },
    async listBySession(sessionId, page) {
      const { rows, total } = await paged(db, "*", `from beats where game_session_ids ? $1`, `index, created_at, id`, [sessionId], page);
      return { rows: rows.map(toBeat), total };
    },
    async allBySession(sessionId) {
      return (await db.query(`select * from beats where game_session_ids ? $1 order by index, created_at, id`, [sessionId])).map(toBeat);
    },
    async ancestry(id) {
      const rows = await db.query(
        `with recursive up(id, parent_id, depth) as (
           select id, parent_id, 0 from beats where id = $1
           union all
           select b.id, b.parent_id, up.depth + 1 from beats b join up on b.id = up.parent_id where up.depth < 10000
         ) cycle id set looped using path
         select id, parent_id from up`,
        [id],
      );
      return new Map(rows.map((row) => [str(row.id), strOrNull(row.parent_id)]));
    },
    async orphanChildren(id, at) {
      return (await db.query(`update beats set parent_id = null, updated_at = $2::timestamptz where parent_id = $1 returning id`, [id, at])).length;
    },
    async forgetSession(sessionId) {
      await db.query(
        `update beats set game_session_ids = (select coalesce(jsonb_agg(value), '[]'::jsonb) from jsonb_array_elements_text(game_session_ids) value where value <> $1)
         where game_session_ids ? $1`,
        [sessionId],
      );
    },
    async delete(id) {
      return (await db.query(`delete from beats where id = $1 returning id`, [id])).length > 0;
    },
  };
}
