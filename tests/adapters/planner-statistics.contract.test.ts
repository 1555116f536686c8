// Issue 15: a campaign written record by record and read at once is planned with statistics the
// service gathered itself (adapters/sql/statistics.ts, run by the worker), not with the planner's
// guesses for a table nobody analysed (PGlite runs no autovacuum; a PostgreSQL server may not either).
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { ANALYZED, VACUUMED } from "../../adapters/sql/statistics.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId, sessionRecord } from "../support/records.ts";

await forEachBackend("planner statistics of grown tables", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;

  withStore(backend, (opened) => {
    ({ db, store } = opened);
  });

  /** The planner's row estimate for the campaign's characters. */
  const estimate = async (campaignId: string) => {
    const [row] = await db.query(`explain (format json) select * from characters where campaign_id = '${campaignId}'`);
    const value = Object.values(row!)[0];
    return ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: { "Plan Rows": number } }[])[0]!.Plan["Plan Rows"];
  };

  test("800 characters created one by one: the campaign's estimate goes from a guess to 800, and a second refresh gathers nothing", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "stats@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Imported one by one" });
    await store.campaigns.insert(campaign);
    for (let i = 0; i < 800; i++) {
      await store.characters.insert(characterRecord(campaign.id, {
        character_name: `Character number ${i}`, character_aliases: [`Alias ${i}`],
        description: `A character written through the API, number ${i}, with a description of some length.`, created_at: at(i),
      }));
    }
    expect(await estimate(campaign.id)).toBeLessThan(100);
    const listStatistics = async () => Number((await db.query(`select count(*)::int as n from pg_stats where tablename = 'search_terms' and attname = 'list'`))[0]!.n);
    expect(await listStatistics()).toBe(0);
    const gathered = await store.statistics.refresh();
    expect(gathered).toContain("characters");
    // The list search's word table too: its count is planned once per connection (0026), by them.
    expect(gathered).toContain("search_terms");
    expect(await listStatistics()).toBe(1);
    expect(await estimate(campaign.id)).toBe(800);
    expect(await store.statistics.refresh()).toEqual([]);
  });

  test("a table vacuumed but never analysed (a vacuum sets the pages the growth test compares) is analysed by the next pass", async () => {
    // What an earlier version's vacuum pass left: search_terms vacuumed without ANALYZE, no statistics.
    await db.exec(`delete from pg_statistic where starelid = 'search_terms'::regclass`).catch(() => {});
    const remaining = Number((await db.query(`select count(*)::int as n from pg_stats where tablename = 'search_terms'`))[0]!.n);
    if (remaining !== 0) throw new Error("could not clear search_terms' statistics (this test needs a superuser)");
    await db.exec(`vacuum search_terms`);
    expect(await store.statistics.refresh()).toEqual(["search_terms"]);
    expect(Number((await db.query(`select count(*)::int as n from pg_stats where tablename = 'search_terms' and attname = 'list'`))[0]!.n)).toBe(1);
    expect(await store.statistics.refresh()).toEqual([]);
  });

  test("every table and column the lists name exists (a dropped or renamed one would be passed over in silence); every search heads table is in both", async () => {
    const columns = await db.query(`select table_name, column_name from information_schema.columns where table_schema = 'public'`);
    const have = new Set(columns.map((row) => `${row.table_name}.${row.column_name}`));
    const tables = new Set(columns.map((row) => String(row.table_name)));
    const named = Object.entries(ANALYZED).flatMap(([table, cols]) => cols.map((col) => `${table}.${col}`));
    expect([named.filter((name) => !have.has(name)), VACUUMED.filter((name) => !tables.has(name))]).toEqual([[], []]);
    const heads = [...tables].filter((name) => name.endsWith("_search_heads")).sort();
    expect(heads).toEqual(["moment_search_heads", "quest_search_heads", "recap_search_heads"]);
    expect(heads.filter((name) => !(name in ANALYZED) || !VACUUMED.includes(name))).toEqual([]);
  });

  test("3,000 awards written in one statement: the pass analyses and vacuums their heads (read index-only by award search, 0053)", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "stats-awards@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Awards at once" });
    await store.campaigns.insert(campaign);
    const session = sessionRecord(campaign.id);
    await store.sessions.insert(session);
    // Left to this store's pass alone (a server's autovacuum could get there first).
    await db.exec(`alter table recap_search_heads set (autovacuum_enabled = off)`);
    await db.query(
      `insert into hero_awards (id, campaign_id, session_id, title, description, character_name, order_index, created_at)
       select 'stat' || g, $1, $2, 'Award ' || g, 'Bench award', 'Bench hero', g, $3::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [campaign.id, session.id, at()],
    );
    const visible = async () => Number((await db.query(`select relallvisible from pg_class where oid = 'recap_search_heads'::regclass`))[0]!.relallvisible);
    expect(await visible()).toBe(0);
    expect(await store.statistics.refresh()).toContain("recap_search_heads");
    expect(Number((await db.query(`select count(*)::int as n from pg_stats where tablename = 'recap_search_heads' and attname = 'kind'`))[0]!.n)).toBe(1);
    expect(await store.statistics.refreshVisibility()).toContain("recap_search_heads");
    expect(await visible()).toBeGreaterThan(10);
  });
});
