// Issue 15: list search totals and substring pages come from search_terms / search_vocabulary
// (migration 0025), kept by triggers. Every total and page here is checked against what the rows
// hold, worked out in the test from the names themselves.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Character } from "../../domain/characters.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";

const characterOf = (campaignId: string, name: string, aliases: string[] = [], approved = true, offset = 0): Character =>
  characterRecord(campaignId, { character_name: name, character_aliases: aliases, approved, created_at: at(offset) });

// What a character is found by: its name, aliases and type, lower case; by prefix each query word
// must start one of its words, by substring the text must hold the query.
const textOf = (c: Character) => [c.character_name, ...c.character_aliases, c.type].join(" ").toLowerCase();
const startsEach = (c: Character, query: string) => query.split(" ").every((q) => textOf(c).split(/[^a-z0-9]+/).some((w) => w.startsWith(q)));
const holds = (c: Character, query: string) => textOf(c).includes(query);

await forEachBackend("list search from search_terms", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let owner: string;
  const count = async (sql: string, params: unknown[]) => Number((await db.query(`select count(*)::int as n ${sql}`, params))[0]!.n);
  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(owner, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };
  /** Every page of a search, size 3 (so most pages are full and the total is counted): names and the totals seen. */
  const allPages = async (campaign: string, search: string, approvedOnly: boolean) => {
    const names: string[] = [];
    const totals = new Set<number>();
    for (let page = 1; page <= 40; page++) {
      const { rows, total } = await store.characters.list(campaign, { approvedOnly, search }, { page, size: 3 });
      totals.add(total);
      if (!rows.length) break;
      names.push(...rows.map((c) => c.character_name));
    }
    return { names: names.sort(), totals: [...totals] };
  };

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "owner@example.test", role: "user", created_at: at() }))!.id;
  });
  afterAll(async () => close?.());

  test("prefix totals and substring pages equal what the names hold, approved or not, never another campaign's", async () => {
    const campaign = await newCampaign("Terms");
    const other = await newCampaign("Elsewhere");
    // A small seeded world: names from few syllables, so prefixes and substrings hit many.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const syllables = ["ka", "ra", "vex", "thor", "dun", "mir"];
    const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => syllables[Math.floor(random() * syllables.length)]).join("");
    const name = () => [word(), word()].map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ");
    const made = Array.from({ length: 60 }, (_, i) => characterOf(campaign, name(), random() < 0.3 ? [word()] : [], random() < 0.8, i));
    for (const c of made) await store.characters.insert(c);
    for (let i = 0; i < 10; i++) await store.characters.insert(characterOf(other, name()));

    for (const query of ["ka", "kar", "vex", "thorka", "ka ra", "dun mir", "avex", "rthor", "xdu", "irka", "a r", "ka k kar"]) {
      for (const approvedOnly of [true, false]) {
        const listed = made.filter((c) => (!approvedOnly || c.approved));
        const byPrefix = listed.filter((c) => startsEach(c, query));
        const expected = (byPrefix.length ? byPrefix : listed.filter((c) => holds(c, query))).map((c) => c.character_name).sort();
        expect({ query, approvedOnly, ...(await allPages(campaign, query, approvedOnly)) }).toEqual({ query, approvedOnly, names: expected, totals: [expected.length] });
      }
    }
    // The generator did make big answers: the counted paths ran.
    expect(made.filter((c) => c.approved && startsEach(c, "ka")).length).toBeGreaterThan(10);
    // Three words, a full page of 3 or more: counted by the intersection search_terms_count builds for more than two (0026).
    expect(made.filter((c) => c.approved && startsEach(c, "ka k kar")).length).toBeGreaterThanOrEqual(3);
    expect(made.filter((c) => c.approved && !made.some((d) => startsEach(d, "avex")) && holds(c, "avex")).length).toBeGreaterThan(3);
  });

  test("renames, approval changes, deletes and the campaign's deletion keep the words exact", async () => {
    const campaign = await newCampaign("Changing");
    const [a, b, c] = [characterOf(campaign, "Quorin Vale", ["Quo"], true, 1), characterOf(campaign, "Quorra Stone", [], true, 2), characterOf(campaign, "Quorvid Ash", [], false, 3)];
    for (const made of [a, b, c]) await store.characters.insert(made);
    const found = async (search: string, approvedOnly = true) => {
      const { rows, total } = await store.characters.list(campaign, { approvedOnly, search }, { page: 1, size: 1 });
      return { first: rows[0]?.character_name ?? null, total };
    };
    expect(await found("quo")).toEqual({ first: "Quorin Vale", total: 2 });
    expect(await found("quo", false)).toEqual({ first: "Quorin Vale", total: 3 });
    // A type filter is counted from the text index, not search_terms: same answer.
    const typed = await store.characters.list(campaign, { approvedOnly: false, type: "NPC", search: "quo" }, { page: 1, size: 2 });
    expect({ names: typed.rows.map((c) => c.character_name), total: typed.total }).toEqual({ names: ["Quorin Vale", "Quorra Stone"], total: 3 });
    expect(await found("orr")).toEqual({ first: "Quorra Stone", total: 1 });

    await store.characters.replace({ ...b, character_name: "Marlow Stone" });
    await store.characters.replace({ ...c, approved: true });
    expect(await found("quo")).toEqual({ first: "Quorin Vale", total: 2 });
    expect(await found("marl")).toEqual({ first: "Marlow Stone", total: 1 });
    // "orr" is still in the campaign's vocabulary, but no record holds it any more.
    expect(await found("orr")).toEqual({ first: null, total: 0 });
    expect(await found("sto")).toEqual({ first: "Marlow Stone", total: 1 });

    await store.characters.delete(a.id);
    expect(await found("quo")).toEqual({ first: "Quorvid Ash", total: 1 });
    expect(await count(`from search_terms where record_id = $1`, [a.id])).toBe(0);
    // Words of every record: the distinct words of name, aliases and type.
    expect(await count(`from search_terms where campaign_id = $1`, [campaign])).toBe(6);

    expect(await store.campaigns.delete(campaign)).toBe(true);
    expect(await count(`from search_terms where campaign_id = $1`, [campaign])).toBe(0);
  });

  test("entities are searched per kind; words outside ASCII are counted from the text index", async () => {
    const campaign = await newCampaign("Places");
    const place = (name: string, kind: "location" | "item", offset: number) => ({
      id: newId(), campaign_id: campaign, kind, name, aliases: [], description: null, type: null, image: null, tcg_image: null, parent_id: null, merge: false, created_at: at(offset), updated_at: null,
    });
    for (const [i, name] of ["Ærindel", "Ærinor Keep", "Ærin", "Emon"].entries()) await store.entities.insert(place(name, "location", i));
    await store.entities.insert(place("Ærin's Blade", "item", 9));
    const search = async (query: string, size = 1) => {
      const { rows, total } = await store.entities.list(campaign, "location", { search: query }, { page: 1, size });
      return { first: rows[0]?.name ?? null, total };
    };
    expect(await search("ærin")).toEqual({ first: "Ærin", total: 3 });
    expect(await search("rin")).toEqual({ first: "Ærin", total: 3 });
    expect(await search("kee")).toEqual({ first: "Ærinor Keep", total: 1 });
    expect(await search("mon")).toEqual({ first: "Emon", total: 1 });
  });
});
