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

// Issue 15 (migration 0032_search_title_once): the title index is asked once for every type's title
// matches while they are at most p_n in all; past that, once per type as before. Counted with the
// transaction's index scan counter of the title index; the answers are the same either way.
await forEachBackend("cross-type search, the title stage", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let close: () => Promise<void>;
  let campaignId: string;

  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    close = opened.close;
    store = sqlRecordStore(db);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "titles@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Titles" });
    await store.campaigns.insert(campaign);
    campaignId = campaign.id;
    const doc = (doc_type: string, doc_id: string, title: string) => store.search.upsert({ campaign_id: campaignId, doc_type, doc_id, title, body: "" }, at());
    for (let i = 0; i < 5; i++) await doc("characters", `t-c${i}`, `Radrabel ${i}`);
    await doc("items", "t-i0", "Radra's lamp");
    await doc("items", "t-i1", "Lamp of Radrael");
    await doc("locations", "t-l0", "Quiet road");
  });
  afterAll(async () => close?.());

  /** search_ranked with p_n candidates per type (title scans on: 0042's p_titled): its hits (type:id) and how many scans the title index made. */
  const ranked = (candidates: number) =>
    db.transaction(async (tx) => {
      // The counter holds this backend's scans not yet reported, earlier transactions' included: the difference.
      const scanned = async () => (await tx.query(`select pg_stat_get_xact_numscans('search_documents_title_fts'::regclass)::int as n`))[0]!.n as number;
      const before = await scanned();
      const rows = await tx.query(
        `select doc_type, doc_id from search_ranked($1, 'characters,items,locations', to_tsquery('simple', 'radra:*'), websearch_to_tsquery('english', 'radra'), 'nobody', $2, 10, true, null)`,
        [campaignId, candidates],
      );
      return { hits: rows.map((r) => `${r.doc_type}:${r.doc_id}`), scans: (await scanned()) - before };
    });

  test("7 title matches, 10 candidates a type: one scan of the title index for the three types, every match ranked", async () => {
    expect(await ranked(10)).toEqual({
      hits: ["characters:t-c0", "characters:t-c1", "characters:t-c2", "characters:t-c3", "characters:t-c4", "items:t-i0", "items:t-i1"],
      scans: 1,
    });
  });

  test("7 title matches, 3 candidates a type: the one scan stops past 3, then one per type, each type's first 3", async () => {
    expect(await ranked(3)).toEqual({ hits: ["characters:t-c0", "characters:t-c1", "characters:t-c2", "items:t-i0", "items:t-i1"], scans: 4 });
  });
});
