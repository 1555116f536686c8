// Issue 15, helper writecontention (migration 0057): several writers in ONE campaign. The list
// counters are spread over slots per writer (record_count_slots, summed by the record_counts view)
// and the change feed is written at commit. Whatever the interleaving, every total must stay
// the rows' count(*) and the feed gap-free, one change per write, in each record's order.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import type { Entity } from "../../domain/entities.ts";
import type { Quest } from "../../domain/quests.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, momentRecord, newId } from "../support/records.ts";

const page = { page: 1, size: 1 };
const WRITERS = 8;
const EACH = 6;

const questOf = (campaignId: string, i: number): Quest => ({
  id: newId(), campaign_id: campaignId, quest_name: `Quest ${i}`, quest_giver: null, quest_giver_id: null, quest_category: "side", status: i % 3 ? "planned" : "done",
  success_definition: null, failure_conditions: null, next_action: null, resolution: null, objectives: [], progress_log_entries: [], related_entity_refs: [],
  order_index: i, created_at: at(i), updated_at: null,
});
const placeOf = (campaignId: string, i: number): Entity => ({
  id: newId(), campaign_id: campaignId, kind: "location", name: `Location ${i}`, aliases: [], description: null, type: null, image: null, tcg_image: null,
  parent_id: null, merge: false, created_at: at(i), updated_at: null,
});

