// Issue 15: the worker's fold of Ask's running counts checked which campaigns were due by reading every row of
// ask_counts (300k characters: 1.4 s on PostgreSQL, seconds on PGlite's one connection), and a fold read all of
// its campaign's rows. The check counts the deltas written since the last fold (migration 0054), is skipped
// while too few rows were inserted since the last one for any campaign to have passed the threshold, and a fold
// rewrites the words that have deltas only.
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
  const checks = () => statements.filter((text) => text.includes("from ask_counts where not folded group by campaign_id")).length;

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
    // Four deltas: threshold 5 leaves room for 1 more.
    await add(["alpha", "alpha", "alpha", "beta"]);
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(1);
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(1);
    // Two more: 6 deltas, more than 5; two inserts since the check, more than the room of 1: checked, folded.
    await add(["alpha", "beta"]);
    expect(await fold(5, 10)).toEqual([campaignId]);
    expect(checks()).toBe(2);
    const rows = await db.query(`select term, n::int as n, folded from ask_counts where campaign_id = $1 order by term`, [campaignId]);
    expect(rows).toEqual([{ term: "alpha", n: 4, folded: true }, { term: "beta", n: 2, folded: true }]);
    // After a fold the next call checks again (the fold's own rows are inserts); nothing is due.
    expect(await fold(5, 10)).toEqual([]);
    expect(checks()).toBe(3);
  });

  test("a fold rewrites only the words with deltas; the due check reads the deltas, not the folded rows", async () => {
    const big = newId();
    // Nothing may mark the rows all-visible behind the test's back (PGlite has no autovacuum).
    if (backend.name === "postgres") await db.exec(`alter table ask_counts set (autovacuum_enabled = false)`);
    // A large folded campaign: 3,000 words of one row each.
    await db.query(`insert into ask_counts (campaign_id, term, n, folded) select $1, 'w' || g, 1, true from generate_series(1, 3000) g`, [big]);
    await db.query(`insert into ask_counts (campaign_id, term, n) values ($1, 'w1', 2), ($1, 'w2', 5), ($1, 'new', 1), ($1, 'w3', -1)`, [big]);
    await db.exec(`analyze ask_counts`);
    // Rows read whole and rows fetched through an index (the rows are not all-visible, so an
    // index-only read fetches each one too), before and after in one transaction: the counts may
    // hold this connection's earlier, unflushed transactions too.
    const tupleReads = async (work: (tx: SqlExecutor) => Promise<unknown>) =>
      db.transaction(async (tx) => {
        const read = async () =>
          (await tx.query<{ fetched: number; seq: number }>(
            `select coalesce(sum(seq_tup_read), 0)::int + coalesce(sum(idx_tup_fetch), 0)::int as fetched, coalesce(sum(seq_tup_read), 0)::int as seq
             from pg_stat_xact_user_tables where relname = 'ask_counts'`))[0]!;
        const before = await read();
        await work(tx);
        const after = await read();
        return { fetched: after.fetched - before.fetched, seq: after.seq - before.seq };
      });
    const checked = await tupleReads((tx) =>
      tx.query(`select campaign_id, count(*) as deltas from ask_counts where not folded group by campaign_id`));
    expect(checked.seq).toBe(0);
    // The 4 deltas of this campaign (the first test's campaign has none left).
    expect(checked.fetched).toBeLessThanOrEqual(10);
    const compacted = await tupleReads((tx) => tx.query(`select ask_counts_compact($1)`, [big]));
    expect(compacted.seq).toBe(0);
    // The deltas and the folded rows of their 4 words, not the 3,000 folded rows.
    expect(compacted.fetched).toBeLessThanOrEqual(40);
    const after = await db.query(
      `select term, n::int as n, folded from ask_counts where campaign_id = $1 and term in ('w1', 'w2', 'w3', 'w4', 'new') order by term`, [big]);
    // w3 summed to 0: no row; w4 untouched.
    expect(after).toEqual([
      { term: "new", n: 1, folded: true },
      { term: "w1", n: 3, folded: true },
      { term: "w2", n: 6, folded: true },
      { term: "w4", n: 1, folded: true },
    ]);
    const [counted] = await db.query(`select count(*)::int as rows, count(*) filter (where not folded)::int as deltas from ask_counts where campaign_id = $1`, [big]);
    expect(counted).toEqual({ rows: 3000, deltas: 0 });
  });
});
