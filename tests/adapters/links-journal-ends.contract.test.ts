// Issue 15: a page of links checks the journal entries at its ends one by one, by id. The planner may
// otherwise hash every visible journal entry of every campaign to check them, built as soon as a page
// holds one journal link (100k entries: 138 ms for a first page of 20 links instead of 0.1 ms).
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, newId } from "../support/records.ts";
import { type PlanNode, planNodes, capturingExecutor } from "../support/plans.ts";


await forEachBackend("links: journal ends checked by id", (backend) => {
  let db: SqlDatabase;
  let campaignId: string;
  let ownerId: string;
  let readerId: string;
  const journals: string[] = [];
  const journal = (i: number) => journals[i]!;

  withStore(backend, async (opened) => {
    ({ db } = opened);
    const store = opened.store;
    ownerId = (await store.users.insert({ id: newId(), name: "Owner", email: "ends@example.test", role: "user", created_at: at() }))!.id;
    readerId = (await store.users.insert({ id: newId(), name: "Reader", email: "reader@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(ownerId, { title: "Journal links" });
    await store.campaigns.insert(campaign);
    campaignId = campaign.id;
    const character = characterRecord(campaignId, { character_name: "Linked Hero", created_at: at(1) });
    await store.characters.insert(character);
    // Two public entries and one private: the reader sees the links of the public ones only.
    for (const [i, isPublic] of [[0, true], [1, false], [2, true]] as const) {
      const id = newId();
      journals.push(id);
      await db.query(
        `insert into journal_entries (id, campaign_id, title, content, is_public, author_id, created_at) values ($1, $2, $3, 'text', $4, $5, $6::timestamptz)`,
        [id, campaignId, `Entry ${i}`, isPublic, ownerId, at(10 + i)],
      );
      await db.query(
        `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at) values ($1, $2, 'Journal', $3, 'Character', $4, $5, $5, $6::timestamptz)`,
        [newId(), campaignId, id, character.id, `hero ${i}`, at(20 + i)],
      );
    }
  });

  test("the reader's first page holds the links of the entries they may see, newest first", async () => {
    const page = await sqlRecordStore(db).links.list(campaignId, {}, { page: 1, size: 20 }, readerId);
    expect(page.rows.map((link) => link.from_id)).toEqual([journal(2), journal(0)]);
    expect(page.total).toBe(2);
    const owners = await sqlRecordStore(db).links.list(campaignId, {}, { page: 1, size: 20 }, ownerId);
    expect(owners.rows.map((link) => link.from_id)).toEqual([journal(2), journal(1), journal(0)]);
  });

  test("the plan looks each end up by id and hashes no journal entries, whatever the planner's estimates", async () => {
    // The page's own statement, captured as the repository sends it.
    const { executor: capturing, statements } = capturingExecutor(db);
    await sqlRecordStore(capturing as never).links.list(campaignId, {}, { page: 1, size: 20 }, readerId);
    const pageStatement = statements.find((s) => /order by l\.created_at desc/i.test(s.sql))!;
    expect(pageStatement).toBeDefined();
    const plan = await db.transaction(async (tx: SqlExecutor) => {
      // At scale the planner expects many links to check and prefers one hash of every visible entry.
      // The campaign's links as 100k would be planned (density per page; rolled back with the rest).
      await tx.query(`update pg_class set reltuples = 500000, relpages = 1 where oid = 'links'::regclass`);
      const [row] = await tx.query(`explain (format json) ${pageStatement.sql}`, pageStatement.params);
      return (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
    });
    // In the plan's filters a hash of a subplan reads "hashed SubPlan n" (a hash of the viewer's own
    // shares, journal_shares by user, is fine: it is bounded by that user, not by the campaigns).
    const hashed = (JSON.stringify(plan).match(/hashed SubPlan \d+/g) ?? []).map((ref) => ref.replace("hashed ", ""));
    const hashedTables = planNodes(plan).filter((node) => hashed.includes(node["Subplan Name"] ?? "")).map((node) => node["Relation Name"]);
    expect(hashedTables).not.toContain("journal_entries");
    const journalReads = planNodes(plan).filter((node) => node["Relation Name"] === "journal_entries");
    expect(journalReads.length).toBeGreaterThan(0);
    expect(journalReads.map((node) => node["Node Type"])).not.toContain("Seq Scan");
  });
});
