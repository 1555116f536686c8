// Issue 15 (migration 0026): list search's name tiers and cross-type search's trigram fallback are
// PL/pgSQL with generic plans, planned once per connection. A generic plan must still read a first
// page in name order and stop: the tiers as one generic statement became a bitmap of every match,
// sorted for the page (tried, 3× slower at 100k). Buffers are counted on the function's call, which
// includes its statements'.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

type PlanNode = { "Shared Hit Blocks": number; "Shared Read Blocks": number };
const MATCHES = 600;
// A long description (kept inline, under the TOAST threshold) puts a few rows on a heap page, so
// reading every match costs over a hundred pages and a page of five a handful.
const DESCRIPTION = "A wanderer of the marches who keeps to the old roads. ".repeat(28);

await forEachBackend("list search plans kept per connection", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaign: string;

  /** Buffers read by one call (the second: the first also plans), and its rows' names. */
  const called = async (sql: string, params: unknown[]) => {
    await db.query(sql, params);
    const [row] = await db.query(`explain (analyze, buffers, format json) ${sql}`, params);
    const value = Object.values(row!)[0];
    const plan = ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
    const names = (await db.query(sql, params)).map((r) => String(r.name));
    return { buffers: plan["Shared Hit Blocks"] + plan["Shared Read Blocks"], names };
  };

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "plans@example.test", role: "user", created_at: at() }))!.id;
    const record = campaignRecord(owner, { title: "Many Vexas" });
    await store.campaigns.insert(record);
    campaign = record.id;
    // Names "Vexa 0000" … in reverse creation order, so name order is not the heap's order.
    await db.query(
      `insert into characters (id, campaign_id, character_name, search_text, description, created_at)
       select $1 || '-c' || i, $1, 'Vexa ' || lpad(i::text, 4, '0'), 'vexa ' || lpad(i::text, 4, '0'), $2, timestamptz '2026-01-01' - i * interval '1 minute'
       from generate_series(1, ${MATCHES}) i`,
      [campaign, DESCRIPTION],
    );
    await db.query(
      `insert into entities (id, campaign_id, kind, name, search_text, description, created_at)
       select $1 || '-e' || i, $1, 'location', 'Vexa ' || lpad(i::text, 4, '0'), 'vexa ' || lpad(i::text, 4, '0'), $2, timestamptz '2026-01-01' - i * interval '1 minute'
       from generate_series(1, ${MATCHES}) i`,
      [campaign, DESCRIPTION],
    );
    await db.exec(`analyze characters; analyze entities`);
  });
  afterAll(async () => close?.());

  test("the name tiers, the rest, the substring step, the word count and the trigram fallback run with generic plans; the name tiers cannot sort or build a bitmap", async () => {
    const rows = await db.query(
      `select proname, array_to_string(proconfig, ',') as config from pg_proc
       where proname in ('search_character_names', 'search_character_names_rest', 'search_entity_names', 'search_entity_names_rest', 'search_similar', 'search_terms_count', 'search_words_containing')
       order by proname`,
    );
    const names = "enable_bitmapscan=off,enable_seqscan=off,enable_sort=off,jit=off,plan_cache_mode=force_generic_plan";
    const rest = "enable_bitmapscan=on,enable_seqscan=off,enable_sort=on,jit=off,plan_cache_mode=force_generic_plan";
    const sorted = (config: string) => config.split(",").sort().join(",");
    expect(rows.map((r) => [r.proname, sorted(String(r.config))])).toEqual([
      ["search_character_names", names],
      ["search_character_names_rest", rest],
      ["search_entity_names", names],
      ["search_entity_names_rest", rest],
      ["search_similar", "enable_seqscan=off,plan_cache_mode=force_generic_plan"],
      ["search_terms_count", "enable_seqscan=off,jit=off,plan_cache_mode=force_generic_plan"],
      ["search_words_containing", "enable_seqscan=off,jit=off,plan_cache_mode=force_generic_plan"],
    ]);
    // A page: the caller joins it to the table by primary key (at the default 1,000 rows it hashed the table).
    expect(Number((await db.query(`select prorows from pg_proc where proname = 'search_words_containing'`))[0]!.prorows)).toBe(20);
    expect((await db.query(`select lanname from pg_proc p join pg_language l on l.oid = p.prolang where proname = 'search_similar'`))[0]!.lanname).toBe("plpgsql");
  });

  test(`a first page among ${MATCHES} names sharing a prefix reads a few pages in name order, not every match`, async () => {
    const expected = ["Vexa 0001", "Vexa 0002", "Vexa 0003", "Vexa 0004", "Vexa 0005"];
    const characters = await called(
      `select character_name as name from search_character_names($1, false, null, to_tsquery('simple', 'vexa:*'), 'vexa', 'vexa', 'vexb', 'vexa%', 5, null, null)`,
      [campaign],
    );
    expect(characters.names).toEqual(expected);
    const entities = await called(
      `select name from search_entity_names($1, 'location', to_tsquery('simple', 'vexa:*'), 'vexa', 'vexa', 'vexb', 'vexa%', 5, null, null)`,
      [campaign],
    );
    expect(entities.names).toEqual(expected);
    // Every match's row: over 100 pages. The ordered scan: the index's path and the five rows' pages.
    const everyMatch = Number((await db.query(`select pg_relation_size('characters') / 8192 as pages`))[0]!.pages);
    expect(everyMatch).toBeGreaterThan(100);
    expect(characters.buffers).toBeLessThanOrEqual(25);
    expect(entities.buffers).toBeLessThanOrEqual(25);
    // Through the store, the same page.
    const { rows, total } = await store.characters.list(campaign, { approvedOnly: false, search: "VEXA" }, { page: 1, size: 5 });
    expect({ names: rows.map((c) => c.character_name), total }).toEqual({ names: expected, total: MATCHES });
  });
});
