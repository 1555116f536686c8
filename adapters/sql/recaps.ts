// Recap cards (hero awards, quotes, spotlights) on SQL.
import type { HeroAward, RecapEntry } from "../../domain/recaps.ts";
import type { RecapRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { offsetOf, type PageRequest } from "../../domain/pagination.ts";
import { counted, iso, likePattern, paged, searchedPage, str, Where } from "./rows.ts";
import { campaignRecord, crud, integer, jsonb, oneOf, table, text, textOrNull, timestamps, timestamptz } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

/** A hero award with its card image, written with it and read apart (`awardCard`). */
const AWARDS = table<HeroAward, Uint8Array | null>(
  "hero_awards",
  {
    ...campaignRecord,
    session_id: text,
    title: text,
    description: text,
    character_name: text,
    player_name: textOrNull,
    tone_mode: text,
    award_mode: text,
    style: text,
    variant: text,
    custom_theme: jsonb<HeroAward["custom_theme"]>(null),
    order_index: integer,
    ...timestamps,
  },
  {
    addressedAs: "hero_awards",
    written: { card_png: { value: (_, card) => (card === null ? null : Buffer.from(card).toString("base64")), placeholder: (param) => `decode(${param}, 'base64')` } },
  },
);

const ENTRIES = table<RecapEntry>("recap_entries", {
  ...campaignRecord,
  session_id: text,
  entry_type: oneOf<RecapEntry["entry_type"]>(),
  pipeline_id: textOrNull,
  recap_set_id: textOrNull,
  text: textOrNull,
  speaker: textOrNull,
  character_name: textOrNull,
  context: textOrNull,
  title: textOrNull,
  description: textOrNull,
  player_name: textOrNull,
  style: textOrNull,
  custom_theme: jsonb<RecapEntry["custom_theme"]>(null),
  order_index: integer,
  source_moment_id: textOrNull,
  ...timestamps,
}, { addressedAs: { quotes: "entry_type = 'quote'", spotlights: "entry_type = 'spotlight'" } });

/** The expression of recap_entries_search_trgm (migration 0051), as the index has it. */
const ENTRY_SEARCHED = `(coalesce(text, '') || ' ' || coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(character_name, '') || ' ' || coalesce(speaker, ''))`;

const recapWhere = (filters: { campaignId?: string; sessionId?: string }, where = new Where()) => {
  if (filters.campaignId) where.add(filters.campaignId, (p) => `campaign_id = ${p}`);
  if (filters.sessionId) where.add(filters.sessionId, (p) => `session_id = ${p}`);
  return where;
};

/**
 * A search by campaign from the cards' heads (migration 0053): the page in list order and its exact total.
 * Null when the heads cannot answer (recap_search_page's total -1): the caller takes 0051's path.
 */
async function cardPage(db: SqlExecutor, table: "hero_awards" | "recap_entries", columns: string, kind: string, campaignId: string, search: string, page: PageRequest) {
  const found = await searchedPage(db, `recap_search_page($1, $2, $3, $4, $5)`, table, columns, [campaignId, kind, search, page.size, offsetOf(page)]);
  return found.total < 0 ? null : found;
}

export function recaps(db: SqlExecutor): RecapRepository {
  const awards = crud(db, AWARDS);
  const entries = crud(db, ENTRIES);
  return {
    async pipeline(campaignId, sessionId, source, make) {
      const fresh = make();
      await db.query(
        `insert into recap_pipelines (id, campaign_id, session_id, source, recap_set_id, created_at) values ($1, $2, $3, $4, $5, $6::timestamptz)
         on conflict (session_id, source) do nothing`,
        [fresh.id, campaignId, sessionId, source, fresh.recap_set_id, fresh.created_at],
      );
      const [row] = await db.query(`select * from recap_pipelines where session_id = $1 and source = $2`, [sessionId, source]);
      return { id: str(row!.id), campaign_id: str(row!.campaign_id), session_id: str(row!.session_id), source: str(row!.source), recap_set_id: str(row!.recap_set_id), created_at: iso(row!.created_at) };
    },
    async countPipelines(sessionId) {
      return Number((await db.query(`select count(*)::int as n from recap_pipelines where session_id = $1`, [sessionId]))[0]!.n);
    },
    insertAward: awards.insert,
    replaceAward: awards.replace,
    getAward: awards.get,
    async awardCard(id) {
      const [row] = await db.query(`select encode(card_png, 'base64') as png from hero_awards where id = $1`, [id]);
      return row?.png ? new Uint8Array(Buffer.from(str(row.png), "base64")) : null;
    },
    async listAwards(filters, page) {
      if (filters.search && filters.campaignId && !filters.sessionId) {
        const found = await cardPage(db, "hero_awards", AWARDS.columns("r"), "award", filters.campaignId, filters.search, page);
        if (found) return { rows: found.rows.map(AWARDS.toRecord), total: found.total };
      }
      const where = recapWhere(filters);
      // The join is what the trigram index holds (migration 0051); the fields' own test keeps the answer exact.
      if (filters.search)
        where.add(likePattern(filters.search), (p) => `(title || ' ' || description || ' ' || character_name) ilike ${p} and (title ilike ${p} or description ilike ${p} or character_name ilike ${p})`);
      // The campaign's whole list counts from its counter (migration 0022); a session's or a search's counts its matches.
      const plain = Boolean(filters.campaignId) && !filters.sessionId && !filters.search;
      const { rows, total } = await paged(db, AWARDS.columns(), `from hero_awards where ${where.sql}`, `order_index, created_at, id`, where.params, page, plain ? counted("$1", "hero_awards") : undefined, plain);
      return { rows: rows.map(AWARDS.toRecord), total };
    },
    deleteAward: awards.delete,
    insertEntry: entries.insert,
    replaceEntry: entries.replace,
    getEntry: entries.get,
    async listEntries(type, filters, page) {
      if (filters.search && filters.campaignId && !filters.sessionId) {
        const found = await cardPage(db, "recap_entries", ENTRIES.columns("r"), type, filters.campaignId, filters.search, page);
        if (found) return { rows: found.rows.map(ENTRIES.toRecord), total: found.total };
      }
      const where = recapWhere(filters, new Where().add(type, (p) => `entry_type = ${p}`));
      if (filters.search)
        where.add(likePattern(filters.search), (p) => `${ENTRY_SEARCHED} ilike ${p} and (text ilike ${p} or title ilike ${p} or description ilike ${p} or character_name ilike ${p} or speaker ilike ${p})`);
      const plain = Boolean(filters.campaignId) && !filters.sessionId && !filters.search;
      const { rows, total } = await paged(db, ENTRIES.columns(), `from recap_entries where ${where.sql}`, `order_index, created_at, id`, where.params, page, plain ? counted("$2", `${type}s`) : undefined, plain);
      return { rows: rows.map(ENTRIES.toRecord), total };
    },
    deleteEntry: entries.delete,
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { recaps } satisfies SqlRepositories;
