// Migration 0044: the rows of a retired Ask build are deleted a budget at a time, and a batch reads
// the build's rows a bounded number of times even when ask_packed's statistics predate the build
// (0040's join re-ran its window once per row: 77 s a batch at 16k words on PostgreSQL); and a
// batch another sweep deleted meanwhile does not make it forget the build's other rows.
import { expect, test } from "bun:test";
import { outsideTransaction, type SqlDatabase } from "../../adapters/sql/database.ts";
import { forEachBackend } from "../support/backends.ts";

const WORDS = 2500;
const word = (i: number) => `w${String(i).padStart(4, "0")}`;

/** The one campaign the tests pack for. */
const campaign = async (db: SqlDatabase) => {
  await db.query(`insert into users (id, name, email, role, created_at) values ('u', 'U', 'u@x.test', 'user', now())`);
  await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u', now())`);
};

/** Build 1 of that campaign, retired: WORDS words of one posting each. */
const retiredBuild = async (db: SqlDatabase) => {
  await db.query(
    `insert into ask_packed (campaign_id, term, n, base, ids, tfs, lens, build_id)
     select 'c1', 'w' || lpad(g::text, 4, '0'), 1, 0, '\\x', '\\x', '\\x', 1 from generate_series(1, ${WORDS}) g`,
  );
  await db.query(`insert into ask_packed_retired (campaign_id, build_id) values ('c1', 1)`);
};

await forEachBackend("ask_pack_sweep", (backend) => {
  test("deletes the retired build's first words within the budget, reading ask_packed a few times, and leaves the current build", async () => {
    const { db, close } = await backend.open();
    try {
      await campaign(db);
      await db.query(`insert into ask_packed (campaign_id, term, n, base, ids, tfs, lens, build_id) values ('c1', 'current-a', 1, 0, '\\x', '\\x', '\\x', 2), ('c1', 'current-b', 1, 0, '\\x', '\\x', '\\x', 2)`);
      // Statistics that know build 2 only, as after a pass that analysed before build 1 was retired.
      await db.exec(`analyze ask_packed`);
      await retiredBuild(db);

      const left = async () => (await db.query<{ n: number; first: string | null }>(`select count(*)::int as n, min(term) as first from ask_packed where build_id = 1`))[0]!;
      // A batch looks at 2,000 words at most: a budget above them all deletes 2,000.
      const first = await db.transaction(async (tx) => {
        const scans = async () =>
          Number((await tx.query<{ n: number }>(`select coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::int as n from pg_stat_xact_user_tables where relname = 'ask_packed'`))[0]!.n);
        const before = await scans();
        const [swept] = await tx.query<{ n: number }>(`select ask_pack_sweep(1000000) as n`);
        return { deleted: Number(swept!.n), scans: (await scans()) - before };
      });
      expect(first.deleted).toBe(2000);
      expect(await left()).toEqual({ n: WORDS - 2000, first: word(2001) });
      // PostgreSQL counts the scans of the transaction (0040's plan: one per row, 2,501).
      if (backend.name === "postgres") expect(first.scans).toBeLessThanOrEqual(4);

      // Each word holds one posting: a budget of 10 deletes 10 words.
      expect(Number((await db.query<{ n: number }>(`select ask_pack_sweep(10) as n`))[0]!.n)).toBe(10);
      expect(await left()).toEqual({ n: WORDS - 2010, first: word(2011) });
      // A budget below the first word's postings still deletes that word.
      expect(Number((await db.query<{ n: number }>(`select ask_pack_sweep(0) as n`))[0]!.n)).toBe(1);
      expect(await left()).toEqual({ n: WORDS - 2011, first: word(2012) });

      while (Number((await db.query<{ n: number }>(`select ask_pack_sweep(1000000) as n`))[0]!.n) > 0);
      expect(await left()).toEqual({ n: 0, first: null });
      expect((await db.query(`select * from ask_packed_retired`)).length).toBe(0);
      expect((await db.query(`select term from ask_packed order by term`)).map((r) => r.term)).toEqual(["current-a", "current-b"]);
    } finally {
      await close();
    }
  });

  // PGlite has one connection: two sweeps cannot overlap there.
  test.skipIf(backend.name !== "postgres")("a batch another sweep deleted first: the build stays retired until its last row is gone", async () => {
    const { db, close } = await backend.open();
    try {
      await campaign(db);
      await retiredBuild(db);
      let swept: Promise<number> | undefined;
      await db.transaction(async (tx) => {
        // The other sweep's batch (the first 2,000 words), deleted but not yet committed...
        await tx.query(`delete from ask_packed where build_id = 1 and term <= 'w2000'`);
        // ...while this one (another session: not the transaction's, not awaited by it) picks the same batch and waits for those rows.
        swept = outsideTransaction(() => db.query<{ n: number }>(`select ask_pack_sweep(1000000) as n`)).then((rows) => Number(rows[0]!.n));
        await Bun.sleep(300);
      });
      expect(await swept!).toBe(1);
      expect((await db.query(`select build_id from ask_packed_retired`)).map((r) => String(r.build_id))).toEqual(["1"]);
      expect(Number((await db.query<{ n: number }>(`select ask_pack_sweep(1000000) as n`))[0]!.n)).toBe(WORDS - 2000);
      expect(Number((await db.query<{ n: number }>(`select ask_pack_sweep(1000000) as n`))[0]!.n)).toBe(0);
      expect((await db.query(`select count(*)::int as n from ask_packed`))[0]!.n).toBe(0);
      expect((await db.query(`select * from ask_packed_retired`)).length).toBe(0);
    } finally {
      await close();
    }
  });
});
