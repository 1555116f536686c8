// The planner's statistics of the tables that grow with a campaign (issue 15), gathered by the service.
// A campaign written record by record through the API and read at once had none: PGlite runs no
// autovacuum, and a PostgreSQL server may run it late or not at all. Without them `campaign_id = $1`
// is guessed at 0.5 % of a table, so a first page of a campaign of 16,000 characters was a bitmap of
// the whole campaign sorted for 20 rows, and a name search read every row of the campaign instead of
// the text index. The growth test is the table's size on disk against the pages the last ANALYZE saw
// (pg_class.relpages): the same on both engines (PGlite's activity counters lag).
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
};

/** Tables under this many pages (~80 kB) are read whole faster than any plan can go wrong. */
const MIN_PAGES = 10;

export function statistics(db: SqlExecutor): PlannerStatistics {
  return {
    async refresh() {
      const grown = await db.query(
        `select c.relname from pg_class c
         where c.relname = any (string_to_array($1, ',')) and c.relkind = 'r' and c.relnamespace = 'public'::regnamespace
           and pg_relation_size(c.oid) / current_setting('block_size')::int > greatest(c.relpages * 1.2, $2)
         order by c.relname`,
        [Object.keys(ANALYZED).join(","), MIN_PAGES],
      );
      const names = grown.map((row) => String(row.relname));
      for (const name of names) await db.query(`analyze ${name} (${ANALYZED[name]!.join(", ")})`);
      return names;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { statistics } satisfies SqlRepositories;
