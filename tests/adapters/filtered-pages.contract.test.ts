// Issue 15 (migration 0038): a list filtered by an enumerated column reads its page from an index
// that holds the campaign, the value and the list's order, so a value few records have (or none)
// does not read the campaign's whole list to fill the page. The pages are checked against what was
// written, and each statement, planned with its table shown as 500,000 rows (rolled back), must take
// the filter's index with the value in its condition and read no table whole.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Quest } from "../../domain/quests.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, momentRecord, newId, sessionRecord } from "../support/records.ts";
import { capturingExecutor, type PlanNode, planNodes } from "../support/plans.ts";

await forEachBackend("filtered list pages from their own index", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let campaign: string;

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "filtered-pages@example.test", role: "user", created_at: at() }))!.id;
    const made = campaignRecord(owner, { title: "Filtered pages" });
    await store.campaigns.insert(made);
    campaign = made.id;
    // Many of the common value, a few of the rare one (the oldest, so a walk of the campaign's list
    // meets them last), in bulk: the plans are judged at scale below.
    await db.query(
      `insert into characters (id, campaign_id, character_name, type, approved, search_text, created_at)
       select 'npc' || g, $1, 'Npc ' || g, 'NPC', true, 'npc ' || g, $2::timestamptz + g * interval '1 second' from generate_series(1, 300) g`,
      [campaign, at()],
    );
    for (const [i, approved] of [[1, true], [2, false], [3, true]] as const)
      await store.characters.insert(characterRecord(campaign, { character_name: `Other ${i}`, type: "Other", approved, created_at: at(-i * 1000) }));
    await db.query(
      `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at)
       select 'link' || g, $1, 'Character', 'npc' || g, 'Location', 'place' || g, 'place ' || g, 'place ' || g, $2::timestamptz + g * interval '1 second'
       from generate_series(1, 300) g`,
      [campaign, at()],
    );
    for (const i of [1, 2])
      await db.query(
        `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at) values ($1, $2, 'Item', $3, 'Item', $4, $5, $5, $6::timestamptz)`,
        [newId(), campaign, `sword${i}`, `shield${i}`, `armed ${i}`, at(-i * 1000)],
      );
    for (const i of [0, 1]) await store.moments.insert(momentRecord(campaign, { label: `Moment ${i}`, kind: "keyMoment", created_at: at(-1000 * (i + 1)) }));
    await db.query(
      `insert into moments (id, campaign_id, label, kind, created_at)
       select 'moment' || g, $1, 'Moment ' || g, 'legacy', $2::timestamptz + g * interval '1 second' from generate_series(2, 600) g`,
      [campaign, at()],
    );
    for (let i = 0; i < 2; i++) {
      const quest: Quest = {
        id: newId(), campaign_id: campaign, quest_name: `Quest ${i}`, quest_giver: null, quest_giver_id: null,
        quest_category: i < 2 ? "personal" : "main", status: i < 2 ? "failed" : "in-progress",
        success_definition: null, failure_conditions: null, next_action: null, resolution: null, objectives: [], progress_log_entries: [], related_entity_refs: [],
        order_index: 100 - i, created_at: at(i), updated_at: null,
      };
      await store.quests.insert(quest);
    }
    await db.query(
      `insert into quests (id, campaign_id, quest_name, quest_category, status, order_index, created_at)
       select 'quest' || g, $1, 'Quest ' || g, 'main', 'in-progress', 100 - g, $2::timestamptz + g * interval '1 second' from generate_series(2, 600) g`,
      [campaign, at()],
    );
    for (const i of [0, 1]) await store.sessions.insert(sessionRecord(campaign, { title: `Session ${i}`, type: "playByPost", public: true, session_date: at(-1000 * (i + 1)), created_at: at(i) }));
    await db.query(
      `insert into sessions (id, campaign_id, type, title, session_date, created_at)
       select 'session' || g, $1, 'chatVoice', 'Session ' || g, $2::timestamptz + g * interval '1 second', $2::timestamptz + g * interval '1 second' from generate_series(2, 600) g`,
      [campaign, at()],
    );
    await db.query(`analyze characters, links, moments, quests, sessions`);
  });

  const page = { page: 1, size: 20 };

  /** The statement of a list call that reads `table`'s page (its `order by`), planned with `table` and its indexes shown as 500k rows. */
  const planAtScale = async (call: (s: RecordStore) => Promise<unknown>, table: string) => {
    const { executor, statements } = capturingExecutor(db);
    await call(sqlRecordStore(executor as never));
    const statement = statements.find((s) => new RegExp(`from ${table}\\b`, "i").test(s.sql) && /order by/i.test(s.sql));
    expect(statement).toBeDefined();
    return db.transaction(async (tx: SqlExecutor) => {
      // relpages 1: the planner scales reltuples / relpages by the relation's real number of pages.
      await tx.query(`update pg_class set reltuples = 500000, relpages = 1 where oid = '${table}'::regclass or oid in (select indexrelid from pg_index where indrelid = '${table}'::regclass)`);
      const [row] = await tx.query(`explain (format json) ${statement!.sql}`, statement!.params);
      return (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
    });
  };
  const reads = (plan: PlanNode, table: string) => planNodes(plan).filter((node) => node["Relation Name"] === table);
  const expectIndex = (plan: PlanNode, table: string, index: string, condition: string) => {
    expect(reads(plan, table).map((node) => node["Node Type"])).not.toContain("Seq Scan");
    // An ordered index scan (or a bitmap of the few matches, then sorted) with the value in its
    // condition reads the matches alone; a filter that counts its matches reads the same index.
    const used = planNodes(plan).filter((node) => node["Index Name"] === index);
    expect(used.length).toBeGreaterThan(0);
    for (const node of used) expect(node["Index Cond"]).toContain(condition);
  };

  test("characters of a rare type: the page and its plan, approved or not", async () => {
    const all = await store.characters.list(campaign, { type: "Other", approvedOnly: false }, page);
    expect([all.total, all.rows.map((c) => c.character_name)]).toEqual([3, ["Other 1", "Other 2", "Other 3"]]);
    const approved = await store.characters.list(campaign, { type: "Other", approvedOnly: true }, page);
    expect([approved.total, approved.rows.map((c) => c.character_name)]).toEqual([2, ["Other 1", "Other 3"]]);
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: false }, page)).rows).toEqual([]);
    expectIndex(await planAtScale((s) => s.characters.list(campaign, { type: "Other", approvedOnly: false }, page), "characters"), "characters", "characters_by_type", "type =");
    expectIndex(await planAtScale((s) => s.characters.list(campaign, { type: "Other", approvedOnly: true }, page), "characters"), "characters", "characters_approved_by_type", "type =");
  });

  test("links by either end's type and by alias", async () => {
    const items = await store.links.list(campaign, { to_type: "Item" }, page, null);
    expect([items.total, items.rows.map((l) => l.alias)]).toEqual([2, ["armed 1", "armed 2"]]);
    const fromItems = await store.links.list(campaign, { from_type: "Item" }, page, null);
    expect([fromItems.total, fromItems.rows.map((l) => l.to_id)]).toEqual([2, ["shield1", "shield2"]]);
    const alias = await store.links.list(campaign, { alias: "Armed  2" }, page, null);
    expect([alias.total, alias.rows.map((l) => l.from_id)]).toEqual([1, ["sword2"]]);
    expectIndex(await planAtScale((s) => s.links.list(campaign, { to_type: "Item" }, page, null), "links"), "links", "links_by_to_type", "to_type =");
    expectIndex(await planAtScale((s) => s.links.list(campaign, { from_type: "Item" }, page, null), "links"), "links", "links_by_from_type", "from_type =");
    expectIndex(await planAtScale((s) => s.links.list(campaign, { alias: "armed 2" }, page, null), "links"), "links", "links_by_alias", "alias_key =");
  });

  test("moments of a rare kind", async () => {
    const key = await store.moments.list({ campaignId: campaign, kind: "keyMoment" }, page);
    expect([key.total, key.rows.map((m) => m.label)]).toEqual([2, ["Moment 0", "Moment 1"]]);
    expectIndex(await planAtScale((s) => s.moments.list({ campaignId: campaign, kind: "keyMoment" }, page), "moments"), "moments", "moments_by_kind", "kind =");
  });

  // A campaign's search alone is served by the labels' word starts (0051/0052: moment-search.contract.test.ts);
  // with another filter it is still the trigram index's.
  test("moments by a substring of the label and a kind (migration 0039): the matches from the label's trigram index", async () => {
    const found = await store.moments.list({ campaignId: campaign, search: "ment 59", kind: "legacy" }, page);
    expect([found.total, found.rows.map((m) => m.label)]).toEqual([11, ["Moment 599", "Moment 598", "Moment 597", "Moment 596", "Moment 595", "Moment 594", "Moment 593", "Moment 592", "Moment 591", "Moment 590", "Moment 59"]]);
    const plan = await planAtScale((s) => s.moments.list({ campaignId: campaign, search: "ment 59", kind: "legacy" }, page), "moments");
    expect(reads(plan, "moments").map((node) => node["Node Type"])).not.toContain("Seq Scan");
    const trigram = planNodes(plan).filter((node) => node["Index Name"] === "moments_label_trgm");
    expect(trigram.length).toBeGreaterThan(0);
    for (const node of trigram) expect(node["Index Cond"]).toContain("~~*");
  });

  test("quests by a rare status or category, in the quest log's order", async () => {
    const failed = await store.quests.list(campaign, { status: "failed" }, page);
    expect([failed.total, failed.rows.map((q) => q.quest_name)]).toEqual([2, ["Quest 1", "Quest 0"]]);
    const personal = await store.quests.list(campaign, { quest_category: "personal" }, page);
    expect([personal.total, personal.rows.map((q) => q.quest_name)]).toEqual([2, ["Quest 1", "Quest 0"]]);
    expectIndex(await planAtScale((s) => s.quests.list(campaign, { status: "failed" }, page), "quests"), "quests", "quests_by_status", "status =");
    expectIndex(await planAtScale((s) => s.quests.list(campaign, { quest_category: "personal" }, page), "quests"), "quests", "quests_by_category", "quest_category =");
  });

  test("sessions of a rare type, and the public ones", async () => {
    const byPost = await store.sessions.list(campaign, { type: "playByPost" }, page);
    expect([byPost.total, byPost.rows.map((s) => s.title)]).toEqual([2, ["Session 0", "Session 1"]]);
    const open = await store.sessions.list(campaign, { publicOnly: true }, page);
    expect([open.total, open.rows.map((s) => s.title)]).toEqual([2, ["Session 0", "Session 1"]]);
    expectIndex(await planAtScale((s) => s.sessions.list(campaign, { type: "playByPost" }, page), "sessions"), "sessions", "sessions_by_type", "type =");
    const publicPlan = await planAtScale((s) => s.sessions.list(campaign, { publicOnly: true }, page), "sessions");
    expect(reads(publicPlan, "sessions").map((node) => node["Node Type"])).not.toContain("Seq Scan");
    expect(reads(publicPlan, "sessions").map((node) => node["Index Name"])).toContain("sessions_public");
  });
});
