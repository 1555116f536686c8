// Issue 15: read paths as a player who is not the author, planned as at scale (the planner is shown
// 500k rows by pg_class, rolled back). (1) The journal list's count of entries shared with the viewer
// starts from the viewer's shares and checks each entry by id; joined, the planner read every private
// entry of the campaign. (2) The service's connections run without JIT: a links page of 20 is
// estimated above jit_above_cost once the campaign is big, and was compiled with LLVM on every call.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";
import { type PlanNode, planNodes, capturingExecutor } from "../support/plans.ts";


await forEachBackend("reads as a player who is not the author", (backend) => {
  let db: SqlDatabase;
  let campaignId: string;
  let ownerId: string;
  let playerId: string;
  let heroId: string;
  const entries: string[] = [];

  withStore(backend, async (opened) => {
    ({ db } = opened);
    const store = opened.store;
    ownerId = (await store.users.insert({ id: newId(), name: "Owner", email: "owner-viewer@example.test", role: "user", created_at: at() }))!.id;
    playerId = (await store.users.insert({ id: newId(), name: "Player", email: "player-viewer@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(ownerId, { title: "Viewer plans" });
    await store.campaigns.insert(campaign);
    campaignId = campaign.id;
    const character = characterRecord(campaignId, { character_name: "Linked Hero", created_at: at(1) });
    await store.characters.insert(character);
    // Entries 0-5 by the owner: 0 public, 1-5 private; 2 and 4 shared with the player; 6 the player's own private one.
    for (let i = 0; i < 7; i++) {
      const id = newId();
      entries.push(id);
      await db.query(
        `insert into journal_entries (id, campaign_id, title, content, is_public, author_id, created_at) values ($1, $2, $3, 'text', $4, $5, $6::timestamptz)`,
        [id, campaignId, `Entry ${i}`, i === 0, i === 6 ? playerId : ownerId, at(10 + i)],
      );
      await db.query(
        `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at) values ($1, $2, 'Journal', $3, 'Character', $4, $5, $5, $6::timestamptz)`,
        [newId(), campaignId, id, character.id, `hero ${i}`, at(20 + i)],
      );
    }
    for (const i of [2, 4]) await store.journals.putShare(entries[i]!, { user_id: playerId, level: "view" }, at(30 + i));
    // Older links from the hero to forty places, one each.
    for (let i = 0; i < 40; i++)
      await db.query(
        `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at) values ($1, $2, 'Character', $3, 'Location', $4, $5, $5, $6::timestamptz)`,
        [newId(), campaignId, character.id, newId(), `place ${i}`, at(i - 100)],
      );
    heroId = character.id;
    // Statistics of this one campaign, which the planner then scales to the row counts it is shown.
    await db.query(`analyze links, journal_entries, journal_shares`);
  });

  const captured = async (run: (store: ReturnType<typeof sqlRecordStore>) => Promise<unknown>, pattern: RegExp) => {
    const { executor: capturing, statements } = capturingExecutor(db);
    await run(sqlRecordStore(capturing as never));
    const statement = statements.find((s) => pattern.test(s.sql));
    expect(statement).toBeDefined();
    return statement!;
  };
  /** The statement's plan with `relations` (tables, indexes) shown to the planner as 500k rows (rolled back). */
  const planAtScale = (statement: { sql: string; params: unknown[] }, ...relations: string[]) =>
    db.transaction(async (tx: SqlExecutor) => {
      for (const relation of relations) await tx.query(`update pg_class set reltuples = 500000, relpages = 1 where oid = '${relation}'::regclass`);
      const [row] = await tx.query(`explain (format json) ${statement.sql}`, statement.params);
      return (row!["QUERY PLAN"] as { Plan: PlanNode; JIT?: unknown }[])[0]!;
    });

  test("the player's journal list holds the public, their own and the shared entries, with that total", async () => {
    const page = await sqlRecordStore(db).journals.listVisible(campaignId, playerId, {}, { page: 1, size: 20 });
    expect(page.rows.map((entry) => entry.title).sort()).toEqual(["Entry 0", "Entry 2", "Entry 4", "Entry 6"]);
    expect(page.total).toBe(4);
    // Past the end the total is asked on its own: the same count.
    const past = await sqlRecordStore(db).journals.listVisible(campaignId, playerId, {}, { page: 3, size: 2 });
    expect(past.rows).toEqual([]);
    expect(past.total).toBe(4);
    const owners = await sqlRecordStore(db).journals.listVisible(campaignId, ownerId, {}, { page: 1, size: 20 });
    expect(owners.total).toBe(6);
  });

  test("the shared entries are counted from the player's shares, each entry read by id, never all private entries", async () => {
    const statement = await captured((store) => store.journals.listVisible(campaignId, playerId, {}, { page: 1, size: 20 }), /journal_shares/);
    const { Plan: plan } = await planAtScale(statement, "journal_entries", "journal_entries_private", "journal_shares", "journal_shares_by_user");
    const journalReads = planNodes(plan).filter((node) => node["Relation Name"] === "journal_entries");
    expect(journalReads.length).toBeGreaterThan(0);
    // The page reads the campaign's list index in order; the count reads each shared entry by its id
    // (a join read every private entry of the campaign, or the whole primary key in a merge join).
    for (const node of journalReads) {
      expect(node["Node Type"]).toBe("Index Scan");
      if (node["Index Name"] === "journal_entries_listed") expect(node["Index Cond"]).toContain("campaign_id =");
      else expect([node["Index Name"], node["Index Cond"]]).toEqual(["journal_entries_pkey", "(id = s.entry_id)"]);
    }
    expect(journalReads.map((node) => node["Index Name"])).toContain("journal_entries_pkey");
  });

  test("a record's backlinks as the player: the visible ones, newest first, read from the target's index and sorted", async () => {
    const page = await sqlRecordStore(db).links.list(campaignId, { to_id: heroId }, { page: 1, size: 3 }, playerId);
    expect(page.rows.map((link) => link.alias)).toEqual(["hero 6", "hero 4", "hero 2"]);
    expect(page.total).toBe(4);
    const owners = await sqlRecordStore(db).links.list(campaignId, { from_id: heroId }, { page: 2, size: 30 }, ownerId);
    expect(owners.rows.map((link) => link.alias)).toEqual(Array.from({ length: 10 }, (_, i) => `place ${9 - i}`));
    expect(owners.total).toBe(40);
    for (const [filters, index] of [[{ to_id: heroId }, "links_by_target"], [{ from_id: heroId }, "links_by_source"]] as const) {
      const statement = await captured((store) => store.links.list(campaignId, filters, { page: 1, size: 20 }, playerId), /order by l\.created_at desc/i);
      const { Plan: plan } = await planAtScale(statement, "links", "links_by_campaign");
      // Never the campaign's index walked newest first (every link of the campaign when the record's are old or hidden).
      const linkReads = planNodes(plan).filter((node) => node["Relation Name"] === "links");
      expect(linkReads.map((node) => node["Index Name"])).not.toContain("links_by_campaign");
      expect(linkReads.map((node) => node["Node Type"])).not.toContain("Seq Scan");
      expect(linkReads.map((node) => node["Index Name"])).toContain(index);
    }
  });

  test("the player's links page is not compiled with JIT, though planned above jit_above_cost at scale", async () => {
    const page = await sqlRecordStore(db).links.list(campaignId, {}, { page: 1, size: 20 }, playerId);
    // The journal links the player may see, then the newest of the hero's forty older links.
    expect(page.rows.map((link) => link.alias)).toEqual(["hero 6", "hero 4", "hero 2", "hero 0", ...Array.from({ length: 16 }, (_, i) => `place ${39 - i}`)]);
    expect(page.total).toBe(44);
    const statement = await captured((store) => store.links.list(campaignId, {}, { page: 1, size: 20 }, playerId), /order by l\.created_at desc/i);
    // Every link a journal link (its partial index too): the total's check of them is what costs.
    const explained = await planAtScale(statement, "links", "links_journal_ends");
    if (backend.name === "postgres") {
      // The case the setting is for: an estimate JIT would compile at the server's default.
      const [threshold] = await db.query(`select setting::float8 as cost from pg_settings where name = 'jit_above_cost'`);
      expect(explained.Plan["Total Cost"]).toBeGreaterThan(Number(threshold!.cost));
    }
    expect(explained.JIT).toBeUndefined();
    const [setting] = await db.query(`select current_setting('jit') as jit`);
    if (backend.name === "postgres") expect(setting!.jit).toBe("off");
  });
});
