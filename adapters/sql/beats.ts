// Beats on SQL.
import type { Beat, BeatType } from "../../domain/beats.ts";
import type { BeatRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { counted, paged } from "./rows.ts";
import { ancestry, campaignRecord, crud, integer, jsonb, oneOf, table, text, textList, textOrNull, timestamps, timestamptz } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const BEATS = table<Beat>("beats", {
  ...campaignRecord,
  label: text,
  type: oneOf<BeatType>(),
  description: textOrNull,
  index: integer,
  parent_id: textOrNull,
  metadata: jsonb<Beat["metadata"]>(null),
  game_session_ids: textList,
  ...timestamps,
}, { addressedAs: "beats" });
const COLUMNS = BEATS.columns();
const toBeat = BEATS.toRecord;

export function beats(db: SqlExecutor): BeatRepository {
  return {
    ...crud(db, BEATS),
    async listByCampaign(campaignId, page) {
      const { rows, total } = await paged(db, COLUMNS, `from beats where campaign_id = $1`, `index, created_at, id`, [campaignId], page, counted("$1", "beats"), true);
      return { rows: rows.map(toBeat), total };
    },
    async listBySession(sessionId, page) {
      const { rows, total } = await paged(db, COLUMNS, `from beats where game_session_ids ? $1`, `index, created_at, id`, [sessionId], page);
      return { rows: rows.map(toBeat), total };
    },
    async allBySession(sessionId) {
      return (await db.query(`select ${COLUMNS} from beats where game_session_ids ? $1 order by index, created_at, id`, [sessionId])).map(toBeat);
    },
    ancestry: (id) => ancestry(db, "beats", id),
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
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { beats } satisfies SqlRepositories;
