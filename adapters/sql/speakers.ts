// Speakers on SQL.
import type { Speaker } from "../../domain/speakers.ts";
import type { SpeakerRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, json, jsonArray, str, strOrNull } from "./rows.ts";

const toSpeaker = (row: Row): Speaker => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  name: str(row.name),
  handle: strOrNull(row.handle),
  user_id: strOrNull(row.user_id),
  roles: jsonArray(row.roles),
  created_at: iso(row.created_at),
});

export function speakers(db: SqlExecutor): SpeakerRepository {
  return {
    async insert(s) {
      const [row] = await db.query(
        `insert into speakers (id, campaign_id, name, handle, user_id, roles, created_at)
         values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::timestamptz)
         on conflict (campaign_id, lower(name)) do nothing returning *`,
        [s.id, s.campaign_id, s.name, s.handle, s.user_id, json(s.roles), s.created_at],
      );
      return row ? toSpeaker(row) : null;
    },
    async get(id) {
      const [row] = await db.query(`select * from speakers where id = $1`, [id]);
      return row ? toSpeaker(row) : null;
    },
    async list(campaignId) {
      const rows = await db.query(`select * from speakers where campaign_id = $1 order by created_at, id`, [campaignId]);
      return rows.map(toSpeaker);
    },
  };
}
