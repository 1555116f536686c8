// The change feed on SQL: rows are written by the triggers of migration 0011; this reads and prunes them.
import type { Change, ChangeOp, ChangeRepository } from "../../ports/records/changes.ts";
import type { Row, SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";
import { iso, num, strOrNull } from "./rows.ts";

export const changeOf = (row: Row): Change => ({
  seq: num(row.seq),
  kind: String(row.kind),
  id: String(row.record_id),
  op: row.op as ChangeOp,
  at: iso(row.at),
  actor_id: strOrNull(row.actor_id),
});

/** A change the viewer may read: one of the whole campaign's, or of a record whose audience names them. */
export const VISIBLE_TO = (viewer: string) => `(audience is null or audience ? ${viewer})`;

export function changes(db: SqlExecutor): ChangeRepository {
  return {
    async position(campaignId) {
      const [row] = await db.query(`select last_seq, pruned_through from change_counters where campaign_id = $1`, [campaignId]);
      return { last_seq: row ? num(row.last_seq) : 0, pruned_through: row ? num(row.pruned_through) : 0 };
    },
    async list(campaignId, after, upTo, limit, viewerId) {
      const rows = await db.query(
        `select seq, kind, record_id, op, at, actor_id from changes
         where campaign_id = $1 and seq > $2 and seq <= $3 and ${VISIBLE_TO("$4::text")}
         order by seq limit $5`,
        [campaignId, after, upTo, viewerId, limit],
      );
      return rows.map(changeOf);
    },
    async prune(before) {
      // Per campaign: the newest change old enough to go, held back by enabled webhooks still behind it.
      const rows = await db.query<{ n: number }>(
        `with cut as (
           select c.campaign_id,
                  least(max(c.seq), coalesce((select min(w.cursor) from webhook_endpoints w where w.campaign_id = c.campaign_id and w.enabled), max(c.seq))) as upto
           from changes c where c.at < $1::timestamptz group by c.campaign_id
         ), gone as (
           delete from changes d using cut where d.campaign_id = cut.campaign_id and d.seq <= cut.upto returning d.campaign_id, d.seq
         ), marked as (
           update change_counters k set pruned_through = greatest(k.pruned_through, g.upto)
           from (select campaign_id, max(seq) as upto from gone group by campaign_id) g where k.campaign_id = g.campaign_id
           returning 1
         )
         select count(*)::int as n from gone`,
        [before],
      );
      return rows[0]?.n ?? 0;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { changes } satisfies SqlRepositories;
