// Issue 15: the tables read by index-only scans are vacuumed by the service itself (adapters/sql/statistics.ts,
// run by the worker), so a list search's total from search_terms reads the index alone, not a table page per
// word entry: PGlite runs no autovacuum, and a PostgreSQL server may run it late or not at all.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { statistics } from "../../adapters/sql/statistics.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";
import { type PlanNode, planNodes } from "../support/plans.ts";

const WORDS = ["amber", "birch", "cobalt", "dusk", "ember", "fjord", "glade", "heron", "iris", "juniper"];

await forEachBackend("visibility map of the tables read index-only", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaignId: string;
  const role = `cms_not_owner_${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    // This test's "before" needs a table nobody vacuumed: keep a server's autovacuum off it.
    await db.exec(`alter table search_terms set (autovacuum_enabled = false)`);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "visibility@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Written one by one" });
    await store.campaigns.insert(campaign);
    campaignId = campaign.id;
  });
  afterAll(async () => {
    await db?.exec(`drop owned by ${role}; drop role if exists ${role}`).catch(() => {});
    await close?.();
  });

  const addCharacters = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      await store.characters.insert(characterRecord(campaignId, {
        character_name: `Wanderer ${WORDS[i % 10]} ${i}`,
        description: `A wanderer from the ${WORDS[(i * 3) % 10]} coast who walked past the ${WORDS[(i * 7) % 10]} towers, number ${i}.`,
        created_at: at(i),
      }));
    }
  };

  /** The list search's total for "wander", as an index-only scan of search_terms: its rows and heap fetches. */
  const wanderCount = async () => {
    const plan = await db.transaction(async (tx: SqlExecutor) => {
      // The plan the service gets at scale, forced on a small table (a sequential scan is cheaper here).
      await tx.query(`set local enable_seqscan = off`);
      await tx.query(`set local enable_bitmapscan = off`);
      const [row] = await tx.query(
        `explain (analyze, format json) select count(distinct record_id collate "C") from search_terms
         where campaign_id = $1 and list = 'characters' and term >= 'wander' and term < 'wandes'`,
        [campaignId],
      );
      const value = Object.values(row!)[0];
      return ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
    });
    const scan = planNodes(plan).find((node) => node["Relation Name"] === "search_terms")!;
    return { node: scan["Node Type"], rows: scan["Actual Rows"], heapFetches: scan["Heap Fetches"] };
  };

  test("a user who may not vacuum or analyse the tables (not their owner) is not made to try", async () => {
    await addCharacters(0, 400);
    await db.exec(`create role ${role}; grant select on all tables in schema public to ${role}`);
    const asOther = await db.transaction(async (tx) => {
      await tx.query(`set local role ${role}`);
      const other = statistics(tx);
      // Inside a transaction a VACUUM would fail: this only passes if none is attempted.
      return { vacuumed: await other.refreshVisibility(), analysed: await other.refresh() };
    });
    expect(asOther).toEqual({ vacuumed: [], analysed: [] });
  });

  /**
   * The writes' activity counters, flushed: a backend reports them at most once a second (when idle,
   * up to 10 s later), and the pass reads them. Without this a pass could see the last writes only
   * after it vacuumed, and the next pass would count them as new (it did, once, on a slow machine).
   * More statements than the pool has connections, so each connection runs one.
   */
  const flushCounters = async () => {
    await Promise.all(Array.from({ length: 8 }, () => db.query(`select pg_stat_force_next_flush(), pg_sleep(0.02)`)));
    await db.query(`select pg_stat_force_next_flush()`);
  };

  test("400 characters written one by one: the count visits the table until the pass, then reads the index alone", async () => {
    // "wander" starts one word of each character (wanderer), in its name and its description: 400 entries.
    expect(await wanderCount()).toEqual({ node: "Index Only Scan", rows: 400, heapFetches: 400 });
    await flushCounters();
    const vacuumed = await store.statistics.refreshVisibility();
    expect(vacuumed).toContain("search_terms");
    expect(vacuumed).toContain("ask_terms");
    expect(await wanderCount()).toEqual({ node: "Index Only Scan", rows: 400, heapFetches: 0 });
    const [row] = await db.query(`select relallvisible, relpages from pg_class where relname = 'search_terms'`);
    expect(Number(row!.relallvisible)).toBe(Number(row!.relpages));
    // Nothing written since: nothing to do.
    await flushCounters();
    expect(await store.statistics.refreshVisibility()).toEqual([]);
  });

  test("200 more: their entries are fetched from the table until the next pass, which vacuums again", async () => {
    await addCharacters(400, 600);
    const before = await wanderCount();
    expect(before.rows).toBe(600);
    expect(before.heapFetches).toBeGreaterThanOrEqual(200);
    await flushCounters();
    expect(await store.statistics.refreshVisibility()).toContain("search_terms");
    expect(await wanderCount()).toEqual({ node: "Index Only Scan", rows: 600, heapFetches: 0 });
  });

  test("a table also analysed by the statistics pass (sessions, ask_passages) is analysed by its vacuum, so relpages still means what ANALYZE saw", async () => {
    const [row] = await db.query(
      `select c.relpages, pg_relation_size(c.oid) / current_setting('block_size')::int as pages from pg_class c where c.relname = 'ask_passages'`,
    );
    expect(Number(row!.relpages)).toBe(Number(row!.pages));
    // The estimate for the campaign comes from the statistics that vacuum gathered: 600 passages, one per character.
    const [plan] = await db.query(`explain (format json) select * from ask_passages where campaign_id = '${campaignId}'`);
    const value = Object.values(plan!)[0];
    const rows = ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: { "Plan Rows": number } }[])[0]!.Plan["Plan Rows"];
    expect(rows).toBe(600);
    expect(await store.statistics.refresh()).not.toContain("ask_passages");
  });
});
