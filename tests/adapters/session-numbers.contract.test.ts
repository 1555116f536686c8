// Issue 15: a filtered session list (type, public only) keeps each session's number over the whole
// campaign. It numbered every session of the campaign in a window before filtering (100k: 70 ms a
// page); now only the sessions from the page's oldest row on are numbered, from the campaign's counter.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, newId, sessionRecord } from "../support/records.ts";
import { type PlanNode, planNodes, capturingExecutor } from "../support/plans.ts";


await forEachBackend("filtered session lists: numbers over the campaign", (backend) => {
  let db: SqlDatabase;
  let campaignId: string;

  withStore(backend, async (opened) => {
    ({ db } = opened);
    const store = opened.store;
    const ownerId = (await store.users.insert({ id: newId(), name: "Owner", email: "numbers@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(ownerId, { title: "Numbered" });
    await store.campaigns.insert(campaign);
    campaignId = campaign.id;
    // Thirty sessions, a day apart (number n on day n); every third a play-by-post, every fifth public.
    // Sessions 10 and 11 share a date, so the creation time decides between them.
    for (let n = 1; n <= 30; n++)
      await store.sessions.insert(
        sessionRecord(campaignId, {
          title: `Session ${n}`,
          type: n % 3 === 0 ? "playByPost" : "chatVoice",
          public: n % 5 === 0,
          session_date: at((n === 11 ? 10 : n) * 86_400_000),
          created_at: at(n),
        }),
      );
  });

  const list = (filters: { type?: "playByPost"; publicOnly?: boolean }, page: number, size: number) =>
    sqlRecordStore(db).sessions.list(campaignId, filters, { page, size });
  const numbered = (listing: Awaited<ReturnType<typeof list>>) => listing.rows.map((s) => [s.title, s.index]);

  test("a type's sessions, newest first, keep their campaign numbers on every page", async () => {
    const first = await list({ type: "playByPost" }, 1, 4);
    expect(numbered(first)).toEqual([["Session 30", 30], ["Session 27", 27], ["Session 24", 24], ["Session 21", 21]]);
    expect(first.total).toBe(10);
    const last = await list({ type: "playByPost" }, 3, 4);
    expect(numbered(last)).toEqual([["Session 6", 6], ["Session 3", 3]]);
    expect(last.total).toBe(10);
    const past = await list({ type: "playByPost" }, 9, 4);
    expect(past.rows).toEqual([]);
    expect(past.total).toBe(10);
  });

  test("public only, and both filters; the shared date ordered by creation", async () => {
    expect(numbered(await list({ publicOnly: true }, 1, 10))).toEqual([30, 25, 20, 15, 10, 5].map((n) => [`Session ${n}`, n]));
    expect(numbered(await list({ type: "playByPost", publicOnly: true }, 1, 10))).toEqual([["Session 30", 30], ["Session 15", 15]]);
    const around = await sqlRecordStore(db).sessions.list(campaignId, {}, { page: 1, size: 30 });
    expect(around.rows.slice(19, 21).map((s) => [s.title, s.index])).toEqual([["Session 11", 11], ["Session 10", 10]]);
    expect(numbered(await list({ publicOnly: true }, 5, 1))).toEqual([["Session 10", 10]]);
  });

  test("the numbers read only the sessions from the page's oldest row on, planned as at 500k sessions", async () => {
    const { executor: capturing, statements } = capturingExecutor(db);
    await sqlRecordStore(capturing as never).sessions.list(campaignId, { type: "playByPost" }, { page: 1, size: 4 });
    const statement = statements.find((s) => /row_number/.test(s.sql));
    expect(statement).toBeDefined();
    const plan = await db.transaction(async (tx: SqlExecutor) => {
      await tx.query(`analyze sessions`);
      await tx.query(`update pg_class set reltuples = 500000, relpages = 1 where oid in ('sessions'::regclass, 'sessions_by_campaign_date'::regclass)`);
      const [row] = await tx.query(`explain (format json) ${statement!.sql}`, statement!.params);
      return (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
    });
    const windows = planNodes(plan).filter((node) => node["Node Type"] === "WindowAgg");
    expect(windows.length).toBe(1);
    // The window's sessions come from the campaign's date index from the page's oldest row on.
    const numberedReads = planNodes(windows[0]!).filter((node) => node["Relation Name"] === "sessions");
    expect(numberedReads.length).toBe(1);
    expect(numberedReads[0]!["Index Cond"] ?? "").toContain("session_date");
  });
});
