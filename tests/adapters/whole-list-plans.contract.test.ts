// Issue 15: a whole list's first page has its size in the statement's text, so PostgreSQL keeps one
// plan for it instead of planning every call anew (a LIMIT that is a parameter cannot be estimated in
// a generic plan). That is only safe where the kept plan is the best one for every campaign: the
// list's index read in order, stopping after the page. Checked here with the plan forced generic,
// for a campaign of 300 records per kind, after small campaigns; a filtered page keeps its LIMIT and
// OFFSET as parameters (a filter's value can make another index the better one).
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { type CapturedStatement, type PlanNode, capturingExecutor, planNodes } from "../support/plans.ts";
import { at, beatRecord, campaignRecord, characterRecord, momentRecord, newId, sessionRecord } from "../support/records.ts";

const BIG = 300;

await forEachBackend("whole lists' first pages keep their plan", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let big: string;
  let viewer: string;
  const small: string[] = [];

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    viewer = (await store.users.insert({ id: newId(), name: "Owner", email: "whole-lists@example.test", role: "user", created_at: at() }))!.id;
    const campaign = async (title: string) => {
      const made = campaignRecord(viewer, { title });
      await store.campaigns.insert(made);
      return made.id;
    };
    big = await campaign("Big");
    for (let i = 0; i < 3; i++) small.push(await campaign(`Small ${i}`));
    const fill = async (campaignId: string, n: number) => {
      const hero = characterRecord(campaignId, { character_name: "Hero", created_at: at(-1) });
      await store.characters.insert(hero);
      for (let i = 0; i < n; i++) {
        await store.characters.insert(characterRecord(campaignId, { character_name: `Char ${i}`, created_at: at(i) }));
        await store.sessions.insert(sessionRecord(campaignId, { created_at: at(i) }));
        await store.beats.insert(beatRecord(campaignId, { created_at: at(i) }));
        await store.moments.insert(momentRecord(campaignId, { created_at: at(i) }));
        await db.query(
          `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at) values ($1, $2, 'Character', $3, 'Location', $4, $5, $5, $6::timestamptz)`,
          [newId(), campaignId, hero.id, newId(), `place ${i}`, at(i)],
        );
      }
    };
    await fill(big, BIG);
    for (const id of small) await fill(id, 2);
    await db.query(`analyze characters, sessions, beats, moments, links`);
  });

  /** The statements a list call sent, and its answer. */
  const capture = async <T>(run: (s: RecordStore) => Promise<T>): Promise<{ statements: CapturedStatement[]; answer: T }> => {
    const { executor, statements } = capturingExecutor(db);
    const answer = await run(sqlRecordStore(executor as never));
    return { statements, answer };
  };
  /** The statement's generic plan (as kept after the first calls), run for `params`. */
  let prepared = 0;
  const genericPlan = (statement: CapturedStatement, params: unknown[]) =>
    db.transaction(async (tx: SqlExecutor) => {
      // PREPARE outlives a rolled-back transaction: a name of its own each time.
      const name = `whole_list_page_${++prepared}`;
      await tx.query(`set local plan_cache_mode = force_generic_plan`);
      // The simple protocol: through the extended one, the statement's $n were taken for PREPARE's own parameters.
      await tx.exec(`prepare ${name} as ${statement.sql}`);
      // The arguments as literals: EXECUTE's own parameters got no type from the statement.
      const literals = params.map((value) => `'${String(value).replaceAll("'", "''")}'`).join(", ");
      const [row] = await tx.query(`explain (analyze, format json) execute ${name}(${literals})`);
      await tx.query(`deallocate ${name}`);
      return (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
    });

  const lists: [string, (s: RecordStore, campaignId: string) => Promise<{ rows: unknown[]; total: number }>, string][] = [
    ["characters", (s, c) => s.characters.list(c, { approvedOnly: false }, { page: 1, size: 20 }), "characters"],
    ["sessions", (s, c) => s.sessions.list(c, {}, { page: 1, size: 20 }), "sessions"],
    ["beats", (s, c) => s.beats.listByCampaign(c, { page: 1, size: 20 }), "beats"],
    ["moments", (s, c) => s.moments.list({ campaignId: c }, { page: 1, size: 20 }), "moments"],
    ["links", (s, c) => s.links.list(c, {}, { page: 1, size: 20 }, viewer), "links"],
  ];

  for (const [name, list, table] of lists) {
    test(`${name}: the page's size is in the text; the kept plan reads the list's index in order and stops after the page, in a big campaign too`, async () => {
      const { statements, answer } = await capture((s) => list(s, big));
      expect(answer.rows.length).toBe(20);
      expect(answer.total).toBe(name === "characters" ? BIG + 1 : BIG);
      const page = statements.find((s) => new RegExp(`from ${table}\\b`).test(s.sql) && /limit 20$/.test(s.sql.trim()));
      expect(page).toBeDefined();
      // Kept plans are made after small campaigns' calls as well: the plan must not depend on which.
      for (const id of small) await list(sqlRecordStore(db), id);
      const plan = await genericPlan(page!, [big, ...page!.params.slice(1)]);
      const nodes = planNodes(plan);
      expect(nodes.filter((n) => n["Node Type"] === "Sort" || n["Node Type"] === "Incremental Sort")).toEqual([]);
      // The page's own scan: not the total's (an init plan: a counter, or links' hidden journal links).
      const mainNodes = (node: PlanNode): PlanNode[] => (node["Subplan Name"] ? [] : [node, ...(node.Plans ?? []).flatMap(mainNodes)]);
      const scans = mainNodes(plan).filter((n) => n["Relation Name"] === table);
      expect(scans.length).toBe(1);
      expect(scans[0]!["Node Type"]).toMatch(/^Index (Only )?Scan$/);
      // An ordered scan stops after the page (a row or two more at most for the limit's look-ahead).
      expect(scans[0]!["Actual Rows"]).toBeLessThanOrEqual(21);
    });
  }

  test("a filtered page and a later page keep LIMIT and OFFSET as parameters", async () => {
    const filtered = await capture((s) => s.characters.list(big, { approvedOnly: false, type: "PC" }, { page: 1, size: 20 }));
    expect(filtered.statements.some((s) => /from characters c where .* limit \$\d+ offset \$\d+$/s.test(s.sql.trim()))).toBe(true);
    const later = await capture((s) => s.characters.list(big, { approvedOnly: false }, { page: 2, size: 20 }));
    expect(later.answer.rows.length).toBe(20);
    expect(later.statements.some((s) => /limit \$\d+ offset \$\d+$/.test(s.sql.trim()))).toBe(true);
  });
});
