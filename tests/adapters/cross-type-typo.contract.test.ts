// Issue 15 (migration 0042): cross-type search is one call (search_cross_type), and the full-text
// stage's title scans are skipped when the title vocabulary shows no title can match (a query word
// that starts no title word of the campaign: a misspelt name). The answers must be those of the three
// statements the adapter sent before (copied below as the reference), for the typo and for every
// query near the condition (a word known only from a body, "or", stop words, non-ASCII words).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Row, SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { prefixEnd, prefixQuery } from "../../adapters/sql/search.ts";
import { likePattern } from "../../adapters/sql/rows.ts";
import { queryWords } from "../../domain/snippets.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { capturingExecutor } from "../support/plans.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

/**
 * The adapter's search before migration 0042 (75e8e4e): three statements, each sent when the one before
 * found nothing. search_ranked is 0042's with its title scans always made (p_titled true, and since 0047 no
 * title pairs: the title index), which is 0032's
 * function (dropped by 0042) statement for statement.
 */
async function searchBefore(db: SqlExecutor, campaignId: string, query: string, docTypes: string[], perType: number, viewerId: string) {
  const ranked = (source: string, rank: string) =>
    `select doc_type, doc_id, title, score, body
     from (
       select d.doc_type, d.doc_id, d.title, d.body, s.score,
              row_number() over (partition by d.doc_type order by s.score desc, d.doc_id) as position
       from ${source} cross join lateral (select ${rank} as score) s
     ) ranked
     where position <= $4 order by doc_type, position`;
  const tsquery = prefixQuery(query);
  let rows: Row[] = [];
  if (tsquery)
    rows = await db.query(
      `select doc_type, doc_id, title, score, body
       from search_ranked($1, $3, to_tsquery('simple', $6), websearch_to_tsquery('english', $2), $5, 200, $4, true, null)`,
      [campaignId, query, docTypes.join(","), perType, viewerId, tsquery],
    );
  const words = queryWords(query);
  const gated = words.length > 1 && words.length <= 16 && words.every((word) => /^[a-z0-9]+$/.test(word)) && query.trim().toLowerCase() === words.join(" ");
  if (!rows.length && words.length)
    rows = await db.query(
      `select doc_type, doc_id, title, score, body
       from (
         select d.*, row_number() over (partition by d.doc_type order by d.score desc, d.similarity desc, d.doc_id) as position
         from (
           select c.doc_type, c.doc_id, c.title, c.body, 1 + word_similarity($2, c.title) as score, 0 as similarity
           from search_titles_containing($1, $3, $6, $5) c
           where not $8::boolean or search_title_words_known($1, $7::text[], $9::text[], $10)
           union all
           select t.doc_type, t.doc_id, t.title, t.body, t.near, word_similarity($2, t.title)
           from search_similar_titles($1, $3, $2, $7::text[], $6, $5, 8, $4 * 2) t
         ) d
       ) ranked
       where position <= $4 order by doc_type, position`,
      [campaignId, query, docTypes.join(","), perType, viewerId, likePattern(query), words.slice(0, 16),
        gated, words.slice(0, 16).map(prefixEnd), gated ? prefixEnd([...words[0]!].reverse().join("")) : null],
    );
  if (!rows.length)
    rows = await db.query(
      ranked(`search_similar($1, $3, $2, $6, $5) d`, `(d.title ilike $6)::int + word_similarity($2, d.title)`),
      [campaignId, query, docTypes.join(","), perType, viewerId, likePattern(query)],
    );
  return rows.map((row) => ({ doc_type: String(row.doc_type), doc_id: String(row.doc_id), title: String(row.title), score: Math.round(Number(row.score) * 1000) / 1000 }));
}

