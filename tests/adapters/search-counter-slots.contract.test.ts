// Issue 15, helper insertcost (migration 0058): the list search's counters of a campaign's words
// (search_vocabulary, 0031) and word prefixes (search_prefix_counts, 0045) in slots per writer, as
// record_counts (0057). A database written before it answers every search as before; after it,
// writers of one campaign no longer wait for each other's counter rows, and whatever slots they
// took, every total, page and counter equals the records' own words.
import { expect, test } from "bun:test";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import type { Character } from "../../domain/characters.ts";
import type { Entity } from "../../domain/entities.ts";
import { loadMigrations } from "../../infra/container.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, characterRecord, newId } from "../support/records.ts";
import { wordDrift } from "../support/search-counters.ts";

const placeOf = (campaignId: string, name: string, i: number): Entity => ({
  id: newId(), campaign_id: campaignId, kind: "location", name, aliases: [], description: null, type: null, image: null, tcg_image: null,
  parent_id: null, merge: false, created_at: at(i * 1000), updated_at: null,
});

/** A record's words as the text index has them (its name, aliases and, for a character, its type). */
const wordsOf = (r: Character | Entity) =>
  ("character_name" in r ? [r.character_name, ...r.character_aliases, r.type] : [r.name, ...r.aliases]).join(" ").toLowerCase().split(/\s+/).filter(Boolean);

type Query = [kind: "c" | "l", search: string, filters: { approvedOnly?: boolean; type?: "PC" | "NPC" }];
const QUERIES: Query[] = [
  ["c", "vex", {}], ["c", "vex", { approvedOnly: true }], ["c", "vexa", { type: "PC" }], ["c", "vexar 1", {}], ["c", "npc", {}],
  ["c", "tide", {}], ["c", "quill", {}], ["c", "exq", {}], ["c", "xar", { approvedOnly: true }], ["c", "vexxar", {}],
  ["l", "harb", {}], ["l", "arbou", {}], ["l", "vexp", {}],
];

/** Totals of the prefix and substring steps, from the records' words (the misspelled query has none). */
function expectedTotal(live: Map<string, Character | Entity>, [kind, search, filters]: Query): number {
  const words = search.split(" ");
  return [...live.values()].filter((r) => {
    if (("character_name" in r ? "c" : "l") !== kind) return false;
    if ("character_name" in r && ((filters.approvedOnly && !r.approved) || (filters.type && r.type !== filters.type))) return false;
    const own = wordsOf(r);
    const prefixed = words.every((w) => own.some((o) => o.startsWith(w)));
    const containing = words.length === 1 && own.some((o) => o.includes(words[0]!));
    return ["exq", "xar", "arbou"].includes(search) ? containing : prefixed;
  }).length;
}

async function answers(db: SqlDatabase, campaign: string) {
  const store = sqlRecordStore(db);
  return Promise.all(
    QUERIES.map(async ([kind, search, filters]) => {
      const page = async (n: number) =>
        kind === "c"
          ? store.characters.list(campaign, { approvedOnly: false, ...filters, search }, { page: n, size: 3 })
          : store.entities.list(campaign, "location", { search }, { page: n, size: 3 });
      const [one, two] = [await page(1), await page(2)];
      return { search, filters, total: one.total, pages: [one.rows.map((r) => r.id), two.rows.map((r) => r.id)] };
    }),
  );
}

/** Counters whose slots do not sum to the records' own words, and words whose newest 4 differ from search_terms'. */
async function drift(db: SqlDatabase, campaign: string) {
  const prefixes = await db.query(
    `with want as (select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end as list, x.x as prefix, c.type, count(*)::int as n
                   from characters c, search_prefixes(c.search_vector) x where c.campaign_id = $1 group by 1, 2, 3, 4),
          have as (select campaign_id, list, prefix, type, sum(n)::int as n from search_prefix_counts where campaign_id = $1 group by 1, 2, 3, 4)
     select w.prefix, w.n as want, h.n as have from want w full join have h
       on h.campaign_id = w.campaign_id and h.list = w.list and h.prefix = w.prefix collate "C" and h.type = w.type
     where h.n is distinct from w.n and coalesce(h.n, 0) <> coalesce(w.n, 0)`,
    [campaign],
  );
  const words = await wordDrift(db, campaign);
  return { prefixes, words };
}

