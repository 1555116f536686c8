// Issue 15 (migration 0032): cross-type search's probe of a common word keeps the first 50 body hits
// (p_n / 4) in a type of more than 800 records (its list counter), the first 200 in a smaller one.
// Title hits are candidates either way. Documents are written by SQL (hundreds per test, both engines);
// the locations are real entities so that record_counts holds their number.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

await forEachBackend("cross-type search, the probe's quota by type size", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let owner: string;

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "probe@example.test", role: "user", created_at: at() }))!.id;
  });
  afterAll(async () => close?.());

  /**
   * A campaign of `count` locations `prefix` + "0000"…: every `every`-th one's text holds "ember" once, `triple`'s
   * three times (it ranks above the single ones), and `titled` is named "Ember Hall" (a title hit).
   */
  async function campaignOf(prefix: string, count: number, every: number, triple: number, titled?: number): Promise<string> {
    const campaign = campaignRecord(owner, { title: `Embers ${count}` });
    await store.campaigns.insert(campaign);
    const id = `$6 || lpad(i::text, 4, '0')`;
    const name = `case when i = $3 then 'Ember Hall' else 'Place ' || i end`;
    const body = `case when i = $4 then 'ember ember ember' when i % $2 = 0 then 'an ember glows' else 'dark and quiet' end`;
    await db.query(
      `insert into entities (id, campaign_id, kind, name, search_text, description, created_at)
       select $1 || ${id}, $1, 'location', ${name}, lower(${name}), ${body}, timestamptz '2026-01-01' + i * interval '1 second'
       from generate_series(0, $5::int - 1) i`,
      [campaign.id, every, titled ?? -1, triple, count, prefix],
    );
    await db.query(
      `insert into search_documents (campaign_id, doc_type, doc_id, title, body, updated_at)
       select $1, 'locations', ${id}, ${name}, ${body}, timestamptz '2026-01-01' from generate_series(0, $5::int - 1) i`,
      [campaign.id, every, titled ?? -1, triple, count, prefix],
    );
    const [counted] = await db.query(`select n::int as n from record_counts where campaign_id = $1 and kind = 'locations'`, [campaign.id]);
    expect(counted!.n).toBe(count);
    return campaign.id;
  }

  const page = async (campaignId: string) => ((await store.search.search(campaignId, "ember", ["locations"], 10, owner)).get("locations") ?? []).map((hit) => hit.doc_id);

  test("more than 800 locations: the body candidates are the first 50 hits, so a better body hit at the 150th is not ranked; the title hit still comes first", async () => {
    // Hits at 0, 2, 4, …: the 50th is big0098; big0300 (the 151st) holds the word three times; big0999 has it in its title.
    const campaignId = await campaignOf("big", 1000, 2, 300, 999);
    expect(await page(campaignId)).toEqual(["big0999", "big0000", "big0002", "big0004", "big0006", "big0008", "big0010", "big0012", "big0014", "big0016"]);
  }, 60_000);

  test("800 locations or fewer: every hit the probe finds is ranked, so the better body hit (the 151st) comes first", async () => {
    // 175 hits (every 4th of 700): fewer than 200, so the ranking is the full one.
    const campaignId = await campaignOf("small", 700, 4, 600);
    expect(await page(campaignId)).toEqual(["small0600", "small0000", "small0004", "small0008", "small0012", "small0016", "small0020", "small0024", "small0028", "small0032"]);
  }, 60_000);
});
