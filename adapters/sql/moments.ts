// Moments on SQL.
import type { Moment } from "../../domain/moments.ts";
import type { MomentRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, jsonOrNull, likePattern, lockClause, num, paged, str, strOrNull } from "./rows.ts";

const toMoment = (row: Row): Moment => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  session_id: strOrNull(row.session_id),
  label: strOrNull(row.label),
  content: strOrNull(row.content),
  image: strOrNull(row.image),
  index: row.index == null ? null : num(row.index),
  categories: jsonArray(row.categories),
  kind: str(row.kind),
  metadata: (row.metadata ?? null) as Moment["metadata"],
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const momentParams = (m: Moment) => [m.id, m.campaign_id, m.session_id, m.label, m.content, m.image, m.index, json(m.categories), m.kind, jsonOrNull(m.metadata), m.created_at, m.updated_at];

export function moments(db: SqlExecutor): MomentRepository {
  return {
    async insert(m) {
      await db.query(
        `insert into moments (id, campaign_id, session_id, label, content, image, index, categories, kind, metadata, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10::text::jsonb, $11::timestamptz, $12::timestamptz)`,
        momentParams(m),
      );
    },
    async replace(m) {
      await db.query(
        `update moments set campaign_id = $2, session_id = $3, label = $4, content = $5, image = $6, index = $7, categories = $8::text::jsonb, kind = $9,
           metadata = $10::text::jsonb, created_at = $11::timestamptz, updated_at = $12::timestamptz where id = $1`,
        momentParams(m),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from moments where id = $1${lockClause(options)}`, [id]);
      return row ? toMoment(row) : null;
    },
    async list(filters, page) {
      const params: unknown[] = [];
      const where: string[] = [];
      const add = (clause: (at: number) => string, value: unknown) => {
        params.push(value);
        where.push(clause(params.length));
      };
      if (filters.campaignId) add((at) => `m.campaign_id = $${at}`, filters.campaignId);
      if (filters.sessionId) add((at) => `m.session_id = $${at}`, filters.sessionId);
      if (filters.sessionIds?.length) add((at) => `m.session_id = any (select jsonb_array_elements_text($${at}::text::jsonb))`, json(filters.sessionIds));
      if (filters.search) add((at) => `m.label ilike $${at}`, likePattern(filters.search));
      if (filters.categories?.length) add((at) => `m.categories ?| array(select jsonb_array_elements_text($${at}::text::jsonb))`, json(filters.categories));
      if (filters.kind) add((at) => `m.kind = $${at}`, filters.kind);
      if (filters.linkedTo?.length)
        add((at) => `exists (select 1 from links l where l.from_type = 'Moment' and l.from_id = m.id and l.to_id = any (select jsonb_array_elements_text($${at}::text::jsonb)))`, json(filters.linkedTo));
      const { rows, total } = await paged(db, "*", `from moments m where ${where.join(" and ") || "true"}`, `m.created_at desc, m.id desc`, params, page);
      return { rows: rows.map(toMoment), total };
    },
    async delete(id) {
      return (await db.query(`delete from moments where id = $1 returning id`, [id])).length > 0;
    },
  };
}
