// Issue 15 (migration 0033): spoiler-safe asking leaves out every later session's passages before
// scoring; at 105k passages most of a campaign may be later than the asked session, and reading their
// ids from the heap one by one cost more than the scoring. The ids come from the session index alone.
import { expect, test } from "bun:test";
import type { SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRetriever } from "../../adapters/sql/retrieval.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { capturingExecutor, planNodes, type PlanNode } from "../support/plans.ts";

await forEachBackend("Ask retrieval plans", (backend) => {
  let service: InProcessService;
  let campaignId = "";
  const sessions: string[] = [];

  const importPlain = (sessionId: string, lines: string[]) => service.importTranscript(sessionId, lines.join("\n"));

  inProcessOn(backend, async (made) => {
    service = made;
    const gm = await service.newUser("gm", `gm.${crypto.randomUUID().slice(0, 6)}@example.test`);
    campaignId = (await service.post("/v1/campaigns", { title: "Spoilers at scale" }, gm.key)).id;
    for (const [i, title] of ["The Gate", "The Vault", "The Throne"].entries()) {
      sessions.push((await service.call("POST", "/internal/v1/sessions", service.adminKey, { campaign_id: campaignId, type: "chatVoice", title, session_date: `2016-05-${10 + i * 7}T19:00:00Z` })).body.id);
      await importPlain(sessions[i]!, [`MATT: The silver lantern hangs over ${title.toLowerCase()}.`, `SAM: I take the silver lantern, part ${i + 1}.`]);
    }
  });

  test("as of the first session only its own lantern is found, and the later sessions' passages are left out from the session index alone", async () => {
    const { executor, statements } = capturingExecutor(service.db);
    const query = { campaignId, text: "silver lantern", journals: { all: true }, limit: 10, asOfSessionId: sessions[0] } as const;
    const found = await sqlRetriever(executor).retrieve(query);
    expect(found.map((p) => [p.kind, p.sessionId === sessions[0], p.text.includes("part 1")])).toEqual([["transcript", true, true]]);
    const statement = statements.find((s) => /common_bound/.test(s.sql))!;
    expect(statement).toBeDefined();
    // Planned as at scale: the passages and each of their indexes shown as 500k rows, all visible (rolled back).
    const rollback = new Error("rollback");
    let plan: PlanNode | undefined;
    await service.db
      .transaction(async (tx: SqlExecutor) => {
        await tx.query(`analyze ask_passages`);
        // The planner scales reltuples / relpages by the file's real size: one page of 500k rows.
        await tx.query(`update pg_class set reltuples = 500000, relpages = 1, relallvisible = 1 where oid = 'ask_passages'::regclass or oid in (select indexrelid from pg_index where indrelid = 'ask_passages'::regclass)`);
        // Three sessions make the later ones two thirds of the table, where reading it whole is
        // right; the question here is whether the index alone can answer (the 105k bench chose it).
        await tx.query(`set local enable_seqscan = off`);
        await tx.query(`set local enable_bitmapscan = off`);
        const [row] = await tx.query(`explain (format json) ${statement.sql}`, statement.params);
        plan = (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
        throw rollback;
      }, { retry: false })
      .catch((error) => {
        if (error !== rollback) throw error;
      });
    // The read of the later sessions' passages (sessions 2 and 3) answers from the index: no heap fetch per passage.
    const later = planNodes(plan!).filter((node) => node["Relation Name"] === "ask_passages" && node["Index Cond"]?.includes(sessions[2]!));
    expect(later.map((node) => [node["Node Type"], node["Index Name"]])).toEqual([["Index Only Scan", "ask_passages_by_session"]]);
  });

  test("a packed word's list is one primary-key probe even when ask_packed's statistics predate the build", async () => {
    // The worker's last ANALYZE saw ask_packed before this campaign was packed.
    await service.db.query(`analyze ask_packed`);
    expect(await service.deps.records.askIndex.pack(1, 10)).toEqual([campaignId]);
    const { executor, statements } = capturingExecutor(service.db);
    await sqlRetriever(executor).retrieve({ campaignId, text: "silver lantern part", journals: { all: true }, limit: 10 });
    const fetch = statements.find((s) => /from ask_packed_builds/.test(s.sql) && /ask_packed p/.test(s.sql))!;
    expect(fetch).toBeDefined();
    const rollback = new Error("rollback");
    let plan: PlanNode | undefined;
    await service.db
      .transaction(async (tx: SqlExecutor) => {
        // A few rows here; at scale the table is read by its index.
        await tx.query(`set local enable_seqscan = off`);
        const [row] = await tx.query(`explain (format json) ${fetch.sql}`, fetch.params);
        plan = (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
        throw rollback;
      }, { retry: false })
      .catch((error) => {
        if (error !== rollback) throw error;
      });
    const reads = planNodes(plan!).filter((node) => node["Relation Name"] === "ask_packed");
    expect(reads.map((node) => [node["Index Name"], /\bterm\b/.test(node["Index Cond"] ?? "")])).toEqual([["ask_packed_pkey", true]]);
  });
});

