// Issue 15 (migration 0041): list search's last prefix tier ("another word or an alias") looks up
// word pairs instead of reading every posting of the query's words in the text index. Same rows in
// the same order: every page here is checked against the order worked out in the test from the
// names themselves (exact name newest first, then names that start with the query in name order,
// then the rest newest first), and the tier's pairs path against its text-index path.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import type { Character } from "../../domain/characters.ts";
import type { Entity } from "../../domain/entities.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";

const SYLLABLES = ["ka", "ra", "vex", "thor", "dun", "mir", "el", "lia"];

/** The words a record is found by, lower case (its search text split as the 'simple' parser does for ASCII). */
const wordsOf = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
const matches = (text: string, query: string) => query.split(" ").every((q) => wordsOf(text).some((w) => w.startsWith(q)));
const newestFirst = <T extends { created_at: string; id: string }>(a: T, b: T) =>
  b.created_at.localeCompare(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);

/** The tiers' order for `query` (lower case, single spaces) over records with a name and a search text. */
function tiered<T extends { created_at: string; id: string }>(records: T[], nameOf: (r: T) => string, textOf: (r: T) => string, query: string): T[] {
  const found = records.filter((r) => matches(textOf(r), query));
  const name = (r: T) => nameOf(r).toLowerCase();
  const exact = found.filter((r) => name(r) === query).sort(newestFirst);
  const named = found.filter((r) => name(r) !== query && name(r).startsWith(query))
    .sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : newestFirst(a, b)));
  const rest = found.filter((r) => !name(r).startsWith(query)).sort(newestFirst);
  return [...exact, ...named, ...rest];
}

