// Issue 15 (migration 0059): the list search's counters that concurrent writers spread over slots
// (0058) folded back to one row a key by the worker's pass (searchCounters.foldSlots). Searches
// answer the same before and after a fold, every count stays the records' own, and a row a writer
// holds is left for a later pass without waiting for it.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, characterRecord } from "../support/records.ts";
import { mergedWords } from "../support/search-counters.ts";

const NAMES = ["Vexar Tide", "Vexar Quill", "Vexquin", "Tidewarden", "Quillon", "Vexar Hollow", "Hollowmere", "Vexaria", "Tidal Vexar", "Quill"];
const SEARCHES = ["vex", "vexar", "tide", "quill", "exa", "ollo", "npc", "v"];

async function answers(db: SqlDatabase) {
  const store = sqlRecordStore(db);
  return Promise.all(
    SEARCHES.map(async (search) => {
      const page = await store.characters.list("c1", { approvedOnly: false, search }, { page: 1, size: 3 });
      return { search, total: page.total, names: page.rows.map((c) => c.character_name) };
    }),
  );
}

/** Each key's count summed over its slots, and its newest records merged, as readers see them. */
const counters = (db: SqlDatabase) =>
  Promise.all([
    mergedWords(db, "c1"),
    db.query(`select list, prefix, type, sum(n)::int as n from search_prefix_counts where campaign_id = 'c1' group by 1, 2, 3 order by 1, 2, 3`),
  ]);

const spread = (db: SqlDatabase) =>
  db.query(`select (select count(*) from search_vocabulary where slot <> 0)::int as words, (select count(*) from search_prefix_counts where slot <> 0)::int as prefixes`);

await forEachBackend("search counters folded back to one slot (migration 0059)", (backend) => {
  test("a fold keeps every search's answer and count, and leaves one row a key", async () => {
    const { db, close } = await backend.open();
    try {
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [at()]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u1', $1)`, [at()]);
      const store = sqlRecordStore(db);
      for (const [i, name] of NAMES.entries()) await store.characters.insert(characterRecord("c1", { character_name: name, type: i % 3 ? "NPC" : "PC", created_at: at(i * 1000) }));
      expect(await spread(db)).toEqual([{ words: 0, prefixes: 0 }]);
      const before = await answers(db);
      const counted = await counters(db);
      // Independent of the counters: "vexar" starts a word of 5 names (Vexaria too), "v" of 6.
      expect(before.find((a) => a.search === "vexar")!.total).toBe(5);
      expect(before.find((a) => a.search === "v")!.total).toBe(6);

      // As writers on other connections leave them (0058): a word's count split between slots 0 and
      // 2 (its newest record in slot 2's list only, the others in slot 0's: a search must merge the
      // two), a slot below 0 (a record counted on one slot, deleted on another), a word and a prefix
      // found only in slot 3, prefix counts split between 0 and 1.
      await db.query(`insert into search_vocabulary (campaign_id, list, term, slot, n, recent_ids, recent_at)
                      select campaign_id, list, term, 2, 1, recent_ids[1:1], recent_at[1:1] from search_vocabulary where campaign_id = 'c1' and slot = 0 and n >= 2`);
      await db.query(`update search_vocabulary set n = n - 1, recent_ids = recent_ids[2:], recent_at = recent_at[2:] where campaign_id = 'c1' and slot = 0 and n >= 2`);
      await db.query(`insert into search_vocabulary (campaign_id, list, term, slot, n, recent_ids, recent_at) select campaign_id, list, term, 5, -1, '{}', '{}' from search_vocabulary where campaign_id = 'c1' and term = 'vexar' and slot = 0`);
      await db.query(`update search_vocabulary set n = n + 1 where campaign_id = 'c1' and term = 'vexar' and slot = 0`);
      await db.query(`update search_vocabulary set slot = 3 where campaign_id = 'c1' and term = 'hollowmere'`);
      await db.query(`insert into search_prefix_counts (campaign_id, list, prefix, type, slot, n)
                      select campaign_id, list, prefix, type, 1, 1 from search_prefix_counts where campaign_id = 'c1' and slot = 0 and n >= 2`);
      await db.query(`update search_prefix_counts set n = n - 1 where campaign_id = 'c1' and slot = 0 and n >= 2`);
      await db.query(`update search_prefix_counts set slot = 3 where campaign_id = 'c1' and prefix = 'hollowm'`);
      expect((await spread(db))[0]!.words).toBeGreaterThan(5);
      expect(await counters(db)).toEqual(counted);
      expect(await answers(db)).toEqual(before);

      const visited = await store.searchCounters.foldSlots();
      expect(visited).toBeGreaterThan(5);
      expect(await spread(db)).toEqual([{ words: 0, prefixes: 0 }]);
      // One row a key, holding the key's whole count and newest records.
      expect(await db.query(`select term, count(*)::int as rows from search_vocabulary where campaign_id = 'c1' group by 1 having count(*) > 1`)).toEqual([]);
      expect(await db.query(`select slot, n from search_vocabulary where campaign_id = 'c1' and term = 'vexar'`)).toEqual([{ slot: 0, n: 4 }]);
      expect(await counters(db)).toEqual(counted);
      expect(await answers(db)).toEqual(before);
      // Nothing left to fold: the next pass visits nothing.
      expect(await store.searchCounters.foldSlots()).toBe(0);
    } finally {
      await close();
    }
  });

  test.skipIf(backend.name !== "postgres")("a row a writer holds is skipped without waiting, and folded by a later pass", async () => {
    const { db, close } = await backend.open();
    try {
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [at()]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u1', $1)`, [at()]);
      const store = sqlRecordStore(db);
      for (const [i, name] of NAMES.entries()) await store.characters.insert(characterRecord("c1", { character_name: name, created_at: at(i * 1000) }));
      await db.query(`insert into search_vocabulary (campaign_id, list, term, slot, n, recent_ids, recent_at)
                      select campaign_id, list, term, 1, 1, recent_ids[1:1], recent_at[1:1] from search_vocabulary where campaign_id = 'c1' and slot = 0 and n >= 2`);
      await db.query(`update search_vocabulary set n = n - 1 where campaign_id = 'c1' and slot = 0 and n >= 2`);
      const counted = await counters(db);
      const before = await answers(db);

      // A writer's open transaction holds slot 1 of "vexar" (as an insert's upsert does until commit).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const writer = db.transaction(async (tx) => {
        await tx.query(`select n from search_vocabulary where campaign_id = 'c1' and term = 'vexar' and slot = 1 for update`);
        locked();
        await held;
      });
      await holding;
      const bound = setTimeout(release, 5_000);
      const started = performance.now();
      await store.searchCounters.foldSlots();
      const waited = performance.now() - started;
      release();
      clearTimeout(bound);
      await writer;
      expect(waited).toBeLessThan(4_000);
      expect(await db.query(`select slot from search_vocabulary where campaign_id = 'c1' and slot <> 0 order by term`)).toEqual([{ slot: 1 }]);
      expect(await counters(db)).toEqual(counted);

      await store.searchCounters.foldSlots();
      expect(await spread(db)).toEqual([{ words: 0, prefixes: 0 }]);
      expect(await counters(db)).toEqual(counted);
      expect(await answers(db)).toEqual(before);
    } finally {
      await close();
    }
  });
});
