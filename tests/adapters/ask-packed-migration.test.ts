// Migration 0040 on a database packed by 0037's one-statement build: the packed rows become the
// campaign's current build's, and questions keep reading them (the same ranking as the SQL statement).
import { expect, test } from "bun:test";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRetriever } from "../../adapters/sql/retrieval.ts";
import { loadMigrations } from "../../infra/container.ts";
import { forEachBackend } from "../support/backends.ts";

await forEachBackend("migration 0040", (backend) => {
  test("a campaign packed before it keeps its build: rows keyed by the build, read by the packed path", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0040"));
      await db.query(`insert into users (id, name, email, role, created_at) values ('u', 'U', 'u@x.test', 'user', now())`);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u', now()), ('c2', 'Two', 'u', now())`);
      const words = "amber basilisk cinder dagger ember falcon goblet harbor".split(" ");
      for (const campaign of ["c1", "c2"])
        await db.query(
          `insert into ask_passages (campaign_id, kind, source_id, title, body, session_ids)
           select $1, 'location', 'src-' || i, '', ($2::text[])[(i % 8) + 1] || ' ' || ($2::text[])[(i * 3 % 8) + 1] || ' ' || ($2::text[])[(i * 5 % 8) + 1], '{}'
           from generate_series(1, 60) i`,
          [campaign, words],
        );
      await db.query(`select ask_counts_compact(c) from (values ('c1'), ('c2')) v(c)`);
      // 0037's build of c1 only.
      const [cut] = await db.query(`select ask_packed_cutoff() as id`);
      await db.query(`select ask_pack('c1', $1::bigint)`, [String(cut!.id)]);
      const [build] = await db.query(`select build_id, (select count(*)::int from ask_packed) as rows from ask_packed_builds where campaign_id = 'c1'`);
      expect(build!.rows).toBe(words.length);

      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0040").map((m) => m.version).sort());
      const rows = await db.query(`select campaign_id, build_id, count(*)::int as n from ask_packed group by 1, 2`);
      expect(rows.map((r) => [r.campaign_id, String(r.build_id), r.n])).toEqual([["c1", String(build!.build_id), words.length]]);
      const statements: string[] = [];
      const spy = { backend: db.backend, exec: (t: string) => db.exec(t), query: <T>(t: string, p?: readonly unknown[]) => (statements.push(t), db.query<T>(t, p)) };
      const ask = (sqlOnly: boolean) => sqlRetriever(sqlOnly ? db : spy, { sqlOnly }).retrieve({ campaignId: "c1", text: "amber cinder", journals: { all: true }, limit: 30 });
      const packed = await ask(false);
      expect(statements.some((s) => s.includes("rare as ("))).toBe(false);
      expect(packed.map((p) => `${p.sourceId} ${p.score}`)).toEqual((await ask(true)).map((p) => `${p.sourceId} ${p.score}`));
      expect(packed.length).toBeGreaterThan(5);
    } finally {
      await close();
    }
  });
});