await forEachBackend("writers in one campaign", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let owner: string;

  const one = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: number }>(`select (${sql})::int as n`, params))[0]!.n);
  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(owner, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "writers@example.test", role: "user", created_at: at() }))!.id;
  });

  /** Every counter of the campaign against the rows counted afresh, and the lists' totals. */
  async function expectExact(campaign: string) {
    const recount = await db.query<{ kind: string; n: number }>(
      `select kind, count(*)::int as n from (
         select 'characters' as kind from characters where campaign_id = $1
         union all select 'characters:type:' || type from characters where campaign_id = $1
         union all select 'moments' from moments where campaign_id = $1
         union all select 'moments:kind:' || kind from moments where campaign_id = $1
         union all select 'locations' from entities where campaign_id = $1 and kind = 'location'
         union all select 'quests' from quests where campaign_id = $1
         union all select 'quests:status:' || status from quests where campaign_id = $1
         union all select 'links' from links where campaign_id = $1
         union all select 'links:from:' || from_type from links where campaign_id = $1
       ) x group by 1 order by 1`,
      [campaign],
    );
    const stored = await db.query<{ kind: string; n: number }>(
      `select kind, n::int as n from record_counts where campaign_id = $1 and kind ~ '^(characters(:type:[^:]*)?|moments(:kind:[^:]*)?|locations|quests(:status:[^:]*)?|links(:from:[^:]*)?)$' and n <> 0 order by 1`,
      [campaign],
    );
    expect(stored).toEqual(recount);
    expect((await store.characters.list(campaign, { approvedOnly: false }, page)).total).toBe(await one(`select count(*) from characters where campaign_id = $1`, [campaign]));
    expect((await store.moments.list({ campaignId: campaign }, page)).total).toBe(await one(`select count(*) from moments where campaign_id = $1`, [campaign]));
    expect((await store.entities.list(campaign, "location", {}, page)).total).toBe(await one(`select count(*) from entities where campaign_id = $1 and kind = 'location'`, [campaign]));
    expect((await store.quests.list(campaign, {}, page)).total).toBe(await one(`select count(*) from quests where campaign_id = $1`, [campaign]));
    expect((await store.quests.list(campaign, { status: "done" }, page)).total).toBe(await one(`select count(*) from quests where campaign_id = $1 and status = 'done'`, [campaign]));
    expect((await store.links.list(campaign, {}, page, null)).total).toBe(await one(`select count(*) from links where campaign_id = $1`, [campaign]));
    // No key reads more than the 8 slots.
    expect(await one(`select coalesce(max(c), 0) from (select count(*) as c from record_count_slots where campaign_id = $1 group by kind) x`, [campaign])).toBeLessThanOrEqual(8);
  }

  /** The feed: seq 1..n without a gap, n = the counter. */
  async function expectFeed(campaign: string, writes: number) {
    const seqs = (await db.query<{ seq: number }>(`select seq::int as seq from changes where campaign_id = $1 order by seq`, [campaign])).map((r) => r.seq);
    expect(seqs).toEqual(Array.from({ length: writes }, (_, i) => i + 1));
    expect(await one(`select last_seq from change_counters where campaign_id = $1`, [campaign])).toBe(writes);
  }

  test(`${WRITERS} writers insert five kinds at once, then delete at once: every total exact, the feed gap-free`, async () => {
    const campaign = await newCampaign("Import");
    const ends = { from: characterRecord(campaign, { character_name: "Source" }), to: placeOf(campaign, 999) };
    await store.characters.insert(ends.from);
    await store.entities.insert(ends.to);
    // The campaign's own creation is its first change.
    let writes = 3;
    const made: { kind: "characters" | "moments" | "entities" | "quests" | "links"; id: string }[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let j = 0; j < EACH; j++) {
          const i = w * EACH + j;
          // One transaction a record of each kind, as one POST each; the kinds interleave across writers.
          const c = characterRecord(campaign, { character_name: `Character ${i}`, type: i % 2 ? "PC" : "NPC", created_at: at(i) });
          await store.withTransaction((tx) => tx.characters.insert(c));
          made.push({ kind: "characters", id: c.id });
          const m = momentRecord(campaign, { label: `Moment ${i}`, created_at: at(i) });
          await store.withTransaction((tx) => tx.moments.insert(m));
          made.push({ kind: "moments", id: m.id });
          const l = placeOf(campaign, i);
          await store.withTransaction((tx) => tx.entities.insert(l));
          made.push({ kind: "entities", id: l.id });
          const q = questOf(campaign, i);
          await store.withTransaction((tx) => tx.quests.insert(q));
          made.push({ kind: "quests", id: q.id });
          const link = await store.links.upsert({ id: newId(), campaign_id: campaign, from_id: ends.from.id, from_type: "Character", to_id: ends.to.id, to_type: "Location", alias: `Road ${i}`, alias_key: `road ${i}`, origin: "api", created_at: at(i) } as never);
          made.push({ kind: "links", id: link.id });
        }
      }),
    );
    writes += made.length;
    expect(made.length).toBe(WRITERS * EACH * 5);
    expect(await one(`select count(*) from moments where campaign_id = $1`, [campaign])).toBe(WRITERS * EACH);
    expect((await store.moments.list({ campaignId: campaign }, page)).total).toBe(WRITERS * EACH);
    expect((await store.quests.list(campaign, {}, page)).total).toBe(WRITERS * EACH);
    expect((await store.links.list(campaign, {}, page, null)).total).toBe(WRITERS * EACH);
    await expectExact(campaign);
    await expectFeed(campaign, writes);

    // Deletes by other writers than the inserts' (a slot may go below 0): totals still exact.
    const gone = made.filter((_, i) => i % 3 === 0);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (const record of gone.filter((_, i) => i % WRITERS === (w + 3) % WRITERS)) {
          const repository = { characters: store.characters, moments: store.moments, entities: store.entities, quests: store.quests, links: store.links }[record.kind];
          expect(await repository.delete(record.id)).toBe(true);
        }
      }),
    );
    writes += gone.length;
    expect((await store.moments.list({ campaignId: campaign }, page)).total).toBe(WRITERS * EACH - gone.filter((r) => r.kind === "moments").length);
    await expectExact(campaign);
    await expectFeed(campaign, writes);
    // Each record's create comes before its delete.
    const order = await db.query<{ record_id: string; ops: string }>(
      `select record_id, string_agg(op, ',' order by seq) as ops from changes where campaign_id = $1 and record_id = any($2::text[]) group by 1`,
      [campaign, gone.map((r) => r.id)],
    );
    expect(new Set(order.map((r) => r.ops))).toEqual(new Set(["create,delete"]));
  });

  test("a rolled-back write leaves no counter and no change; a multi-record transaction numbers its changes in order", async () => {
    const campaign = await newCampaign("Rollback");
    await expect(
      store.withTransaction(async (tx) => {
        await tx.moments.insert(momentRecord(campaign, { label: "Moment lost" }));
        await tx.quests.insert(questOf(campaign, 1));
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await one(`select count(*) from changes where campaign_id = $1 and kind <> 'campaign'`, [campaign])).toBe(0);
    expect(await one(`select coalesce(sum(n), 0) from record_count_slots where campaign_id = $1`, [campaign])).toBe(0);
    const ids = [newId(), newId(), newId()];
    await store.withTransaction(async (tx) => {
      await tx.moments.insert(momentRecord(campaign, { id: ids[0]!, label: "First" }));
      await tx.quests.insert({ ...questOf(campaign, 2), id: ids[1]! });
      await tx.moments.insert(momentRecord(campaign, { id: ids[2]!, label: "Third" }));
    });
    expect((await db.query<{ record_id: string }>(`select record_id from changes where campaign_id = $1 and kind <> 'campaign' order by seq`, [campaign])).map((r) => r.record_id)).toEqual(ids);
    await expectExact(campaign);
    await expectFeed(campaign, 1 + 3);
    // Written by one writer at a time: one counter row a key (slot 0), so a total reads one row.
    expect(await one(`select count(*) from record_count_slots where campaign_id = $1 and slot <> 0`, [campaign])).toBe(0);
    expect(await one(`select count(*) from record_count_slots where campaign_id = $1`, [campaign])).toBeGreaterThan(0);
    // A campaign deleted takes its counter rows and feed with it.
    expect(await store.campaigns.delete(campaign)).toBe(true);
    expect(await one(`select count(*) from record_count_slots where campaign_id = $1`, [campaign])).toBe(0);
    expect(await one(`select count(*) from changes where campaign_id = $1`, [campaign])).toBe(0);
  });

  if (backend.name === "postgres")
    test("a writer does not wait for another writer's open transaction in the same campaign; seqs follow the commits", async () => {
      const campaign = await newCampaign("Open transaction");
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const started = new Promise<void>((resolve) => (inserted = resolve));
      const slow = newId();
      const fast = newId();
      // A holds its transaction open after its insert (the service's later statements, a slow client).
      const first = store.withTransaction(
        async (tx) => {
          await tx.moments.insert(momentRecord(campaign, { id: slow, label: "Moment slow" }));
          inserted();
          await held;
        },
        { retry: false },
      );
      await started;
      // B writes a quest in the same campaign and commits while A is open (another kind: two
      // connections may share a counter slot). Before 0057 it waited for A's change_counters row:
      // the bound below releases A after 5 s so the test ends either way.
      let timedOut = false;
      const bound = setTimeout(() => {
        timedOut = true;
        release();
      }, 5_000);
      await store.withTransaction(async (tx) => tx.quests.insert({ ...questOf(campaign, 1), id: fast }));
      const committedWhileOpen = !timedOut;
      release();
      clearTimeout(bound);
      await first;
      expect(committedWhileOpen).toBe(true);
      // B committed first, so B's change is 1 and A's 2.
      expect((await db.query<{ record_id: string }>(`select record_id from changes where campaign_id = $1 and kind <> 'campaign' order by seq`, [campaign])).map((r) => r.record_id)).toEqual([fast, slow]);
      await expectExact(campaign);
      await expectFeed(campaign, 1 + 2);
    });
});