await forEachBackend("list search's last prefix tier from word pairs", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let campaign: string;
  let other: string;
  const characters: Character[] = [];
  const places: Entity[] = [];

  const place = (campaignId: string, name: string, offset: number, aliases: string[] = [], kind: Entity["kind"] = "location"): Entity => ({
    id: newId(), campaign_id: campaignId, kind, name, aliases, description: null, type: null, image: null, tcg_image: null, parent_id: null, merge: false,
    created_at: at(offset), updated_at: null,
  });

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "pairs@example.test", role: "user", created_at: at() }))!.id;
    const made = campaignRecord(owner, { title: "Pairs" });
    const elsewhere = campaignRecord(owner, { title: "Elsewhere" });
    await store.campaigns.insert(made);
    await store.campaigns.insert(elsewhere);
    campaign = made.id;
    other = elsewhere.id;
    // Names from few syllables, so the query's words start many words and are held in every position.
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join("");
    const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
    const name = () => `${cap(word())} ${cap(word())}`;
    for (let i = 0; i < 160; i++) {
      characters.push(characterRecord(campaign, { character_name: name(), character_aliases: random() < 0.3 ? [cap(word())] : [], approved: random() < 0.8, type: random() < 0.2 ? "PC" : "NPC", created_at: at(i * 1000) }));
      places.push(place(campaign, name(), i * 1000, random() < 0.2 ? [cap(word())] : []));
    }
    // Names that are the query, start it, hold it in another order or in an alias; a record with too
    // many words for its pairs (it holds the marker) and one with a word too long for them.
    const many = Array.from({ length: 30 }, (_, i) => `Word${i}`);
    characters.push(
      characterRecord(campaign, { character_name: "Vexra Thordun", created_at: at(200_000) }),
      characterRecord(campaign, { character_name: "Vexra Thordun", created_at: at(200_001) }),
      characterRecord(campaign, { character_name: "Vexra Thordunka", created_at: at(200_002) }),
      characterRecord(campaign, { character_name: "Thordun Vexra", created_at: at(200_003) }),
      characterRecord(campaign, { character_name: "Mirel", character_aliases: ["Vexra", "Thordunel"], created_at: at(200_004) }),
      characterRecord(campaign, { character_name: "Vexrael Kathordun", created_at: at(200_005) }),
      characterRecord(campaign, { character_name: "Kadun Vexra", character_aliases: [...many, "Thordun"], created_at: at(200_006) }),
      characterRecord(campaign, { character_name: `Thordun ${"x".repeat(120)} Vexra`, created_at: at(200_007) }),
    );
    places.push(
      place(campaign, "Ellia Razan", 200_000),
      place(campaign, "Razan Elliamir", 200_001),
      place(campaign, "Ellia Razanka", 200_002),
      place(campaign, "Kathor", 200_003, ["Ellia", "Razan"]),
      place(campaign, "Ellia Dun Razan", 200_004),
      place(campaign, "Razan Ellia", 200_005, many),
      // Another kind and another campaign hold the words too: never found.
      place(campaign, "Razan Ellia", 200_006, [], "item"),
      place(other, "Razan Ellia", 200_007),
    );
    for (const c of characters) await store.characters.insert(c);
    for (const p of places) await store.entities.insert(p);
    await store.characters.insert(characterRecord(other, { character_name: "Thordun Vexra", created_at: at(200_008) }));
  });

  const characterText = (c: Character) => [c.character_name, ...c.character_aliases, c.type].join(" ");
  const placeText = (p: Entity) => [p.name, ...p.aliases].join(" ");

  /** Every page of a search at `size` (the last tier asked for what each page still needs), and the totals seen. */
  const pages = async (list: (page: number) => Promise<{ rows: { id: string }[]; total: number }>) => {
    const ids: string[] = [];
    const totals = new Set<number>();
    for (let page = 1; page <= 60; page++) {
      const { rows, total } = await list(page);
      totals.add(total);
      if (!rows.length) break;
      ids.push(...rows.map((r) => r.id));
    }
    return { ids, totals: [...totals] };
  };

  // Two and three words, in and out of name order, full words and prefixes; words one of which starts
  // the other, and one word, keep the text index (the same order checked for them).
  const QUERIES = ["vexra thordun", "thordun vexra", "vex thor", "thor vex", "ka ra", "ra ka", "el lia", "mir dun ka", "vexra thordun ka", "dun vexra",
    "ellia razan", "razan ellia", "ell raz", "ra rav", "ka kav", "lia", "kara", "thordun ve"];

  test("characters: every page of every query in the tiers' order, approved only or not, with exact totals", async () => {
    let checked = 0;
    for (const query of QUERIES) {
      for (const approvedOnly of [true, false]) {
        const listed = characters.filter((c) => !approvedOnly || c.approved);
        const expected = tiered(listed, (c) => c.character_name, characterText, query).map((c) => c.id);
        // No prefix match: the substring and similar-names steps answer (their own suites).
        if (!expected.length) continue;
        checked++;
        for (const size of [3, 50]) {
          const got = await pages((page) => store.characters.list(campaign, { approvedOnly, search: query }, { page, size }));
          expect({ query, approvedOnly, size, ...got }).toEqual({ query, approvedOnly, size, ids: expected, totals: [expected.length] });
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
    // The queries reach the last tier with something to find there, the marker's two records among it.
    expect(tiered(characters, (c) => c.character_name, characterText, "vexra thordun").map((c) => c.character_name)).toEqual([
      "Vexra Thordun", "Vexra Thordun", "Vexra Thordunka", `Thordun ${"x".repeat(120)} Vexra`, "Kadun Vexra", "Mirel", "Thordun Vexra",
    ]);
  });

  test("locations: every page of every query in the tiers' order, never another kind or campaign", async () => {
    const listed = places.filter((p) => p.kind === "location" && p.campaign_id === campaign);
    let checked = 0;
    for (const query of QUERIES) {
      const expected = tiered(listed, (p) => p.name, placeText, query).map((p) => p.id);
      if (!expected.length) continue;
      checked++;
      for (const size of [3, 50]) {
        const got = await pages((page) => store.entities.list(campaign, "location", { search: query }, { page, size }));
        expect({ query, size, ...got }).toEqual({ query, size, ids: expected, totals: [expected.length] });
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
    const { rows } = await store.entities.list(campaign, "location", { search: "Ellia Razan" }, { page: 1, size: 20 });
    expect(rows.map((p) => p.name)).toEqual(["Ellia Razan", "Ellia Razanka", "Razan Ellia", "Ellia Dun Razan", "Kathor", "Razan Elliamir"]);
  });

  test("the last tier's pairs path returns what its text-index path returns, for every query and every page end", async () => {
    const ends = (words: string[]) => words.map((w) => w.slice(0, -1) + String.fromCharCode(w.charCodeAt(w.length - 1) + 1));
    let paired = 0;
    for (const query of QUERIES) {
      const words = [...new Set(query.split(" "))];
      const tsquery = words.map((w) => `${w}:*`).join(" & ");
      const low = query;
      const high = ends([query])[0]!;
      for (const end of [1, 2, 5, 100]) {
        const entity = async (w: string[] | null) =>
          (await db.query(`select id from search_entity_names_rest($1, 'location', to_tsquery('simple', $2), $3, $4, $5, $6, $7::text[], $8::text[])`,
            [campaign, tsquery, low, high, `${query}%`, end, w, w && ends(w)])).map((r) => r.id);
        expect({ query, end, ids: await entity(words) }).toEqual({ query, end, ids: await entity(null) });
        for (const approved of [true, false]) {
          const character = async (w: string[] | null) =>
            (await db.query(`select id from search_character_names_rest($1, $2, null, to_tsquery('simple', $3), $4, $5, $6, $7, $8::text[], $9::text[])`,
              [campaign, approved, tsquery, low, high, `${query}%`, end, w, w && ends(w)])).map((r) => r.id);
          expect({ query, end, approved, ids: await character(words) }).toEqual({ query, end, approved, ids: await character(null) });
        }
      }
      const [row] = await db.query(`select search_word_pairs_query($1, array['location'], $2::text[], $3::text[]) is not null as paired`, [campaign, words, ends(words)]);
      if (row!.paired) paired++;
    }
    // Most of them went by the pairs (the rest: one word, or one word starting the other).
    expect(paired).toBe(QUERIES.length - 4);
  });

  test("the pairs lookup finds the records holding both words, not every record holding one", async () => {
    const holdsBoth = places.filter((p) => p.campaign_id === campaign && p.kind === "location" && matches(placeText(p), "ellia razan")).length;
    const holdsOne = places.filter((p) => matches(placeText(p), "ellia") || matches(placeText(p), "razan")).length;
    const [row] = await db.query(
      `select count(*)::int as n from entities e where search_word_pairs(e.search_vector) @@ search_word_pairs_query($1, array['location'], array['ellia', 'razan'], array['ellib', 'razao'])`,
      [campaign],
    );
    // Both words' records in any campaign and kind (3 outside this list), the marker's record among them.
    expect(Number(row!.n)).toBe(holdsBoth + 2);
    expect(holdsOne).toBeGreaterThan(holdsBoth + 2);
  });

  test("renames and deletes: the pairs follow the record's words", async () => {
    const made = characterRecord(campaign, { character_name: "Quillon Marrow", created_at: at(300_000) });
    await store.characters.insert(made);
    // The tiers alone (a search that finds nothing by prefix goes on to similar names).
    const tiers = async (query: string) => {
      const words = query.split(" ");
      const ends = words.map((w) => w.slice(0, -1) + String.fromCharCode(w.charCodeAt(w.length - 1) + 1));
      const rows = await db.query(
        `select character_name from search_character_names($1, false, null, to_tsquery('simple', $2), $3, $3, $4, $5, 5, $6::text[], $7::text[])`,
        [campaign, words.map((w) => `${w}:*`).join(" & "), query, `${query.slice(0, -1)}${String.fromCharCode(query.charCodeAt(query.length - 1) + 1)}`, `${query}%`, words, ends],
      );
      return rows.map((r) => r.character_name);
    };
    expect(await tiers("marrow quillon")).toEqual(["Quillon Marrow"]);
    await store.characters.replace({ ...made, character_name: "Quillon Harrow" });
    expect(await tiers("marrow quillon")).toEqual([]);
    expect(await tiers("harrow quil")).toEqual(["Quillon Harrow"]);
    await store.characters.delete(made.id);
    expect(await tiers("harrow quil")).toEqual([]);
  });
});
