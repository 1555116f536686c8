// Moments on SQL.
import type { Moment } from "../../domain/moments.ts";
import { offsetOf } from "../../domain/pagination.ts";
import type { MomentRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { counted, countedBy, json, likePattern, paged, searchedPage, Where } from "./rows.ts";
import { campaignRecord, crud, integerOrNull, jsonb, table, text, textList, textOrNull, timestamps } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const MOMENTS = table<Moment>("moments", {
  ...campaignRecord,
  session_id: textOrNull,
  label: textOrNull,
  content: textOrNull,
  image: textOrNull,
  index: integerOrNull,
  categories: textList,
  kind: text,
  metadata: jsonb<Moment["metadata"]>(null),
  ...timestamps,
}, { addressedAs: "moments" });

export function moments(db: SqlExecutor): MomentRepository {
  return {
    ...crud(db, MOMENTS),
    async list(filters, page) {
      if (filters.search && filters.campaignId && !filters.sessionId && !filters.sessionIds?.length && !filters.categories?.length && !filters.kind && !filters.linkedTo?.length) {
        // A campaign's search alone: the page and its exact total from the labels' word starts
        // (migration 0051) and heads (0052).
        const { rows, total } = await searchedPage(db, `moment_search_page($1, $2, $3, $4, $5)`, "moments", MOMENTS.columns("r"),
          [filters.campaignId, filters.search, likePattern(filters.search), page.size, offsetOf(page)]);
        return { rows: rows.map(MOMENTS.toRecord), total };
      }
      const where = new Where();
      if (filters.campaignId) where.add(filters.campaignId, (p) => `m.campaign_id = ${p}`);
      if (filters.sessionId) where.add(filters.sessionId, (p) => `m.session_id = ${p}`);
      if (filters.sessionIds?.length) where.add(json(filters.sessionIds), (p) => `m.session_id = any (select jsonb_array_elements_text(${p}::text::jsonb))`);
      if (filters.search) where.add(likePattern(filters.search), (p) => `m.label ilike ${p}`);
      if (filters.categories?.length) where.add(json(filters.categories), (p) => `m.categories ?| array(select jsonb_array_elements_text(${p}::text::jsonb))`);
      if (filters.kind) where.add(filters.kind, (p) => `m.kind = ${p}`);
      if (filters.linkedTo?.length)
        where.add(json(filters.linkedTo), (p) => `exists (select 1 from links l where l.from_type = 'Moment' and l.from_id = m.id and l.to_id = any (select jsonb_array_elements_text(${p}::text::jsonb)))`);
      // A campaign's whole list, or its moments of one kind ($2, migration 0029), counts by its
      // counter; any other filter counts its matches.
      const byCampaign = Boolean(filters.campaignId);
      const count = byCampaign && where.params.length === 1 ? counted("$1", "moments")
        : byCampaign && where.params.length === 2 && filters.kind ? countedBy("$1", "moments:kind:", "$2")
        : undefined;
      const { rows, total } = await paged(db, MOMENTS.columns("m"), `from moments m where ${where.sql}`, `m.created_at desc, m.id desc`, where.params, page, count, byCampaign && where.params.length === 1);
      return { rows: rows.map(MOMENTS.toRecord), total };
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { moments } satisfies SqlRepositories;
