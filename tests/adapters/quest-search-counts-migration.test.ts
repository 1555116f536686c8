// Migration 0055 on a database written before it: quests' search counters move from 0050's own table
// (quest_search_head_counts) into the shared search_head_counts (kind 'quest'), each key's slots
// summed; every quest search answers as before, and writes after it count in the shared table.
import { expect, test } from "bun:test";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { loadMigrations } from "../../infra/container.ts";
import { forEachBackend } from "../support/backends.ts";

const T = "2026-01-01T00:00:00Z";

await forEachBackend("migration 0055 (quest search counters shared)", (backend) => {
  test("totals and pages of quest searches are the same after it; slots summed, a key summing to 0 dropped; later writes counted", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0055"));
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [T]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u1', $1), ('c2', 'Two', 'u1', $1)`, [T]);
      const quest = (campaign: string, id: string, name: string, i: number) =>
        db.query(
          `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
           values ($1, $2, $3::int, $4, 'main', 'planned', $4, $5::timestamptz + $3::int * interval '1 second')`,
          [id, campaign, i, name, T],
        );
      // One quest a statement, several at a time (on PostgreSQL, on several connections: several slots).
      const dragons = Array.from({ length: 30 }, (_, i) => i + 1);
      for (let i = 0; i < dragons.length; i += 6) await Promise.all(dragons.slice(i, i + 6).map((g) => quest("c1", `d${g}`, `Dragon ${g}`, g)));
      for (const g of [1, 2, 3]) await quest("c1", `q${g}`, `Quest ${g}`, 100 + g);
      for (const g of [1, 2, 3, 4, 5]) await quest("c1", `s${g}`, `Sidequest ${g}`, 200 + g);
      for (const g of [1, 2, 3, 4, 5]) await quest("c2", `o${g}`, `Dragon ${g}`, g);
      await Promise.all(dragons.slice(20).map((g) => db.query(`delete from quests where id = $1`, [`d${g}`])));
      // Counters as concurrent writers leave them: a key's count spread over slots, one below 0, and a
      // key no quest holds whose slots sum to 0.
      const split = async (head: string, slots: Array<[number, number]>) => {
        await db.query(`delete from quest_search_head_counts where campaign_id = 'c1' and word = 'dragon' and head = $1`, [head]);
        for (const [slot, n] of slots)
          await db.query(`insert into quest_search_head_counts (campaign_id, word, head, slot, n) values ('c1', 'dragon', $1, $2, $3)`, [head, slot, n]);
      };
      await split("", [[1, 25], [4, -5]]);
      await split(" 1", [[2, 14], [6, -3]]);
      await split(" 7x", [[3, 4], [5, -4]]);

      const quests = sqlRecordStore(db).quests;
      // [query, filters, total, first page of 3]: heads with one word's counter, several words, 0046's paths.
      const searches = async (): Promise<unknown[]> =>
        Promise.all(
          ([
            ["dragon", {}], ["dragon 1", {}], ["ragon 1", {}], ["dragon 10", {}], ["sidequest 1", {}], ["quest 1", {}], ["quest", {}],
            ["1", {}], ["dragon 1", { status: "planned" }], ["dragon 1", { status: "done" }], ["dragon 10 ", {}],
          ] as const).map(async ([search, filters]) => {
            const page = await quests.list("c1", { search, ...filters }, { page: 1, size: 3 });
            return [search, page.total, page.rows.map((q) => q.id)];
          }),
        );
      const expected = [
        ["dragon", 20, ["d1", "d2", "d3"]],
        ["dragon 1", 11, ["d1", "d10", "d11"]],
        ["ragon 1", 11, ["d1", "d10", "d11"]],
        ["dragon 10", 1, ["d10"]],
        ["sidequest 1", 1, ["s1"]],
        ["quest 1", 2, ["q1", "s1"]],
        ["quest", 8, ["q1", "q2", "q3"]],
        ["1", 13, ["d1", "d10", "d11"]],
        ["dragon 1", 11, ["d1", "d10", "d11"]],
        ["dragon 1", 0, []],
        ["dragon 10 ", 0, []],
      ];
      expect(await searches()).toEqual(expected);

      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0055").map((m) => m.version));
      expect(await searches()).toEqual(expected);
      const gone = await db.query(`select to_regclass('quest_search_head_counts') as t, to_regprocedure('quest_search_head_counts_add(text[], text[], text[], int[])') as f`);
      expect(gone).toEqual([{ t: null, f: null }]);
      const keyRows = async (head: string) =>
        (await db.query(`select slot, n from search_head_counts where kind = 'quest' and campaign_id = 'c1' and word = 'dragon' and head = $1 order by slot`, [head]))
          .map((row) => [Number(row.slot), Number(row.n)]);
      expect([await keyRows(""), await keyRows(" 1"), await keyRows(" 7x")]).toEqual([[[0, 20]], [[0, 11]], []]);
      // Every key's count equals its quests' heads, recounted.
      const recount = `select campaign_id, word, head, count(*)::int as n from quest_search_heads group by 1, 2, 3`;
      const counters = `select campaign_id, word, head, sum(n)::int as n from search_head_counts where kind = 'quest' group by 1, 2, 3`;
      expect([await db.query(`${recount} except ${counters}`), await db.query(`${counters} except ${recount}`)]).toEqual([[], []]);
      expect(Number((await db.query(`select count(*)::int as n from search_head_counts where kind = 'quest'`))[0]!.n)).toBeGreaterThan(50);

      // Written after it: counted in the shared table.
      await quest("c1", "d100", "Dragon 100", 300);
      await db.query(`delete from quests where id = 'd1'`);
      const after = await Promise.all(["dragon", "dragon 1", "dragon 10"].map(async (search) => (await quests.list("c1", { search }, { page: 1, size: 3 })).total));
      expect(after).toEqual([20, 11, 2]);
      expect(await db.query(`${recount} except ${counters}`)).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});
