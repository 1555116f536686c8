// List search's word counters kept one row a key (issue 15): concurrent writers spread a key's count
// over slots (migration 0058), and search_counters_fold (0059) folds them back, skipping rows a
// writer holds; the worker runs it every 10 s.
import type { SearchCounterMaintenance } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";

/** Keys a fold statement visits at most per table (migration 0059: ~0.4 ms a key), and a pass's time. */
const FOLD_KEYS = 100;
const FOLD_BUDGET_MS = 3000;

export function searchCounters(db: SqlExecutor): SearchCounterMaintenance {
  return {
    async foldSlots() {
      // Small batches, each its own short transaction (a writer needing a key's row waits for the
      // batch holding it), until none is left or for at most 3 s a pass (the worker's pass runs
      // every 10 s: a 1 s budget every 30 s fell behind 8 writers importing through the API).
      // What writers hold is skipped and visited again.
      let visited = 0;
      const started = performance.now();
      while (performance.now() - started < FOLD_BUDGET_MS) {
        const [row] = await db.query(`select search_counters_fold($1) as n`, [FOLD_KEYS]);
        const n = Number(row?.n ?? 0);
        visited += n;
        if (n === 0) break;
      }
      return visited;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { searchCounters } satisfies SqlRepositories;
