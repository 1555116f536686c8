// Issue 15: a character list search of one word gets its exact total from counters per (campaign,
// list, word prefix, type) kept by triggers (migration 0045), not by counting its matches. Totals
// here are worked out in the test from the characters it wrote, after every kind of write.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { characters } from "../../adapters/sql/characters.ts";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { characterSearchText, type Character, type CharacterType } from "../../domain/characters.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";

const TYPES: CharacterType[] = ["PC", "NPC", "Other"];
// A character's words as the search sees them: its search text, lower case, split on what is not a letter or digit.
const wordsOf = (c: Character) => characterSearchText(c).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

await forEachBackend("list search totals from prefix counters", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let owner: string;
  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(owner, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "owner@example.test", role: "user", created_at: at() }))!.id;
  });
  afterAll(async () => close?.());

  test("one-word totals by approval and type equal the characters' own words after inserts, renames, type and approval changes, deletes", async () => {
    const campaign = await newCampaign("Prefix counts");
    const other = await newCampaign("Elsewhere");
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const syllables = ["ka", "ra", "vex", "thor", "dun", "mir", "qua"];
    // Words of 2 to 15 letters: some longer than the 12 letters counted, so those queries take search_terms.
    const word = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(syllables)).join("");
    const name = () => [word(), word()].map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ");
    const make = (campaignId: string, i: number) =>
      characterRecord(campaignId, {
        character_name: name(),
        character_aliases: random() < 0.3 ? [word()] : [],
        player_name: random() < 0.2 ? `${word()}-${word()}` : null,
        type: pick(TYPES),
        approved: random() < 0.75,
        created_at: at(i),
      });
    const live = new Map<string, Character>();
    // One by one, then twenty in one statement (the trigger sees several records at once).
    for (let i = 0; i < 60; i++) {
      const c = make(campaign, i);
      await store.characters.insert(c);
      live.set(c.id, c);
    }
    const batch = Array.from({ length: 20 }, (_, i) => make(campaign, 60 + i));
    await db.query(
      `insert into characters (id, campaign_id, character_name, character_aliases, player_name, type, approved, search_text, created_at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[]::jsonb[], $5::text[], $6::text[], $7::text[]::boolean[], $8::text[], $9::text[]::timestamptz[])`,
      [
        batch.map((c) => c.id), batch.map((c) => c.campaign_id), batch.map((c) => c.character_name), batch.map((c) => JSON.stringify(c.character_aliases)),
        batch.map((c) => c.player_name), batch.map((c) => c.type), batch.map((c) => String(c.approved)), batch.map(characterSearchText), batch.map((c) => c.created_at),
      ],
    );
    for (const c of batch) live.set(c.id, c);
    const others = Array.from({ length: 15 }, (_, i) => make(other, i));
    for (const c of others) await store.characters.insert(c);

    // The longest word's first 12 letters (the longest counted) and 13 (search_terms counts it).
    const longest = [...live.values()].flatMap(wordsOf).reduce((a, b) => (b.length > a.length ? b : a));
    expect(longest.length).toBeGreaterThan(12);
    const queries = [longest.slice(0, 12), longest.slice(0, 13), "k", "ka", "kar", "vex", "vexq", "quaka", "thordun", "mirthor", "vexquathor", "kakakakaka", "thorthorth", "vexvexvexvex", "thorthorthort", "pc", "np", "npc", "oth", "other", "zz"];
    const check = async (phase: string) => {
      const seen: unknown[] = [];
      const expected: unknown[] = [];
      for (const search of queries) {
        for (const approvedOnly of [true, false]) {
          for (const type of [undefined, ...TYPES]) {
            const want = [...live.values()].filter((c) => (!approvedOnly || c.approved) && (!type || c.type === type) && wordsOf(c).some((w) => w.startsWith(search))).length;
            // Page size 2: most pages are full, so the total is counted, not the page's length.
            const { rows, total } = await store.characters.list(campaign, { approvedOnly, type, search }, { page: 1, size: 2 });
            const key = { phase, search, approvedOnly, type: type ?? "any" };
            if (want > 0) {
              seen.push({ ...key, total, rows: rows.length });
              expected.push({ ...key, total: want, rows: Math.min(2, want) });
            } else {
              // No prefix match: the substring and similar-name steps answer instead; only its own campaign.
              expect(rows.every((r) => r.campaign_id === campaign)).toBe(true);
            }
          }
        }
      }
      expect(seen).toEqual(expected);
      // The counters (a key's slots summed, migration 0058) are those the characters' words give, and none is left at 0.
      const [drift] = await db.query(
        `with want as (select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end as list, x.x as prefix, c.type, count(*)::int as n
                       from characters c, search_prefixes(c.search_vector) x group by 1, 2, 3, 4)
         select (select count(*)::int from want w
                 full join (select campaign_id, list, prefix, type, sum(n)::int as n from search_prefix_counts group by 1, 2, 3, 4) p
                   on p.campaign_id = w.campaign_id and p.list = w.list and p.prefix = w.prefix collate "C" and p.type = w.type
                 where p.n is distinct from w.n) as differing,
                (select count(*)::int from search_prefix_counts where n = 0) as zeros`,
      );
      expect({ phase, differing: drift!.differing, zeros: drift!.zeros }).toEqual({ phase, differing: 0, zeros: 0 });
    };
    await check("inserted");
    // The generator made full pages for each type.
    expect([...live.values()].filter((c) => c.type === "PC" && c.approved && wordsOf(c).some((w) => w.startsWith("vex"))).length).toBeGreaterThan(2);

    const all = [...live.values()];
    // Renames (words in and out), type changes, approval moves, one record changed in several ways.
    for (const c of all.slice(0, 10)) {
      const renamed = { ...c, character_name: name(), character_aliases: c.character_aliases.length ? [] : [word()] };
      await store.characters.replace(renamed);
      live.set(c.id, renamed);
    }
    for (const c of all.slice(10, 20)) {
      const changed = { ...c, type: TYPES[(TYPES.indexOf(c.type) + 1) % 3]!, approved: i2b(c.id) ? !c.approved : c.approved };
      await store.characters.replace(changed);
      live.set(c.id, changed);
    }
    // A description edit moves no counter; a rename to a name sharing most prefixes moves few.
    await store.characters.replace({ ...live.get(all[20]!.id)!, description: "Edited" });
    const near = { ...live.get(all[21]!.id)! };
    near.character_name = `${near.character_name}x`;
    await store.characters.replace(near);
    live.set(near.id, near);
    await check("updated");
    // Several records in one statement: a type change, then approval.
    const pcs = all.slice(30, 40).map((c) => c.id);
    await db.query(`update characters set type = 'PC', search_text = replace(search_text, ' ' || type, ' PC') where id = any ($1::text[])`, [pcs]);
    for (const id of pcs) {
      const c = live.get(id)!;
      live.set(id, { ...c, type: "PC" });
    }
    // The search text above was edited by hand: it must still be what the domain writes.
    for (const id of pcs) expect((await db.query(`select search_text from characters where id = $1`, [id]))[0]!.search_text).toBe(characterSearchText(live.get(id)!));
    await db.query(`update characters set approved = not approved where id = any ($1::text[])`, [all.slice(40, 50).map((c) => c.id)]);
    for (const c of all.slice(40, 50)) live.set(c.id, { ...live.get(c.id)!, approved: !live.get(c.id)!.approved });
    await check("updated together");
    // Deletes: one by one, then several in one statement.
    for (const c of all.slice(50, 55)) {
      await store.characters.delete(c.id);
      live.delete(c.id);
    }
    await db.query(`delete from characters where id = any ($1::text[])`, [all.slice(55, 65).map((c) => c.id)]);
    for (const c of all.slice(55, 65)) live.delete(c.id);
    await check("deleted");
    // A deleted campaign leaves no counter behind.
    await store.campaigns.delete(other);
    expect(Number((await db.query(`select count(*)::int as n from search_prefix_counts where campaign_id = $1`, [other]))[0]!.n)).toBe(0);
    await check("campaign deleted");
  });

  test("a one-word total with or without a type reads its counters, not its matches", async () => {
    const campaign = await newCampaign("Counted, not read");
    for (let i = 0; i < 80; i++) {
      await store.characters.insert(characterRecord(campaign, { character_name: `Vexq${String(i).padStart(3, "0")} Radra`, type: i % 2 ? "PC" : "NPC", created_at: at(i) }));
    }
    // Index scans in this transaction (pg_stat_xact_*: no flush to wait for). Without 0045 the plain
    // total is a search_terms range and the typed one a bitmap of the text index.
    const scans = async (tx: SqlExecutor) =>
      Object.fromEntries(
        (await tx.query(
          `select i.relname as name, pg_stat_get_xact_numscans(i.oid)::int as n from pg_class i
           where i.oid in (select indexrelid from pg_index where indrelid = 'search_terms'::regclass) or i.relname in ('characters_fts', 'characters_word_pairs')`,
        )).map((r) => [String(r.name), Number(r.n)]),
      );
    await db.transaction(async (tx) => {
      const before = await scans(tx);
      const plain = await characters(tx).list(campaign, { approvedOnly: true, search: "vexq" }, { page: 1, size: 20 });
      const typed = await characters(tx).list(campaign, { approvedOnly: true, type: "PC", search: "Vexq" }, { page: 1, size: 20 });
      const after = await scans(tx);
      expect({ plain: [plain.rows.length, plain.total], typed: [typed.rows.length, typed.total] }).toEqual({ plain: [20, 80], typed: [20, 40] });
      expect(typed.rows.every((r) => r.type === "PC")).toBe(true);
      const read = Object.keys(after).filter((name) => after[name] !== (before[name] ?? 0));
      expect(read).toEqual([]);
      // A later word with a type: no name starts with it, so the last tier runs — from the pairs of
      // the type's word and the query's, not the text index's matches of every type.
      const later = await characters(tx).list(campaign, { approvedOnly: true, type: "PC", search: "radr" }, { page: 1, size: 20 });
      const last = await scans(tx);
      expect([later.rows.length, later.total]).toEqual([20, 40]);
      expect(Object.keys(last).filter((name) => last[name] !== after[name])).toEqual(["characters_word_pairs"]);
    });
  });

  test("pages with a type filter in the tiers' order (exact name, names by prefix, the rest newest first)", async () => {
    const campaign = await newCampaign("Typed pages");
    let seed = 5;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const syllables = ["ka", "ra", "vex", "thor", "pc", "np", "oth"];
    const word = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(syllables)).join("");
    const name = () => [word(), word()].map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ");
    const made: Character[] = [];
    for (let i = 0; i < 90; i++) {
      // Some share an instant: ties go by id.
      const c = characterRecord(campaign, { character_name: i % 17 === 0 ? "Vex Ka" : name(), character_aliases: random() < 0.3 ? [word()] : [], type: pick(TYPES), approved: random() < 0.8, created_at: at(Math.floor(i / 2)) });
      await store.characters.insert(c);
      made.push(c);
    }
    const newestFirst = (a: Character, b: Character) => b.created_at.localeCompare(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);
    const tiered = (records: Character[], query: string) => {
      const found = records.filter((c) => query.split(" ").every((q) => wordsOf(c).some((w) => w.startsWith(q))));
      const lower = (c: Character) => c.character_name.toLowerCase();
      const exact = found.filter((c) => lower(c) === query).sort(newestFirst);
      const named = found.filter((c) => lower(c) !== query && lower(c).startsWith(query)).sort((a, b) => (lower(a) < lower(b) ? -1 : lower(a) > lower(b) ? 1 : newestFirst(a, b)));
      const rest = found.filter((c) => !lower(c).startsWith(query)).sort(newestFirst);
      return [...exact, ...named, ...rest];
    };
    const seen: unknown[] = [];
    const expected: unknown[] = [];
    // One word and two; a query word that is (or starts) the type's word; names and later words.
    for (const search of ["vex", "vex ka", "ka", "ra", "thor", "pc", "p", "npc", "np", "oth", "other", "ka vex", "pcka", "vexthor"]) {
      for (const approvedOnly of [true, false]) {
        for (const type of TYPES) {
          const want = tiered(made.filter((c) => c.type === type && (!approvedOnly || c.approved)), search);
          if (!want.length) continue;
          for (const size of [3, 50]) {
            const ids: string[] = [];
            const totals = new Set<number>();
            for (let page = 1; page <= 40; page++) {
              const { rows, total } = await store.characters.list(campaign, { approvedOnly, type, search }, { page, size });
              totals.add(total);
              if (!rows.length) break;
              ids.push(...rows.map((r) => r.id));
            }
            seen.push({ search, approvedOnly, type, size, ids, totals: [...totals] });
            expected.push({ search, approvedOnly, type, size, ids: want.map((c) => c.id), totals: [want.length] });
          }
        }
      }
    }
    expect(seen).toEqual(expected);
    expect(expected.length).toBeGreaterThan(100);
  });
});

// Every other record of the ten also changes its approval.
const i2b = (id: string) => id.charCodeAt(id.length - 1) % 2 === 0;