await forEachBackend("cross-type search, one call, the title scans skipped for a typo", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaign: string;
  let author: string;
  const ALL = ["characters", "locations", "journals"];

  const now = async (q: string, types = ALL, viewer = "viewer", executor: SqlExecutor = db) => {
    const hits = await sqlRecordStore(executor as SqlDatabase).search.search(campaign, q, types, 3, viewer);
    return [...hits.values()].flat().map((hit) => ({ doc_type: hit.doc_type, doc_id: hit.doc_id, title: hit.title, score: hit.score }));
  };

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    author = (await store.users.insert({ id: newId(), name: "Owner", email: "xtypo@example.test", role: "user", created_at: at() }))!.id;
    const record = campaignRecord(author, { title: "Typos, one call" });
    await store.campaigns.insert(record);
    campaign = record.id;
    const doc = (doc_type: string, doc_id: string, title: string, body = "", visibility?: { author_id: string; is_public: boolean; shared_with: string[] }) =>
      store.search.upsert({ campaign_id: campaign, doc_type, doc_id, title, body, ...(visibility ? { visibility } : {}) }, at());
    for (let i = 0; i < 40; i++) await doc("characters", `radra-${i}`, `${["Kavex", "Mirdun", "Vexlia", "Zangor"][i % 4]}${i} Radra`, i % 5 === 0 ? "a wayfarer of the north" : "");
    await doc("characters", "target", "Vexqualia Radra", "a wayfarer");
    await doc("characters", "near", "Vexlia Radra");
    await doc("characters", "dunmir", "Vexqualia Dunmir");
    // A word only a body holds: the title vocabulary does not know "quorbelx", the text index does.
    await doc("characters", "body", "Zanthor Radra", "kept by a quorbelx of the old road");
    await doc("locations", "place", "Vexqualia Radra Keep", "a wayfarer rest");
    await doc("locations", "long", "Underkraghammerholdfast");
    await doc("locations", "accented", "Ünterberg Hall");
    await doc("journals", "hidden", "Vexqualia Radra notes", "", { author_id: author, is_public: false, shared_with: [] });
    await db.exec(`analyze search_documents; analyze search_title_terms; analyze search_title_vocabulary`);
  });
  afterAll(async () => close?.());

  test("a typo: the misspelt title per type, from one statement, the title index not asked", async () => {
    const counted = (q: string) =>
      db.transaction(async (tx) => {
        // The title index and, since 0047, the title pairs index (a name's way in): both are title scans.
        const indexes = ["search_documents_title_fts", "search_documents_by_campaign_type", "search_documents_title_pairs"];
        const scans = async () => (await tx.query(`select array_agg(pg_stat_get_xact_numscans(i::regclass)::int order by o) as n from unnest($1::text[]) with ordinality u(i, o)`, [indexes]))[0]!.n as number[];
        const before = await scans();
        const { executor, statements } = capturingExecutor(tx);
        const hits = await now(q, ALL, "viewer", executor);
        const after = await scans();
        return { ids: hits.map((h) => `${h.doc_type}/${h.doc_id}`), statements: statements.length, titleScans: after[0]! - before[0]! + after[2]! - before[2]!, sampleScans: after[1]! - before[1]! };
      });
    // Literal: what the three statements answered before (the reference test below compares every field).
    const typo = await counted("Vexqaulia Radra");
    expect(typo).toEqual({ ids: ["characters/target", "locations/place"], statements: 1, titleScans: 0, sampleScans: typo.sampleScans });
    // The body stages still run (each type's sample first).
    expect(typo.sampleScans).toBeGreaterThan(0);
    // The name itself still goes through the full-text stage (a title scan and each type's sample).
    const name = await counted("Vexqualia Radra");
    expect(name.ids[0]).toBe("characters/target");
    expect(name.statements).toBe(1);
    expect(name.titleScans).toBeGreaterThan(0);
    expect(name.sampleScans).toBeGreaterThan(0);
    // A word no title starts but a body holds: found by the body stage, the title index not asked.
    expect(await counted("Quorbelx Radra")).toEqual({ ids: ["characters/body"], statements: 1, titleScans: 0, sampleScans: name.sampleScans });
  });

  test("the same answers as the three statements before, typo or not, for every type set and viewer", async () => {
    const queries = [
      "Vexqaulia Radra", "vexqaulia radra", "VEXQAULIA  RADRA", "Vexqualia Radra", "Vexqualia Radr", "radra", "Radra Vexqaulia",
      "Quorbelx Radra", "quorbelx", "quorbelx or nothingzz", "nothingzz or radra", "the Vexqaulia", "Vexqaulia the Radra",
      "kraghammerx", "Vexliaxx Radra", "exlia Radra", "Vexlai Radra", "Ünterberg", "Unterberg", "Ünterbreg Hall", "qqqqzzzz", "a", "wayfarer", "wayfarers Radra",
      "Vexqaulia-Radra", "\"vexqaulia radra\"", "-vexqaulia radra", "v", "1 Radra",
    ];
    let compared = 0;
    for (const types of [ALL, ["characters"], ["locations", "journals"]])
      for (const viewer of ["viewer", author])
        for (const q of queries) {
          const expected = await searchBefore(db, campaign, q, types, 3, viewer);
          expect({ q, types, viewer, hits: await now(q, types, viewer) }).toEqual({ q, types, viewer, hits: expected });
          compared += expected.length;
        }
    // The comparison is not vacuous: most queries find something.
    expect(compared).toBeGreaterThan(200);
  });
});
