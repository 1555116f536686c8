// The planner's statistics of the tables that grow with a campaign (issue 15), gathered by the service.
// A campaign written record by record through the API and read at once had none: PGlite runs no
// autovacuum, and a PostgreSQL server may run it late or not at all. Without them `campaign_id = $1`
// is guessed at 0.5 % of a table, so a first page of a campaign of 16,000 characters was a bitmap of
// the whole campaign sorted for 20 rows, and a name search read every row of the campaign instead of
// the text index. The growth test is the table's size on disk against the pages the last ANALYZE saw
// (pg_class.relpages): the same on both engines (PGlite's activity counters lag).
//
// The same pass keeps the visibility map of the tables read by index-only scans: such a scan skips a
// row's table page only when the map says it is all-visible, and only VACUUM sets that. Without
// autovacuum (PGlite; a server with it off or late) a list search's total from search_terms visited a
// table page per word entry, as the text index's count did before 0025.
import type { PlannerStatistics } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";

/**
 * The tables, each with the columns whose statistics the list and search plans need: the campaign and
 * the columns a list filters on. Only those: an ANALYZE of the text columns (tsvector statistics)
 * cost most of the time, and PGlite serves nothing else while it runs.
 */
export const ANALYZED: Record<string, string[]> = {
  characters: ["campaign_id", "approved", "type"],
  entities: ["campaign_id", "kind"],
  links: ["campaign_id", "from_type", "to_type"],
  search_documents: ["campaign_id", "doc_type"],
  quests: ["campaign_id"],
  sessions: ["campaign_id"],
  beats: ["campaign_id"],
  moments: ["campaign_id"],
  journal_entries: ["campaign_id", "is_public", "author_id"],
  ask_passages: ["campaign_id"],
  // List search's word tables (0025): with no statistics the count's generic plan (0026) kept the
  // list as a filter and read every word of the campaign (API-seeded 10k: 1,485 buffers, 8 ms for
  // 64 entries); with them the list is part of the index range.
  search_terms: ["campaign_id", "list", "term"],
  search_vocabulary: ["campaign_id", "list"],
  // Cross-type search's title words (0030), read by the similar-titles step's generic plan.
  search_title_terms: ["campaign_id", "term"],
  search_title_vocabulary: ["campaign_id"],
  // Quest search's word starts (0046). Its vocabulary (as moments' and the recap cards') is only
  // written since 0056, by key: nothing to analyse.
  quest_search_entries: ["campaign_id", "word"],
  // Its pages in log order per word and head (0050).
  quest_search_heads: ["campaign_id", "word"],
  // Moment search's word starts (0051, read as quests' 0046 are).
  moment_search_entries: ["campaign_id", "word"],
  // Moment search's pages newest first per word and head (0052).
  moment_search_heads: ["campaign_id", "word"],
  // Award and quote/spotlight search's pages in list order per kind, word and head (0053).
  recap_search_heads: ["campaign_id", "kind", "word"],
  // The vocabularies' words by suffix, per kind and campaign (0056): every search above looks its words up there.
  search_word_suffixes: ["kind", "campaign_id"],
  // The counts of heads by kind: moments' (0052), the recap cards' (0053) and quests' (0050, moved here by 0055).
  search_head_counts: ["kind", "campaign_id", "word"],
};

/**
 * The tables read by index-only scans: list search totals, substring pages and similar names
 * (search_terms), cross-type similar titles (search_title_terms), Ask's
 * postings, counts and passage lengths (ask_terms, ask_counts, ask_passages_by_campaign), a
 * session's number (sessions_by_campaign_date), quest search's matches (quest_search_entries, 0046)
 * and pages (quest_search_heads, 0050), moment search's matches and pages (moment_search_entries, 0051;
 * moment_search_heads, 0052), award and quote/spotlight search's pages (recap_search_heads, 0053), and
 * those searches' vocabulary lookups (search_word_suffixes, 0056).
 * Only VACUUM marks their pages all-visible.
 * Also Ask's packed lists (0037): each build replaces a campaign's rows whole, and the old ones'
 * space (135 MB at 105k passages, most of it TOAST) is reused only after a vacuum (PGlite has no autovacuum).
 * Also the list search's counters (search_vocabulary, search_prefix_counts): every write of a record
 * rewrites some of their rows, and with autovacuum off or late their dead versions piled up (589,300
 * beside 153,344 live prefix counters after an API seed at 100k), read by every lookup of them.
 */
