// Issue 15 (migration 0030): list search's similar-names step draws its candidates from the
// campaign's vocabulary (the words nearest each query word, then their records), so it reads a
// bounded number of records however many share the query's trigrams; the full `<%` over the
// campaign is only the fallback when that finds nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { capturingExecutor } from "../support/plans.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

// Names built as the bench builds them (few syllables, so every trigram of a name is common).
const SYLLABLES = ["ka", "ra", "vex", "thor", "dun", "mir", "el", "zan", "gor", "lia", "bran", "qua", "dra", "ix"];
const RADRAS = 300;

await forEachBackend("similar names from the vocabulary", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaign: string;
  const names = async (search: string, page = { page: 1, size: 5 }, kind?: "location") => {
    const { rows, total } = kind
      ? await store.entities.list(campaign, kind, { search }, page)
      : await store.characters.list(campaign, { approvedOnly: true, search }, page);
    return { names: rows.map((r) => String("character_name" in r ? r.character_name : r.name)), total };
  };

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "similar@example.test", role: "user", created_at: at() }))!.id;
    const record = campaignRecord(owner, { title: "Typos" });
    await store.campaigns.insert(record);
    campaign = record.id;
    // RADRAS characters "<word> Radra": each holds the query's second word exactly, and their first
    // words share trigrams with "vexqaulia"; then the target and two near misses, created last.
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join("");
    const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
    const made = Array.from({ length: RADRAS }, (_, i) => `${cap(word())} Radra`.replace(/^Vexqualia /, `Vexqualix${i} `));
    made.push("Vexlia Radra", "Vexqualia Dunmir", "Vexqualia Radra", "Black Thorn", "Underkraghammerholdfast");
    await db.query(
      `insert into characters (id, campaign_id, character_name, search_text, created_at)
       select $1 || '-c' || i, $1, n, lower(n), timestamptz '2026-01-01' + i * interval '1 minute'
       from unnest($2::text[]) with ordinality t(n, i)`,
      [campaign, made],
    );
    await db.query(
      `insert into entities (id, campaign_id, kind, name, search_text, created_at)
       select $1 || '-e' || i, $1, 'location', n, lower(n), timestamptz '2026-01-01' + i * interval '1 minute'
       from unnest($2::text[]) with ordinality t(n, i)`,
      [campaign, made],
    );
    await db.exec(`analyze characters; analyze entities; analyze search_terms; analyze search_vocabulary`);
  });
  afterAll(async () => close?.());

  test("two swapped letters: the misspelt name first, an exact total", async () => {
    // "vexqaulia" is no word's prefix or substring: only similar names find it. "vexqualia" is one edit
    // away (0035: two adjacent letters swapped), so it alone stands for the query word: "Vexlia Radra"
    // (trigram-near, three letters away) is no longer listed beside it, nor are the 300 records holding
    // only "radra" (the candidates are the records holding a near word of every query word).
    const first = await names("Vexqaulia Radra");
    expect(first).toEqual({ names: ["Vexqualia Radra"], total: 1 });
    expect(await names("Vexqaulia Radra", { page: 2, size: 5 })).toEqual({ names: [], total: 1 });
    expect((await names("Vexqaulia Radra", { page: 1, size: 5 }, "location")).names).toEqual(["Vexqualia Radra"]);
    expect((await names("Vexqualia Dunmri")).names[0]).toBe("Vexqualia Dunmir");
    // One edit from "vexlia" (swapped), and a letter missing or added: still found.
    expect((await names("Vexlai Radra")).names[0]).toBe("Vexlia Radra");
    expect((await names("Vexqalia Radra")).names[0]).toBe("Vexqualia Radra");
    expect((await names("Vexqualiia Radra")).names[0]).toBe("Vexqualia Radra");
  });

  /** A list search in one transaction, with how many scans it made of each named index. */
  const scanning = (search: string, indexes: string[]) =>
    db.transaction(async (tx) => {
      // The counters hold this backend's scans not yet reported, earlier transactions' included: the difference.
      const scans = async () => (await tx.query(`select array_agg(pg_stat_get_xact_numscans(i::regclass)::int order by o) as n from unnest($1::text[]) with ordinality u(i, o)`, [indexes]))[0]!.n as number[];
      const before = await scans();
      const { executor, statements } = capturingExecutor(tx);
      const { rows } = await sqlRecordStore(executor as SqlDatabase).characters.list(campaign, { approvedOnly: true, search }, { page: 1, size: 5 });
      const after = await scans();
      return {
        names: rows.map((c) => c.character_name),
        scans: Object.fromEntries(indexes.map((index, i) => [index, after[i]! - before[i]!])),
        substring: statements.filter((s) => s.sql.includes("ilike")).length,
      };
    });

  test("a typo skips the prefix and substring steps and finds its word through the deletion variants, no trigram index read", async () => {
    // "rdara": radra with two letters swapped, trigram similarity 0.2 (0030's lookup found nothing near).
    const indexes = ["search_vocabulary_trgm", "characters_trgm", "characters_fts", "characters_word_pairs", "search_word_variants_pkey"];
    const found = await scanning("Vexqualia Rdara", indexes);
    expect(found.names[0]).toBe("Vexqualia Radra");
    expect(found.substring).toBe(0);
    expect(found.scans).toEqual({ search_vocabulary_trgm: 0, characters_trgm: 0, characters_fts: 0, characters_word_pairs: 0, search_word_variants_pkey: found.scans.search_word_variants_pkey! });
    // Counted once per array element on PostgreSQL 15, once in all on later versions (PGlite).
    expect(found.scans.search_word_variants_pkey).toBeGreaterThan(0);
    // A word two edits from every word is still found through the trigram neighbours.
    const far = await scanning("Vexqualiaxx Radra", indexes);
    expect(far.names[0]).toBe("Vexqualia Radra");
    expect(far.scans.search_vocabulary_trgm).toBeGreaterThan(0);
    // The steps still run where they can match: a prefix, and a query ending a word and starting another.
    // (The prefix step's last tier reads two plain words' pairs, migration 0041.)
    expect((await scanning("Vexqua Rad", indexes)).scans.characters_word_pairs).toBeGreaterThan(0);
    const inside = await scanning("exqualia Radra", indexes);
    expect(inside.names).toEqual(["Vexqualia Radra"]);
    expect(inside.substring).toBe(1);
    expect(inside.scans.characters_fts).toBe(0);
    expect(inside.scans.characters_word_pairs).toBe(0);
  });

  test("each word of the vocabularies has its one-letter deletions, written with the word", async () => {
    await db.query(
      `insert into characters (id, campaign_id, character_name, search_text, created_at) values ($1 || '-new', $1, 'Quorbelmandrix', 'quorbelmandrix', now())`,
      [campaign],
    );
    const variants = (await db.query(`select variant from search_word_variants where campaign_id = $1 and term = 'quorbelmandrix'`, [campaign])).map((r) => r.variant);
    // 14 letters, no two alike side by side: 14 deletions.
    expect(variants).toHaveLength(14);
    expect(variants).toContain("quorbelmandix");
    expect(variants).toContain("uorbelmandrix");
    expect((await names("Quorbelmandirx")).names).toEqual(["Quorbelmandrix"]);
    await db.query(`delete from characters where id = $1 || '-new'`, [campaign]);
    // The word stays in the vocabulary (never pruned) but no record holds it: not a near word any more.
    expect((await names("Quorbelmandirx")).total).toBe(0);
  });

  test("a compound name is still found, and a word inside a long one through the full similarity fallback", async () => {
    expect((await names("blackthorn")).names).toEqual(["Black Thorn"]);
    // "kraghammerx" is too unlike the 23-letter word for the vocabulary's neighbours (similarity
    // 0.29), but two thirds of its trigrams are in it: only the full `<%` finds it.
    const { executor, statements } = capturingExecutor(db);
    const found = await sqlRecordStore(executor as SqlDatabase).characters.list(campaign, { approvedOnly: true, search: "kraghammerx" }, { page: 1, size: 5 });
    expect({ names: found.rows.map((c) => c.character_name), total: found.total }).toEqual({ names: ["Underkraghammerholdfast"], total: 1 });
    expect(statements.filter((s) => s.sql.includes("search_similar_names"))).toHaveLength(1);
    expect(statements.filter((s) => s.sql.includes("<%"))).toHaveLength(1);
    expect((await names("qqqqzzzz")).total).toBe(0);
  });

  test(`a typo of a word ${RADRAS} records hold ranks the ${50} best candidates, never the campaign's every match`, async () => {
    // "radrra": five of its seven trigrams are radra's, so every Radra passes `<%` (the full step
    // found all of them); the vocabulary step checks the 50 best scored, all equal here.
    const { executor, statements } = capturingExecutor(db);
    const found = await sqlRecordStore(executor as SqlDatabase).characters.list(campaign, { approvedOnly: true, search: "radrra" }, { page: 1, size: 100 });
    expect(found.total).toBe(50);
    expect(found.rows).toHaveLength(50);
    expect(found.rows.every((c) => c.character_name.endsWith(" Radra"))).toBe(true);
    expect(statements.filter((s) => s.sql.includes("<%"))).toHaveLength(0);
    expect((await names("radrra", { page: 11, size: 5 })).names).toEqual([]);
    expect((await names("radrra", { page: 11, size: 5 })).total).toBe(50);
    // The function's settings: every candidate is read by primary key, never a scan of the table.
    const [config] = await db.query(`select array_to_string(proconfig, ',') as c from pg_proc where proname = 'search_similar_names'`);
    expect(String(config!.c).split(",").sort()).toEqual([
      "enable_bitmapscan=off", "enable_hashjoin=off", "enable_mergejoin=off", "enable_seqscan=off", "jit=off", "plan_cache_mode=force_generic_plan",
    ]);
  });
  test("cross-type: a typo finds the misspelt title first per type, a long word through the full fallback, only what the viewer may see", async () => {
    const doc = (doc_type: string, doc_id: string, title: string, visibility?: { author_id: string; is_public: boolean; shared_with: string[] }) =>
      store.search.upsert({ campaign_id: campaign, doc_type, doc_id, title, body: "", ...(visibility ? { visibility } : {}) }, at());
    for (let i = 0; i < 120; i++) await doc("characters", `radra-${i}`, `${["Kavex", "Mirdun", "Vexlia", "Zangor"][i % 4]}${i} Radra`);
    await doc("characters", "target", "Vexqualia Radra");
    await doc("characters", "near", "Vexlia Radra");
    await doc("locations", "place", "Vexqualia Radra Keep");
    await doc("journals", "hidden", "Vexqualia Radra notes", { author_id: "someone-else", is_public: false, shared_with: [] });
    await doc("locations", "long", "Underkraghammerholdfast");
    const search = (q: string, types = ["characters", "locations", "journals"]) => store.search.search(campaign, q, types, 3, "viewer");
    const hits = await search("Vexqaulia Radra");
    // "vexqualia" is one edit from "vexqaulia": the titles holding it and "radra" are the candidates
    // (0035), so "Vexlia Radra" (trigram-near only) is not listed beside the target.
    expect(hits.get("characters")?.map((h) => h.doc_id)).toEqual(["target"]);
    expect(hits.get("locations")?.map((h) => h.doc_id)).toEqual(["place"]);
    expect(hits.get("journals")).toBeUndefined();
    expect((await search("kraghammerx")).get("locations")?.map((h) => h.doc_id)).toEqual(["long"]);
    // The title words follow the documents: renamed, the old title is no longer found; removed, nothing.
    await doc("characters", "target", "Quillbrook Thane");
    expect((await search("Quilbrook Thane")).get("characters")?.map((h) => h.doc_id)).toEqual(["target"]);
    expect((await search("Vexqaulia Radra")).get("characters")?.map((h) => h.doc_id) ?? []).not.toContain("target");
    // Two letters added: no title word within one edit, its trigram neighbours find it (0.6 to "vexlia").
    expect((await search("Vexliaxx Radra")).get("characters")?.map((h) => h.doc_id)[0]).toBe("near");
    // Two letters swapped in "vexlia": the variants find it, and the title holding it and "radra" comes first.
    expect((await search("Vexlai Radra")).get("characters")?.map((h) => h.doc_id)[0]).toBe("near");
    await store.search.remove("characters", "target");
    expect((await search("Quilbrook Thane")).get("characters")).toBeUndefined();
    const words = (sql: string) => db.query(`select campaign_id, term, doc_type, doc_id from ${sql} order by 1, 2, 3, 4`);
    expect(await words("search_title_terms")).toEqual(await words("(select distinct d.campaign_id, w.lexeme as term, d.doc_type, d.doc_id from search_documents d, unnest(to_tsvector('simple', d.title)) w) t"));
  });
  test("cross-type: a typo skips the half that reads titles holding the query, which still runs where a title can hold it", async () => {
    // The titles of the test above ("Vexlia Radra" is document "near"), searched in a transaction
    // that counts the title trigram index's scans.
    const scanned = (q: string) =>
      db.transaction(async (tx) => {
        const scans = async () => Number((await tx.query(`select pg_stat_get_xact_numscans('search_documents_title_trgm'::regclass) as n`))[0]!.n);
        const before = await scans();
        const hits = await sqlRecordStore(tx as SqlDatabase).search.search(campaign, q, ["characters"], 3, "viewer");
        return { ids: hits.get("characters")?.map((h) => h.doc_id) ?? [], scans: (await scans()) - before };
      });
    // "vexlai" ends no title word: no title can hold "vexlai radra".
    const typo = await scanned("Vexlai Radra");
    expect(typo).toEqual({ ids: typo.ids, scans: 0 });
    expect(typo.ids[0]).toBe("near");
    // "exlia" ends "vexlia" and "radra" starts a word: the half runs and finds it, ranked first (score 1 +).
    const inside = await scanned("exlia Radra");
    expect(inside.scans).toBeGreaterThan(0);
    expect(inside.ids[0]).toBe("near");
    expect((await store.search.search(campaign, "exlia Radra", ["characters"], 3, "viewer")).get("characters")![0]!.score).toBeGreaterThan(1);
  });
  test("a deleted campaign's list words and list vocabulary go with it", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "Leaving too", email: "leaving.lists@example.test", role: "user", created_at: at() }))!.id;
    const gone = campaignRecord(owner, { title: "Gone too" });
    await store.campaigns.insert(gone);
    await db.query(`insert into characters (id, campaign_id, character_name, search_text, created_at) values ($1 || '-c', $1, 'Zorvaxian Quellmoor', 'zorvaxian quellmoor', now())`, [gone.id]);
    const rows = async () => Number((await db.query(
      `select (select count(*) from search_terms where campaign_id = $1) + (select count(*) from search_vocabulary where campaign_id = $1) as n`, [gone.id]))[0]!.n);
    expect(await rows()).toBe(4);
    const variants = async () => Number((await db.query(`select count(*) as n from search_word_variants where campaign_id = $1`, [gone.id]))[0]!.n);
    // zorvaxian: 9 deletions; quellmoor: 7 (either l, either o gives the same).
    expect(await variants()).toBe(16);
    await store.campaigns.delete(gone.id);
    expect(await rows()).toBe(0);
    expect(await variants()).toBe(0);
  });
  test("a deleted campaign's title words and title vocabulary go with it", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "Leaving", email: "leaving@example.test", role: "user", created_at: at() }))!.id;
    const gone = campaignRecord(owner, { title: "Gone" });
    await store.campaigns.insert(gone);
    await store.search.upsert({ campaign_id: gone.id, doc_type: "characters", doc_id: `${gone.id}-c`, title: "Zorvaxian Quellmoor", body: "" }, at());
    const rows = async () => Number((await db.query(
      `select (select count(*) from search_title_terms where campaign_id = $1) + (select count(*) from search_title_vocabulary where campaign_id = $1) as n`, [gone.id]))[0]!.n);
    expect(await rows()).toBe(4);
    await store.campaigns.delete(gone.id);
    expect(await rows()).toBe(0);
  });
});
