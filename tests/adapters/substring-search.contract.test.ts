// Issue 15 (migration 0031): list search's substring step takes its total from per-word counters
// less the records holding two of the matched words, and its page from each word's newest records.
// Every page and total is checked against what the names hold, worked out here from the names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Character } from "../../domain/characters.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";
import { wordDrift } from "../support/search-counters.ts";

type PlanNode = { "Shared Hit Blocks": number; "Shared Read Blocks": number };

await forEachBackend("substring search totals from word counters", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let owner: string;

  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(owner, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };
  const character = (campaignId: string, name: string, aliases: string[], offset: number, approved = true): Character =>
    characterRecord(campaignId, { character_name: name, character_aliases: aliases, approved, created_at: at(offset) });
  /** Every page of a search at `size`: the names in the order served and every total seen. */
  const allPages = async (campaign: string, search: string, size: number, approvedOnly = true) => {
    const names: string[] = [];
    const totals = new Set<number>();
    for (let page = 1; page <= 50; page++) {
      const { rows, total } = await store.characters.list(campaign, { approvedOnly, search }, { page, size });
      totals.add(total);
      if (!rows.length) break;
      names.push(...rows.map((c) => c.character_name));
    }
    return { names, totals: [...totals] };
  };
  const drift = (campaign: string) => wordDrift(db, campaign);

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "substr@example.test", role: "user", created_at: at() }))!.id;
  });
  afterAll(async () => close?.());

  test("a record holding two or three matching words is counted once; pages newest first neither overlap nor skip", async () => {
    const campaign = await newCampaign("Doubles");
    // Offsets are creation order (ms); 40 and 41 share one instant, so the id decides between them.
    const made = [
      character(campaign, "Vexqua Avexquar", ["Bevexqua"], 10), // three words hold "exqu"
      character(campaign, "Lorn Vexqua", [], 20),
      character(campaign, "Avexquar Dunmir", ["Vexqua"], 30), // two
      character(campaign, "Kara Thorn", ["Avexquar"], 40),
      character(campaign, "Mira Bevexqua", [], 40),
      character(campaign, "Zan Gor", [], 50), // none
      character(campaign, "Sylas Vexqua", [], 60),
      character(campaign, "Vexqualon Vexqua", [], 70), // two
      character(campaign, "Bran Ixom", ["Avexquar", "Bevexqua"], 80), // two, both aliases
      character(campaign, "Rathe Vexqua", [], 90, false), // unapproved
    ];
    for (const c of made) await store.characters.insert(c);
    const holding = (query: string, approvedOnly: boolean) =>
      made
        .filter((c) => (!approvedOnly || c.approved) && [c.character_name, ...c.character_aliases].join(" ").toLowerCase().includes(query))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : -1))
        .map((c) => c.character_name);
    for (const [query, approvedOnly, expected] of [
      ["exqu", true, ["Bran Ixom", "Vexqualon Vexqua", "Sylas Vexqua", ...(made[4]!.id > made[3]!.id ? ["Mira Bevexqua", "Kara Thorn"] : ["Kara Thorn", "Mira Bevexqua"]), "Avexquar Dunmir", "Lorn Vexqua", "Vexqua Avexquar"]],
      ["exqu", false, ["Rathe Vexqua", "Bran Ixom", "Vexqualon Vexqua", "Sylas Vexqua", ...(made[4]!.id > made[3]!.id ? ["Mira Bevexqua", "Kara Thorn"] : ["Kara Thorn", "Mira Bevexqua"]), "Avexquar Dunmir", "Lorn Vexqua", "Vexqua Avexquar"]],
      ["vexquar", true, ["Bran Ixom", "Kara Thorn", "Avexquar Dunmir", "Vexqua Avexquar"]],
      ["evexqua", true, ["Bran Ixom", "Mira Bevexqua", "Vexqua Avexquar"]],
    ] as const) {
      expect(holding(query, approvedOnly)).toEqual([...expected]);
      for (const size of [1, 2, 3, 20])
        expect({ query, approvedOnly, size, ...(await allPages(campaign, query, size, approvedOnly)) }).toEqual({ query, approvedOnly, size, names: [...expected], totals: [expected.length] });
    }
    // Past the last page: no rows, the total still exact.
    expect(await store.characters.list(campaign, { approvedOnly: true, search: "exqu" }, { page: 9, size: 2 })).toEqual({ rows: [], total: 8 });
    // Two letters have no 3-letter piece: counted by grouping the entries, the same answer.
    expect(await allPages(campaign, "xq", 3)).toEqual({ names: holding("xq", true), totals: [8] });
    expect(await drift(campaign)).toEqual([]);
  });

  test("a word whose records are all newer than another's fills the page from it alone", async () => {
    // Each word's first share of a page is by its part of the matches (half each here); the page
    // needs more of the newer word than that share.
    const campaign = await newCampaign("Skewed");
    for (let i = 1; i <= 12; i++) await store.characters.insert(character(campaign, `Bexqi ${i}`, [], i));
    for (let i = 1; i <= 12; i++) await store.characters.insert(character(campaign, `Avexqo ${i}`, [], 1000 + i));
    const newest = [...Array.from({ length: 12 }, (_, i) => `Avexqo ${12 - i}`), ...Array.from({ length: 12 }, (_, i) => `Bexqi ${12 - i}`)];
    for (const size of [5, 7, 13])
      expect({ size, ...(await allPages(campaign, "exq", size)) }).toEqual({ size, names: newest, totals: [24] });
    // The word's newest records kept with it go: deleted, or renamed away (keeping its age).
    const { rows } = await store.characters.list(campaign, { approvedOnly: true }, { page: 1, size: 50 });
    const byName = new Map(rows.map((c) => [c.character_name, c]));
    for (let i = 7; i <= 12; i++) await store.characters.delete(byName.get(`Avexqo ${i}`)!.id);
    await store.characters.replace({ ...byName.get("Bexqi 12")!, character_name: "Avexqo 0" });
    const after = [...Array.from({ length: 6 }, (_, i) => `Avexqo ${6 - i}`), "Avexqo 0", ...Array.from({ length: 11 }, (_, i) => `Bexqi ${11 - i}`)];
    for (const size of [2, 5])
      expect({ size, ...(await allPages(campaign, "exq", size)) }).toEqual({ size, names: after, totals: [18] });
    expect(await drift(campaign)).toEqual([]);
  });

  test("plain words: the prefix step and the step after it in one statement (substring pages and past the end, similar names)", async () => {
    const campaign = await newCampaign("Steps");
    const names = ["Oravexa Lind", "Tavexa Morn", "Vexa Brook", "Quill Savexan"];
    for (const [i, name] of names.entries()) await store.characters.insert(character(campaign, name, [], 10 * (i + 1)));
    // The same store over a database that counts the statements it is sent.
    let statements = 0;
    const counting = new Proxy(db, {
      get: (target, key) => (key === "query" ? (text: string, params?: unknown[]) => (statements++, target.query(text, params)) : Reflect.get(target, key)),
    });
    const counted = sqlRecordStore(counting);
    const search = async (query: string, page: number, size: number) => {
      statements = 0;
      const { rows, total } = await counted.characters.list(campaign, { approvedOnly: true, search: query }, { page, size });
      return { names: rows.map((c) => c.character_name), total, statements };
    };
    // "vexa" starts "Vexa": the prefix step's page.
    expect(await search("vexa", 1, 10)).toEqual({ names: ["Vexa Brook"], total: 1, statements: 1 });
    // "avex" inside words only: newest first, total from the rows; a later page and the page past the end keep it.
    expect(await search("avex", 1, 2)).toEqual({ names: ["Quill Savexan", "Tavexa Morn"], total: 3, statements: 1 });
    expect(await search("avex", 2, 2)).toEqual({ names: ["Oravexa Lind"], total: 3, statements: 1 });
    expect((await search("avex", 3, 2)).total).toBe(3);
    // Neither the start nor the inside of a word: similar names ("Savexan" for "savexam").
    const similar = await search("savexam", 1, 10);
    expect(similar.names).toEqual(["Quill Savexan"]);
    expect(similar.total).toBe(1);
    // Several words: "mornn" starts no word, so no prefix match, and the text cannot hold them in a
    // row: similar names in the same statement.
    expect(await search("tavexa mornn", 1, 10)).toEqual({ names: ["Tavexa Morn"], total: 1, statements: 1 });
    expect(await search("tavexa mornn", 2, 10)).toEqual({ names: [], total: 1, statements: 3 });
    // "exa" ends "Vexa" and "bro" starts "Brook": the text step (ilike) is the second statement.
    expect(await search("exa bro", 1, 10)).toEqual({ names: ["Vexa Brook"], total: 1, statements: 2 });
  });

  test("many words' records interleaved in time: every page cut from the words' kept records and those read on", async () => {
    // Nine words holding "zaxq", two to eleven records each (a word keeps its 4 newest), created
    // round-robin (so a page takes a few records of many words), every fourth record also holding a second word in an alias, and
    // some creation times shared (ids decide). Migration 0036 cuts the kept records to the page's end
    // before reading on: a cut one short, or taken before the records of two words are merged, loses
    // or repeats a record on some page.
    const campaign = await newCampaign("Interleaved");
    const words = ["Azaxqa", "Bezaxq", "Czaxqi", "Dozaxqo", "Ezaxqu", "Fizaxqy", "Gazaxq", "Hozaxqe", "Izaxqor"];
    const made: Character[] = [];
    const rounds = [3, 6, 7, 4, 9, 10, 11, 2, 6];
    for (let round = 0; round < 11; round++)
      words.forEach((word, w) => {
        if (round >= rounds[w]!) return;
        const i = made.length;
        made.push(character(campaign, `${word} ${round}`, i % 4 === 0 ? [words[(w + 3) % words.length]!] : [], 10 * round + (w % 3)));
      });
    for (const c of made) await store.characters.insert(c);
    const holdingQuery = (query: string) =>
      made
        .filter((c) => [c.character_name, ...c.character_aliases].join(" ").toLowerCase().includes(query))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : -1))
        .map((c) => c.character_name);
    const expected = holdingQuery("zaxq");
    expect(expected.length).toBe(made.length);
    for (const size of [2, 4, 5, 9, 20])
      expect({ size, ...(await allPages(campaign, "zaxq", size)) }).toEqual({ size, names: expected, totals: [made.length] });
    // Two words each, inside them (no word starts with the query, so the substring step answers):
    // "ozaxq" in Dozaxqo and Hozaxqe, "zaxqo" in Dozaxqo and Izaxqor.
    expect([holdingQuery("ozaxq").length, holdingQuery("zaxqo").length]).toEqual([9, 12]);
    for (const query of ["ozaxq", "zaxqo"])
      for (const size of [2, 7])
        expect({ query, size, ...(await allPages(campaign, query, size)) }).toEqual({ query, size, names: holdingQuery(query), totals: [holdingQuery(query).length] });
    expect(await drift(campaign)).toEqual([]);
  });

  test("counters and overlaps follow renames, approval changes, deletes and the campaign's deletion", async () => {
    const campaign = await newCampaign("Changing");
    const a = character(campaign, "Vexqua Avexquar", [], 1);
    const b = character(campaign, "Lorn Vexqua", [], 2);
    const c = character(campaign, "Mira Bevexqua", ["Avexquar"], 3, false);
    for (const made of [a, b, c]) await store.characters.insert(made);
    const found = async (search: string, approvedOnly = true) => {
      const { rows, total } = await store.characters.list(campaign, { approvedOnly, search }, { page: 1, size: 1 });
      return { first: rows[0]?.character_name ?? null, total };
    };
    expect(await found("exqu")).toEqual({ first: "Lorn Vexqua", total: 2 });
    expect(await found("exqu", false)).toEqual({ first: "Mira Bevexqua", total: 3 });

    // A loses one of its two matching words, C is approved (moves list), B loses its only one.
    await store.characters.replace({ ...a, character_name: "Vexqua Dunmir" });
    await store.characters.replace({ ...c, approved: true });
    await store.characters.replace({ ...b, character_name: "Lorn Thorn" });
    expect(await found("exqu")).toEqual({ first: "Mira Bevexqua", total: 2 });
    expect(await found("exqu", false)).toEqual({ first: "Mira Bevexqua", total: 2 });
    expect(await found("vexquar")).toEqual({ first: "Mira Bevexqua", total: 1 });
    // A gains the word back in an alias: two words again, one record.
    await store.characters.replace({ ...a, character_name: "Vexqua Dunmir", character_aliases: ["Avexquar"] });
    expect(await found("exqu")).toEqual({ first: "Mira Bevexqua", total: 2 });
    expect(await found("vexquar")).toEqual({ first: "Mira Bevexqua", total: 2 });
    expect(await drift(campaign)).toEqual([]);
    const overlapRows = async () =>
      (await db.query(`select record_id, terms, shared from search_word_overlaps where campaign_id = $1`, [campaign]))
        .map((r) => [String(r.record_id), [...(r.terms as string[])], [...(r.shared as string[])]] as const)
        .sort((x, y) => (x[0] < y[0] ? -1 : 1));
    const expectedOverlaps = [
      [a.id, ["avexquar", "vexqua"], ["exq", "qua", "vex", "xqu"]],
      [b.id, ["lorn", "thorn"], ["orn"]],
      [c.id, ["avexquar", "bevexqua"], ["exq", "qua", "vex", "xqu"]],
    ] as const;
    expect(await overlapRows()).toEqual([...expectedOverlaps].sort((x, y) => (x[0] < y[0] ? -1 : 1)));

    await store.characters.delete(c.id);
    expect(await found("exqu")).toEqual({ first: "Vexqua Dunmir", total: 1 });
    expect(await drift(campaign)).toEqual([]);
    expect(await store.campaigns.delete(campaign)).toBe(true);
    expect(await db.query(`select 1 from search_word_overlaps where campaign_id = $1`, [campaign])).toEqual([]);
    expect(await db.query(`select term, sum(n) from search_vocabulary where campaign_id = $1 group by term having sum(n) <> 0`, [campaign])).toEqual([]);
  });

  test("a first page among 3,000 records holding the word reads a few index pages, not every entry", async () => {
    const campaign = await newCampaign("Many");
    // Every record holds "avexqa"; every tenth also "bexqo" (two matching words); created a minute apart.
    await db.query(
      `insert into characters (id, campaign_id, character_name, character_aliases, search_text, created_at)
       select $1 || '-' || lpad(i::text, 5, '0'), $1, 'Avexqa ' || i, case when i % 10 = 0 then '["Bexqo"]'::jsonb else '[]'::jsonb end,
              'avexqa ' || i || case when i % 10 = 0 then ' bexqo' else '' end, timestamptz '2026-01-01' + i * interval '1 minute'
       from generate_series(1, 3000) i`,
      [campaign],
    );
    // As the worker's passes leave them: index-only reads need the visibility map; the words' rows were rewritten by the insert.
    await db.exec(`vacuum analyze search_terms, search_vocabulary`);
    const { rows, total } = await store.characters.list(campaign, { approvedOnly: true, search: "exq" }, { page: 1, size: 5 });
    expect({ names: rows.map((c) => c.character_name), total }).toEqual({ names: ["Avexqa 3000", "Avexqa 2999", "Avexqa 2998", "Avexqa 2997", "Avexqa 2996"], total: 3000 });
    const page3 = await store.characters.list(campaign, { approvedOnly: true, search: "exq" }, { page: 3, size: 5 });
    expect(page3.rows.map((c) => c.character_name)).toEqual(["Avexqa 2990", "Avexqa 2989", "Avexqa 2988", "Avexqa 2987", "Avexqa 2986"]);
    expect((await store.characters.list(campaign, { approvedOnly: true, search: "exqo" }, { page: 1, size: 2 })).total).toBe(300);

    const sql = `select * from search_words_containing($1, 'characters', 'exq', 5, 0)`;
    await db.query(sql, [campaign]);
    const [row] = await db.query(`explain (analyze, buffers, format json) ${sql}`, [campaign]);
    const value = Object.values(row!)[0];
    const plan = ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
    // The index holds 9,300 entries of this campaign (its words and numbers); the two words' 3,300
    // alone fill over 40 of its pages, which reading every match (the grouped count) would visit.
    const pages = Number((await db.query(`select pg_relation_size('search_terms_newest') / 8192 as pages`))[0]!.pages);
    expect(pages).toBeGreaterThan(120);
    expect(plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]).toBeLessThanOrEqual(30);

    // A record's delete and rename find its words by primary key: before 0031 the trigger compared
    // the list in "C" (TG_TABLE_NAME's collation) against the key's default collation and read
    // search_terms whole (where the database's collation is not C: this PostgreSQL's C.UTF-8; PGlite's
    // is C). Counted in the writing transaction (pg_stat_xact_*: no flush to wait for).
    const scans = async (tx: { query: SqlDatabase["query"] }) =>
      Number((await tx.query(`select seq_scan from pg_stat_xact_user_tables where relname = 'search_terms'`))[0]!.seq_scan);
    await db.transaction(async (tx) => {
      const before = await scans(tx);
      await tx.query(`delete from characters where id = $1`, [`${campaign}-02000`]);
      await tx.query(`update characters set character_name = 'Renamed', search_text = 'renamed' where id = $1`, [`${campaign}-01000`]);
      expect((await scans(tx)) - before).toBe(0);
    });
    expect((await store.characters.list(campaign, { approvedOnly: true, search: "exq" }, { page: 1, size: 1 })).total).toBe(2998);
  });
});
