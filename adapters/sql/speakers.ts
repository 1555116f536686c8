// Speakers on SQL.
import type { Speaker } from "../../domain/speakers.ts";
import type { SpeakerRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { campaignRecord, crud, table, text, textList, textOrNull, timestamptz } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const SPEAKERS = table<Speaker>("speakers", {
  ...campaignRecord,
  name: text,
  handle: textOrNull,
  user_id: textOrNull,
  roles: textList,
  created_at: timestamptz,
});

export function speakers(db: SqlExecutor): SpeakerRepository {
  return {
    async insert(s) {
      const [row] = await db.query(`${SPEAKERS.insertSql} on conflict (campaign_id, lower(name)) do nothing returning *`, SPEAKERS.insertParams(s));
      return row ? SPEAKERS.toRecord(row) : null;
    },
    get: crud(db, SPEAKERS).get,
    async list(campaignId) {
      const rows = await db.query(`select ${SPEAKERS.columns()} from speakers where campaign_id = $1 order by created_at, id`, [campaignId]);
      return rows.map(SPEAKERS.toRecord);
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { speakers } satisfies SqlRepositories;