export const VACUUMED = [
  "ask_counts", "ask_packed", "ask_passages", "ask_terms", "moment_search_entries", "moment_search_heads", "quest_search_entries", "quest_search_heads", "recap_search_heads",
  "search_prefix_counts", "search_terms", "search_title_terms", "search_vocabulary", "search_word_suffixes", "sessions",
];

/** Tables under this many pages (~80 kB) are read whole faster than any plan can go wrong. */
const MIN_PAGES = 10;

/**
 * A table is vacuumed once this share of its pages is not known all-visible, or of its rows was
 * written since this store last vacuumed it. VACUUM reads only the pages not all-visible, so each
 * pass costs about what was written since the last (PGlite serves nothing else while it runs).
 */
const STALE_SHARE = 0.05;

/**
 * Only tables this user may vacuum and analyse (their owner's privileges, or the database owner's):
 * for any other both only warn and change nothing, so the pass would try again every time.
 */
const MAINTAINABLE = `(pg_has_role(c.relowner, 'USAGE')
  or pg_has_role((select d.datdba from pg_database d where d.datname = current_database()), 'USAGE'))`;

export function statistics(db: SqlExecutor): PlannerStatistics {
  // Per table: rows written (pg_stat counters) and pages not all-visible after this store's last
  // vacuum of it. A vacuum that could not mark some pages (an old snapshot still sees their dead
  // rows) is not run again until more is written.
  const vacuumed = new Map<string, { written: number; notVisible: number }>();
  return {
    async refresh() {
      const grown = await db.query(
        `select c.relname from pg_class c cross join lateral (select pg_relation_size(c.oid) / current_setting('block_size')::int as pages) size
         where c.relname = any (string_to_array($1, ',')) and c.relkind = 'r' and c.relnamespace = 'public'::regnamespace
           and ${MAINTAINABLE} and size.pages > $2
           and (size.pages > c.relpages * 1.2
             -- Never analysed but vacuumed (a vacuum sets relpages too): the growth test alone missed it.
             or not exists (select 1 from pg_stats s where s.schemaname = 'public' and s.tablename = c.relname))
         order by c.relname`,
        [Object.keys(ANALYZED).join(","), MIN_PAGES],
      );
      const names = grown.map((row) => String(row.relname));
      for (const name of names) await db.query(`analyze ${name} (${ANALYZED[name]!.join(", ")})`);
      return names;
    },
    async refreshVisibility() {
      // Pages past relpages are new since the last VACUUM or ANALYZE (both set relallvisible); the
      // counters add what was rewritten in place (they lag by a second or so, on PGlite too).
      const tables = await db.query(
        `select c.relname, greatest(0, pg_relation_size(c.oid) / current_setting('block_size')::int) as pages, c.relallvisible,
                greatest(c.reltuples, 0) as tuples, coalesce(s.n_tup_ins + s.n_tup_upd + s.n_tup_del, 0) as written,
                coalesce(s.n_ins_since_vacuum + s.n_dead_tup, 0) as since_vacuum
         from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
         where c.relname = any (string_to_array($1, ',')) and c.relkind = 'r' and c.relnamespace = 'public'::regnamespace and ${MAINTAINABLE}
         order by c.relname`,
        [VACUUMED.join(",")],
      );
      const done: string[] = [];
      for (const table of tables) {
        const name = String(table.relname);
        const pages = Number(table.pages);
        const notVisible = Math.max(0, pages - Number(table.relallvisible));
        const written = Number(table.written);
        if (pages < MIN_PAGES) continue;
        const last = vacuumed.get(name);
        const rows = Number(table.tuples) * STALE_SHARE + 50;
        const stale = last
          ? notVisible - last.notVisible > pages * STALE_SHARE || written - last.written > rows
          : notVisible > pages * STALE_SHARE || Number(table.since_vacuum) > rows;
        if (!stale) continue;
        // A table the statistics pass also analyses is analysed with it: VACUUM sets relpages, which
        // the growth test above reads as "the pages its last ANALYZE saw".
        const columns = ANALYZED[name];
        await db.query(columns ? `vacuum (skip_locked, analyze) ${name} (${columns.join(", ")})` : `vacuum (skip_locked) ${name}`);
        const [after] = await db.query(`select greatest(0, c.relpages - c.relallvisible) as not_visible from pg_class c where c.oid = $1::regclass`, [name]);
        vacuumed.set(name, { written, notVisible: Number(after?.not_visible ?? 0) });
        done.push(name);
      }
      return done;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { statistics } satisfies SqlRepositories;
