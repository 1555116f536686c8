// Moments on SQL.
import type { Moment } from "../../domain/moments.ts";
import type { MomentRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { json, likePattern, paged } from "./rows.ts";
import { crud, integerOrNull, jsonb, table, text, textList, textOrNull, timestamptz, timestamptzOrNull } from "./table.ts";

const MOMENTS = table<Moment>("moments", {
  id: text,
  campaign_id: text,
  session_id: textOrNull,
  label: textOrNull,
  content: textOrNull,
  image: textOrNull,
  index: integerOrNull,
  categories: textList,
  kind: text,
  metadata: jsonb<Moment["metadata"]>(null),
  created_at: timestamptz,
  updated_at: timestamptzOrNull,
});

export function moments(db: SqlExecutor): MomentRepository {
  return {
    ...crud(db, MOMENTS),
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
      const { rows, total } = await paged(db, MOMENTS.columns("m"), `from moments m where ${where.join(" and ") || "true"}`, `m.created_at desc, m.id desc`, params, page);
      return { rows: rows.map(MOMENTS.toRecord), total };
    },
  };
}
