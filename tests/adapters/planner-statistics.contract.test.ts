// Issue 15: a campaign written record by record and read at once is planned with statistics the
// service gathered itself (adapters/sql/statistics.ts, run by the worker), not with the planner's
// guesses for a table nobody analysed (PGlite runs no autovacuum; a PostgreSQL server may not either).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";

await forEachBackend("planner statistics of grown tables", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
  });
  afterAll(async () => close?.());

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
    expect(await store.statistics.refresh()).toContain("characters");
    expect(await estimate(campaign.id)).toBe(800);
    expect(await store.statistics.refresh()).toEqual([]);
  });
});
