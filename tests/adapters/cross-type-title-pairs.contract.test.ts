// Issue 15 (migration 0047): cross-type search's title stage finds the titles holding every query
// word as a prefix from an index of the titles' word pairs instead of the title index (which reads
// every posting of every title word a prefix starts). The answers must be the title index's: every
// query here is compared with search_ranked without pairs (the title index, 0042's
// statements) followed by the adapter's later stages, and the pairs index must be the way in for a
// name of two or more words.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { prefixQuery } from "../../adapters/sql/search.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

const SYLLABLES = ["ka", "ra", "vex", "thor", "dun", "mir", "el", "lia"];

await forEachBackend("cross-type search's title stage from title word pairs", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaign: string;
  let author: string;
  const ALL = ["characters", "locations", "journals"];

  const now = async (q: string, types = ALL, viewer = "viewer", executor: SqlExecutor = db) => {
    const hits = await sqlRecordStore(executor as SqlDatabase).search.search(campaign, q, types, 5, viewer);
    return [...hits.values()].flat().map((hit) => ({ doc_type: hit.doc_type, doc_id: hit.doc_id, title: hit.title, score: hit.score }));
  };
  /** The full-text stage through the title index (search_ranked without pairs): what the pairs must find. */
  const byTitleIndex = async (q: string, types = ALL, viewer = "viewer") =>
    (await db.query(
      `select doc_type, doc_id, title, score from search_ranked($1, $2, to_tsquery('simple', $3), websearch_to_tsquery('english', $4), $5, 200, 5, true, null)`,
      [campaign, types.join(","), prefixQuery(q), q, viewer],
    )).map((row) => ({ doc_type: String(row.doc_type), doc_id: String(row.doc_id), title: String(row.title), score: Math.round(Number(row.score) * 1000) / 1000 }));

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    author = (await store.users.insert({ id: newId(), name: "Owner", email: "titlepairs@example.test", role: "user", created_at: at() }))!.id;
    const record = campaignRecord(author, { title: "Title pairs" });
    const elsewhere = campaignRecord(author, { title: "Elsewhere" });
    await store.campaigns.insert(record);
    await store.campaigns.insert(elsewhere);
    campaign = record.id;
    const doc = (campaignId: string, doc_type: string, doc_id: string, title: string, body = "", visibility?: { author_id: string; is_public: boolean; shared_with: string[] }) =>
      store.search.upsert({ campaign_id: campaignId, doc_type, doc_id, title, body, ...(visibility ? { visibility } : {}) }, at());
    // Titles from few syllables, so a query's words start many title words, in every position.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join("");
    const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
    for (let i = 0; i < 150; i++) {
      await doc(campaign, "characters", `c${i}`, `${cap(word())} ${cap(word())}`, random() < 0.2 ? `friend of ${cap(word())} ${cap(word())}` : "");
      await doc(campaign, "locations", `l${i}`, `${cap(word())} ${cap(word())}${random() < 0.3 ? ` ${cap(word())}` : ""}`);
    }
    // More titles holding one pair than the stage's 200 candidates (the per-type scans then run).
    for (let i = 0; i < 205; i++) await doc(campaign, "locations", `many${i}`, `Dunka Mirel ${i}`);
    // The query itself, in another order, in a longer title, a title with too many words for its
    // pairs (it holds the marker) and one with a word too long for them; a private journal; the same
    // names in another campaign (never found here).
    await doc(campaign, "characters", "target", "Vexqualia Radra", "a wayfarer");
    await doc(campaign, "characters", "reversed", "Radra Vexqualia");
    await doc(campaign, "locations", "keep", "Vexqualia Radrabel Keep");
    await doc(campaign, "locations", "many-words", `${Array.from({ length: 30 }, (_, i) => `Word${i}`).join(" ")} Vexqualia Radra`);
    await doc(campaign, "characters", "long-word", `Radra ${"q".repeat(120)} Vexqualia`);
    await doc(campaign, "journals", "hidden", "Vexqualia Radra notes", "", { author_id: author, is_public: false, shared_with: [] });
    await doc(elsewhere.id, "characters", "other", "Vexqualia Radra");
    await db.exec(`analyze search_documents; analyze search_title_terms; analyze search_title_vocabulary`);
  });
  afterAll(async () => close?.());

  test("a name of two words: the title pairs index is asked, the title index not", async () => {
    const counted = (q: string) =>
      db.transaction(async (tx) => {
        const indexes = ["search_documents_title_fts", "search_documents_title_pairs"];
        const scans = async () => (await tx.query(`select array_agg(pg_stat_get_xact_numscans(i::regclass)::int order by o) as n from unnest($1::text[]) with ordinality u(i, o)`, [indexes]))[0]!.n as number[];
        const before = await scans();
        const hits = await now(q, ALL, "viewer", tx);
        const after = await scans();
        return { ids: hits.map((h) => `${h.doc_type}/${h.doc_id}`).sort(), titleScans: after[0]! - before[0]!, pairScans: after[1]! - before[1]! };
      });
    // Literal: every title of this campaign holding both words as prefixes that the viewer may see.
    expect(await counted("Vexqualia Radra")).toEqual({
      ids: ["characters/long-word", "characters/reversed", "characters/target", "locations/keep", "locations/many-words"],
      titleScans: 0,
      pairScans: 1,
    });
    // One word, or one word starting the other: the title index, as before.
    expect(await counted("Radra Radrabel")).toEqual({ ids: ["locations/keep"], titleScans: 1, pairScans: 0 });
    // More than 200 titles hold the pair: the one stopped scan from the pairs, then each type's from the title index.
    const many = await counted("Dunka Mirel");
    expect(many.pairScans).toBe(1);
    expect(many.titleScans).toBe(ALL.length);
  });

  test("the same answers as the title index for every query, type set and viewer", async () => {
    const queries = [
      "Vexqualia Radra", "Radra Vexqualia", "vexqualia radr", "vex rad", "Vexqualia Radra Keep", "keep vexqualia", "Dunka Mirel",
      "dun mir", "mirel dunka 7", "ka ra", "ra ka", "el lia", "lia el", "thor dun", "vex", "ra", "ra rad", "radra radrabel",
      "word3 radra", "word29 vexqualia", "qqqqq radra", "vexqualia notes", "kavex thor", "elmir", "friend radra", "wayfarer radra",
      "vexka", "x y",
    ];
    let compared = 0;
    for (const types of [ALL, ["characters"], ["locations", "journals"]])
      for (const viewer of ["viewer", author])
        for (const q of queries) {
          const expected = await byTitleIndex(q, types, viewer);
          if (!expected.length) continue;
          expect({ q, types, viewer, hits: await now(q, types, viewer) }).toEqual({ q, types, viewer, hits: expected });
          compared += expected.length;
        }
    expect(compared).toBeGreaterThan(300);
  });

  test("renames and deletes: the pairs follow the title", async () => {
    const ids = async (q: string) => (await now(q)).map((h) => `${h.doc_type}/${h.doc_id}`).sort();
    await store.search.upsert({ campaign_id: campaign, doc_type: "characters", doc_id: "renamed", title: "Zorblat Quendri", body: "" }, at());
    expect(await ids("zorblat quen")).toEqual(["characters/renamed"]);
    await store.search.upsert({ campaign_id: campaign, doc_type: "characters", doc_id: "renamed", title: "Zorblat Mirquend", body: "" }, at());
    // The new title's pair is found, by the same full-text answer the title index gives.
    expect(await now("zorblat mirq", ["characters"])).toEqual(await byTitleIndex("zorblat mirq", ["characters"]));
    expect(await ids("zorblat mirq")).toEqual(["characters/renamed"]);
    expect(await byTitleIndex("zorblat quen")).toEqual([]);
    await store.search.remove("characters", "renamed");
    expect(await ids("zorblat mirq")).toEqual([]);
  });
});