await forEachBackend("migration 0058 (search counters in slots)", (backend) => {
  test("searches answer as before it; after it, writers' slots sum to the records' words, pages and totals exact", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0058"));
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [at()]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u1', $1), ('c2', 'Two', 'u1', $1)`, [at()]);
      const store = sqlRecordStore(db);
      const live = new Map<string, Character | Entity>();
      const character = (i: number, name: string, extra: Partial<Character> = {}) =>
        characterRecord("c1", { character_name: name, type: i % 3 ? "NPC" : "PC", approved: i % 5 !== 0, created_at: at(i * 1000), ...extra });
      const write = async (records: Array<Character | Entity>) => {
        // Six at a time (on PostgreSQL, on several connections).
        for (let i = 0; i < records.length; i += 6)
          await Promise.all(
            records.slice(i, i + 6).map(async (r) => {
              await ("character_name" in r ? store.characters.insert(r) : store.entities.insert(r));
              live.set(r.id, r);
            }),
          );
      };
      const remove = async (r: Character | Entity) => {
        expect(await ("character_name" in r ? store.characters.delete(r.id) : store.entities.delete(r.id))).toBe(true);
        live.delete(r.id);
      };
      const rename = async (r: Character, name: string) => {
        const renamed = { ...r, character_name: name, updated_at: at(999_000) };
        await store.characters.replace(renamed);
        live.set(r.id, renamed);
        return renamed;
      };

      const vexars = Array.from({ length: 24 }, (_, k) => character(k + 1, `Vexar ${k + 1}`, k % 4 === 0 ? { character_aliases: ["Tidewarden"] } : {}));
      const quins = Array.from({ length: 8 }, (_, k) => character(100 + k, `Vexquin ${k + 1}`));
      const places = [...Array.from({ length: 12 }, (_, k) => placeOf("c1", `Harbour ${k + 1}`, 200 + k)), ...Array.from({ length: 4 }, (_, k) => placeOf("c1", `Vexport ${k + 1}`, 300 + k))];
      await write([...vexars, ...quins, ...places]);
      // Another campaign's records with the same words count in its own counters.
      await store.characters.insert(characterRecord("c2", { character_name: "Vexar 1", created_at: at(1) }));
      await remove(vexars[1]!);
      await remove(vexars[2]!);
      await remove(places[4]!);
      await rename(vexars[3]!, "Quill 4");

      const before = await answers(db, "c1");
      expect(before.map((a) => a.total)).toEqual(QUERIES.map((q, i) => (q[1] === "vexxar" ? before[i]!.total : expectedTotal(live, q))));
      expect(before[9]!.total).toBeGreaterThan(0); // the misspelled name finds the Vexars
      expect(await drift(db, "c1")).toEqual({ prefixes: [], words: [] });

      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0058").map((m) => m.version));
      expect(await answers(db, "c1")).toEqual(before);
      const slots = await db.query(`select (select count(*) from search_vocabulary where slot <> 0)::int as words, (select count(*) from search_prefix_counts where slot <> 0)::int as prefixes`);
      expect(slots).toEqual([{ words: 0, prefixes: 0 }]);

      // Writes after it: inserts in parallel, deletes, renames (their words out of every slot's list).
      const later = Array.from({ length: 18 }, (_, k) => character(400 + k, `Vexar ${40 + k}`));
      await write([...later, placeOf("c1", "Harbour 40", 500), placeOf("c1", "Vexport 40", 501)]);
      await remove(later[17]!); // the newest Vexar: the words' lists must let it go
      await remove(vexars[5]!);
      await rename(later[16]!, "Vexquin 56");
      await rename(quins[0]!, "Vexar Quill 1");
      await write(Array.from({ length: 6 }, (_, k) => character(600 + k, `Vexquin ${60 + k}`)));

      const after = await answers(db, "c1");
      expect(after.map((a) => a.total)).toEqual(QUERIES.map((q, i) => (q[1] === "vexxar" ? after[i]!.total : expectedTotal(live, q))));
      // Substring pages: newest first.
      const newest = (search: string, approvedOnly: boolean) =>
        [...live.values()]
          .filter((r) => "character_name" in r && (!approvedOnly || r.approved) && wordsOf(r).some((w) => w.includes(search)))
          .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
          .map((r) => r.id);
      expect(after[7]!.pages).toEqual([newest("exq", false).slice(0, 3), newest("exq", false).slice(3, 6)]);
      expect(after[8]!.pages).toEqual([newest("xar", true).slice(0, 3), newest("xar", true).slice(3, 6)]);
      expect(await drift(db, "c1")).toEqual({ prefixes: [], words: [] });
      expect(await drift(db, "c2")).toEqual({ prefixes: [], words: [] });
      // No counter left at 0 (a slot that reaches 0 is deleted).
      expect(await db.query(`select prefix, slot from search_prefix_counts where n = 0`)).toEqual([]);

      // A campaign's delete takes its counters with it.
      await store.campaigns.delete("c2");
      expect(await db.query(`select (select count(*) from search_prefix_counts where campaign_id = 'c2')::int + (select count(*) from search_vocabulary where campaign_id = 'c2')::int as n`)).toEqual([{ n: 0 }]);
    } finally {
      await close();
    }
  });

  test.skipIf(backend.name !== "postgres")("a writer commits while another writer of the campaign holds its transaction open; every count exact after", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      await applyMigrations(db, loadMigrations());
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [at()]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'u1', $1)`, [at()]);
      const store = sqlRecordStore(db);
      // The words are the campaign's already (their first writers wait for each other on the new
      // word's rows, as before 0058).
      await store.characters.insert(characterRecord("c1", { character_name: "Vexar 0", created_at: at(0) }));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const started = new Promise<void>((resolve) => (inserted = resolve));
      // A holds its transaction open after its insert: its slot's rows of "vexar", "npc", "v", "ve", … stay locked.
      const first = store.withTransaction(
        async (tx) => {
          await tx.characters.insert(characterRecord("c1", { character_name: "Vexar 1", created_at: at(1000) }));
          inserted();
          await held;
        },
        { retry: false },
      );
      await started;
      // B writes characters with the same words and commits while A is open. Before 0058 it waited
      // for A's search_vocabulary and search_prefix_counts rows: the bound releases A after 5 s.
      let timedOut = false;
      const bound = setTimeout(() => {
        timedOut = true;
        release();
      }, 5_000);
      for (const i of [2, 3]) await store.characters.insert(characterRecord("c1", { character_name: `Vexar ${i}`, created_at: at(i * 1000) }));
      const committedWhileOpen = !timedOut;
      release();
      clearTimeout(bound);
      await first;
      expect(committedWhileOpen).toBe(true);
      const vexar = await db.query(`select slot, n from search_vocabulary where campaign_id = 'c1' and term = 'vexar' order by slot`);
      expect(vexar).toEqual([{ slot: 0, n: 2 }, { slot: 1, n: 2 }]);
      const page = await store.characters.list("c1", { approvedOnly: false, search: "vex" }, { page: 1, size: 2 });
      expect({ total: page.total, names: page.rows.map((c) => c.character_name) }).toEqual({ total: 4, names: ["Vexar 0", "Vexar 1"] });
      const substring = await store.characters.list("c1", { approvedOnly: false, search: "exa" }, { page: 1, size: 2 });
      expect({ total: substring.total, names: substring.rows.map((c) => c.character_name) }).toEqual({ total: 4, names: ["Vexar 3", "Vexar 2"] });
      expect(await drift(db, "c1")).toEqual({ prefixes: [], words: [] });
    } finally {
      await close();
    }
  });
});
