// Issue 15: the worker's fold of Ask's running counts checks which campaigns are due by reading every row of
// ask_counts (at 100k per kind on PGlite, 0.15-1.4 s on its one connection, every minute). The check is
// skipped while too few rows were inserted since the last one for any campaign to have passed the threshold.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { askIndex } from "../../adapters/sql/retrieval.ts";
import { forEachBackend } from "../support/backends.ts";
import { newId } from "../support/records.ts";

await forEachBackend("the Ask count fold's due check", (backend) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  const campaignId = newId();
  const statements: string[] = [];
  /** The repository on a connection that notes what it runs. */
  let fold: (threshold: number, limit: number) => Promise<string[]>;
  /** How many times the due check read ask_counts. */
  const checks = () => statements.filter((text) => text.includes("from ask_counts group by campaign_id")).length;

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    const noting: SqlExecutor = {
      query: (text, params) => {
        statements.push(text);
        return db.query(text, params);
      },
      exec: (text) => db.exec(text),
    };
    const index = askIndex(noting);
    fold = (threshold, limit) => index.foldCounts(threshold, limit);
  });
  afterAll(async () => close?.());

  const inserted = async () =>
    Number((await db.query(`select coalesce((select n_tup_ins from pg_stat_user_tables where relid = 'ask_counts'::regclass), 0) as n`))[0]!.n);
  /** Inserts count rows (n = 1 each) and waits until the activity counters show them (they lag by up to seconds). */
  const add = async (terms: string[]) => {
    const before = await inserted();
    await db.query(`insert into ask_counts (campaign_id, term, n) select $1, t, 1 from unnest(string_to_array($2, ',')) t`, [campaignId, terms.join(",")]);
    for (let waited = 0; (await inserted()) < before + terms.length; waited += 100) {
      if (waited > 20_000) throw new Error("the activity counters never showed the inserts");
      await Bun.sleep(100);
    }
  };

  test("checked once; skipped while no campaign can have passed the threshold; checked and folded when one may have", async () => {
    // Two rows beyond one a word: threshold 5 leaves room for 3 more.
    await add(["alpha", "alpha", "alpha", "beta"]);
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(1);
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(1);
    // Two more: 4 extra rows, still not more than 5, and fewer inserts than the room left: no check.
    await add(["alpha", "alpha"]);
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(1);
    // Two more: 6 extra rows. Four inserts since the check, more than the room of 3: checked, folded.
    await add(["alpha", "beta"]);
    expect(await fold(5, 10)).toEqual([campaignId]);
    expect(checks()).toBe(2);
    const rows = await db.query(`select term, n::int as n from ask_counts where campaign_id = $1 order by term`, [campaignId]);
    expect(rows).toEqual([{ term: "alpha", n: 6 }, { term: "beta", n: 2 }]);
    // After a fold the next call checks again (the fold's own rows are inserts).
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(3);
  });
});
