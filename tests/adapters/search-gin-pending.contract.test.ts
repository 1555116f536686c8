// Issue 15 (migration 0027): records created one by one and searched before any VACUUM must not make
// each text-index lookup scan a long GIN pending list. With the default 4 MB list, 1,000 characters
// left every lookup of characters_fts reading its whole list; with 64 kB it reads a few pages.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";

type PlanNode = { "Node Type": string; "Index Name"?: string; "Shared Hit Blocks": number; "Shared Read Blocks": number; Plans?: PlanNode[] };
const SYLLABLES = ["ka", "ra", "vex", "thor", "dun", "mir", "el", "zan", "gor", "lia", "bran", "sy", "las", "tor", "ven", "qua", "dra", "ix", "om", "bel"];
const nameOf = (i: number) => `${SYLLABLES[i % 20]}${SYLLABLES[(i * 7) % 20]}${SYLLABLES[(i * 13) % 19]} ${SYLLABLES[(i * 3) % 17]}${SYLLABLES[(i * 11) % 20]}${i}`;

await forEachBackend("search GIN pending lists stay short", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;

  withStore(backend, (opened) => {
    ({ db, store } = opened);
  });

  test("every search GIN index is set to a 64 kB pending list", async () => {
    const rows = await db.query(
      `select c.relname, array_to_string(c.reloptions, ',') as options from pg_class c join pg_am a on a.oid = c.relam
       where a.amname = 'gin' and c.relname in ('characters_fts', 'characters_trgm', 'entities_fts', 'entities_trgm', 'quests_trgm',
         'search_documents_fts', 'search_documents_title_fts', 'search_documents_title_trgm', 'ask_passages_fts', 'ask_passages_title_trgm')
       order by c.relname`,
    );
    expect(rows.map((r) => `${r.relname}: ${r.options}`)).toEqual([
      "ask_passages_fts: gin_pending_list_limit=64",
      "ask_passages_title_trgm: gin_pending_list_limit=64",
      "characters_fts: gin_pending_list_limit=64",
      "characters_trgm: gin_pending_list_limit=64",
      "entities_fts: gin_pending_list_limit=64",
      "entities_trgm: gin_pending_list_limit=64",
      "quests_trgm: gin_pending_list_limit=64",
      "search_documents_fts: gin_pending_list_limit=64",
      "search_documents_title_fts: gin_pending_list_limit=64",
      "search_documents_title_trgm: gin_pending_list_limit=64",
    ]);
  });

  test("cross-type search plans its ordered sample and probe without sorts or table scans (0027_search_sample_order; search_ranked, 0028, replaced search_candidates)", async () => {
    const [row] = await db.query(`select array_to_string(proconfig, ',') as config from pg_proc where proname = 'search_ranked'`);
    expect(row!.config).toBe("enable_seqscan=off,enable_sort=off,jit=off,plan_cache_mode=force_generic_plan");
    expect(await db.query(`select 1 from pg_proc where proname = 'search_candidates'`)).toEqual([]);
  });

  test("after 1,000 single-row creates, a lookup of the text index reads a few pages, not a long pending list", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "gin@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Imported one by one" });
    await store.campaigns.insert(campaign);
    for (let i = 0; i < 1000; i++) {
      await store.characters.insert(characterRecord(campaign.id, { character_name: nameOf(i), character_aliases: [1, 2, 3, 4, 5, 6].map((k) => nameOf(i * 7 + k)), created_at: at(i) }));
    }
    // The index scan alone (sequential scans off: the table is small): its buffers are the pending list plus the posting.
    const plan = await db.transaction(async (tx) => {
      await tx.query(`set local enable_seqscan = off`);
      const [row] = await tx.query(`explain (analyze, buffers, format json) select count(*) from characters where search_vector @@ to_tsquery('simple', 'zzzz')`);
      const value = Object.values(row!)[0];
      return (typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[];
    });
    const scans: PlanNode[] = [];
    const walk = (node: PlanNode) => {
      if (node["Node Type"] === "Bitmap Index Scan") scans.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan[0]!.Plan);
    expect(scans.map((n) => n["Index Name"])).toEqual(["characters_fts"]);
    expect(scans[0]!["Shared Hit Blocks"] + scans[0]!["Shared Read Blocks"]).toBeLessThanOrEqual(12);
  });

  test("the substring step's lookups keep no pending list (0036): after single-row creates they read what a merged index reads", async () => {
    // Runs after the 1,000 creates above: new words and word rows that moved added trigram entries,
    // overlapping aliases added pieces. With a pending list (0027's 64 kB) each lookup also read it.
    const lookups = [
      ["search_vocabulary_trgm", `select count(*) from search_vocabulary where term like '%zzq%'`],
      ["search_word_overlaps_shared", `select count(*) from search_word_overlaps where shared @> '{zzq}'`],
    ] as const;
    const pages = async () => {
      const read: Record<string, number> = {};
      for (const [index, sql] of lookups)
        read[index] = await db.transaction(async (tx) => {
          await tx.query(`set local enable_seqscan = off`);
          const [row] = await tx.query(`explain (analyze, buffers, format json) ${sql}`);
          const value = Object.values(row!)[0];
          const plan = ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
          const scans: PlanNode[] = [];
          const walk = (node: PlanNode) => {
            if (node["Node Type"] === "Bitmap Index Scan") scans.push(node);
            for (const child of node.Plans ?? []) walk(child);
          };
          walk(plan);
          expect(scans.map((n) => n["Index Name"])).toEqual([index]);
          return scans[0]!["Shared Hit Blocks"] + scans[0]!["Shared Read Blocks"];
        });
      return read;
    };
    const [row] = await db.query(
      `select count(*)::int as n from pg_class where relname in ('search_vocabulary_trgm', 'search_word_overlaps_shared') and 'fastupdate=off' = any (reloptions)`,
    );
    expect(row!.n).toBe(2);
    const before = await pages();
    await db.query(`select gin_clean_pending_list(i::regclass) from unnest(array['search_vocabulary_trgm', 'search_word_overlaps_shared']) as i`);
    expect(before).toEqual(await pages());
  });
});
