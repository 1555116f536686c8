// Issue 15: a filtered session list (type, public only) keeps each session's number over the whole
// campaign. It numbered every session of the campaign in a window before filtering (100k: 70 ms a
// page), then the sessions from the page's oldest row on (most of the campaign for a rare old type);
// now the numbers are kept in session_numbers by triggers (migration 0043) and a page reads its own.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Session } from "../../domain/sessions.ts";
import { loadMigrations } from "../../infra/container.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, newId, sessionRecord } from "../support/records.ts";
import { type PlanNode, planNodes, capturingExecutor } from "../support/plans.ts";

await forEachBackend("filtered session lists: numbers over the campaign", (backend) => {
  let db: SqlDatabase;
  let campaignId: string;
  let ownerId: string;

  withStore(backend, async (opened) => {
    ({ db } = opened);
    const store = opened.store;
    ownerId = (await store.users.insert({ id: newId(), name: "Owner", email: "numbers@example.test", role: "user", created_at: at() }))!.id;
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

  test("a filtered page reads its own sessions' numbers, planned as at 500k sessions: no window over the campaign", async () => {
    for (const filters of [{ type: "playByPost" as const }, { publicOnly: true }, { type: "playByPost" as const, publicOnly: true }]) {
      const { executor: capturing, statements } = capturingExecutor(db);
      await sqlRecordStore(capturing as never).sessions.list(campaignId, filters, { page: 1, size: 4 });
      const statement = statements.find((s) => /from sessions/.test(s.sql) && /order by/.test(s.sql));
      expect(statement).toBeDefined();
      const plan = await db.transaction(async (tx: SqlExecutor) => {
        await tx.query(`analyze sessions, session_numbers`);
        await tx.query(
          `update pg_class set reltuples = 500000, relpages = 1 where oid in ('sessions'::regclass, 'session_numbers'::regclass)
             or oid in (select indexrelid from pg_index where indrelid in ('sessions'::regclass, 'session_numbers'::regclass))`,
        );
        const [row] = await tx.query(`explain (format json) ${statement!.sql}`, statement!.params);
        return (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
      });
      const nodes = planNodes(plan);
      expect(nodes.filter((node) => node["Node Type"] === "WindowAgg")).toEqual([]);
      expect(nodes.filter((node) => node["Node Type"] === "Seq Scan").map((node) => node["Relation Name"])).toEqual([]);
      // One read of the campaign's sessions (the filter's index) and the numbers by session id.
      const sessionReads = nodes.filter((node) => node["Relation Name"] === "sessions");
      // (Both filters: either index, the planner's choice by the estimates, as 0038 left it.)
      expect(sessionReads.length).toBe(1);
      expect(filters.type && filters.publicOnly ? ["sessions_by_type", "sessions_public"] : [filters.type ? "sessions_by_type" : "sessions_public"]).toContain(sessionReads[0]!["Index Name"]!);
      expect(nodes.filter((node) => node["Relation Name"] === "session_numbers").map((node) => node["Index Name"])).toEqual(["session_numbers_pkey"]);
    }
  });

  test("numbers kept through writes: older sessions added, several in one statement, dates moved, deletions; other campaigns untouched", async () => {
    const store = sqlRecordStore(db);
    const other = campaignRecord(ownerId, { title: "Kept" });
    await store.campaigns.insert(other);
    const kept: Session[] = [];
    const add = async (day: number, extra: Partial<Session> = {}) => {
      const session = sessionRecord(other.id, { title: `Day ${day}`, session_date: at(day * 86_400_000), created_at: at(kept.length), ...extra });
      await store.sessions.insert(session);
      kept.push(session);
      return session;
    };
    // The expected numbers, computed here: rank by date, then creation (no two share both).
    const expectNumbers = async () => {
      const order = [...kept].sort((a, b) => a.session_date.localeCompare(b.session_date) || a.created_at.localeCompare(b.created_at));
      const expected = new Map(order.map((s, i) => [s.id, i + 1]));
      const all = await store.sessions.list(other.id, {}, { page: 1, size: 100 });
      expect(new Map(all.rows.map((s) => [s.id, s.index]))).toEqual(expected);
      const byPost = await store.sessions.list(other.id, { type: "playByPost" }, { page: 1, size: 100 });
      expect(byPost.rows.map((s) => [s.title, s.index])).toEqual(order.filter((s) => s.type === "playByPost").reverse().map((s) => [s.title, expected.get(s.id)!]));
      for (const s of kept) expect([s.title, await store.sessions.numberOf(s)]).toEqual([s.title, expected.get(s.id)!]);
      const refs = await store.sessions.refs(other.id, kept.map((s) => s.id));
      expect(new Map([...refs].map(([id, ref]) => [id, ref.number]))).toEqual(expected);
      // The first campaign's thirty keep theirs.
      expect(numbered(await list({ type: "playByPost" }, 1, 2))).toEqual([["Session 30", 30], ["Session 27", 27]]);
    };

    for (const day of [10, 20, 30, 40, 50]) await add(day, { type: day % 20 === 0 ? "playByPost" : "chatVoice" });
    await expectNumbers();
    // Before all of them, and between two.
    await add(5, { type: "playByPost" });
    await add(25);
    await add(25, { type: "playByPost" }); // the same day, created later
    await expectNumbers();
    // Three in one statement, scattered among the others.
    const many = [1, 35, 60].map((day) => sessionRecord(other.id, { title: `Day ${day}`, type: "playByPost", session_date: at(day * 86_400_000), created_at: at(100 + day) }));
    await db.query(
      `insert into sessions (id, campaign_id, type, title, session_date, created_at)
       select r->>'id', r->>'campaign_id', r->>'type', r->>'title', (r->>'session_date')::timestamptz, (r->>'created_at')::timestamptz from jsonb_array_elements($1::text::jsonb) r`,
      [JSON.stringify(many)],
    );
    kept.push(...many);
    await expectNumbers();
    // The newest moved before every other, one moved later, and a title changed alone.
    const moved = (s: Session, day: number) => Object.assign(s, { session_date: at(day * 86_400_000) });
    await store.sessions.replace(moved(kept.find((s) => s.title === "Day 60")!, 0));
    await store.sessions.replace(moved(kept.find((s) => s.title === "Day 10")!, 45));
    const retitled = kept.find((s) => s.title === "Day 30")!;
    retitled.title = "Day 30, renamed";
    await store.sessions.replace(retitled);
    await expectNumbers();
    // One deleted in the middle, then two in one statement.
    const gone = kept.find((s) => s.title === "Day 25")!;
    await store.sessions.delete(gone.id);
    kept.splice(kept.indexOf(gone), 1);
    const twoGone = kept.filter((s) => s.title === "Day 5" || s.title === "Day 40");
    await db.query(`delete from sessions where id = any($1::text[])`, [twoGone.map((s) => s.id)]);
    for (const s of twoGone) kept.splice(kept.indexOf(s), 1);
    await expectNumbers();
    expect(Number((await db.query(`select count(*)::int as n from session_numbers where session_id = any($1::text[])`, [[gone, ...twoGone].map((s) => s.id)]))[0]!.n)).toBe(0);
  });

  test.skipIf(backend.name !== "postgres")("two transactions moving sessions of one campaign at once: the second waits and numbers with the first's move", async () => {
    const store = sqlRecordStore(db);
    const other = campaignRecord(ownerId, { title: "Concurrent" });
    await store.campaigns.insert(other);
    const sessions = [1, 2, 3, 4].map((day) => sessionRecord(other.id, { title: `Day ${day}`, session_date: at(day * 86_400_000), created_at: at(day) }));
    for (const s of sessions) await store.sessions.insert(s);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstMoved!: () => void;
    const moved = new Promise<void>((resolve) => (firstMoved = resolve));
    // Day 4 moved first (to day 0), held open; Day 3 moved (to day 5) meanwhile, on another connection.
    const first = db.transaction(async (tx) => {
      await tx.query(`update sessions set session_date = $2::timestamptz where id = $1`, [sessions[3]!.id, at(0)]);
      firstMoved();
      await held;
    }, { retry: false });
    await moved;
    const second = db.transaction(async (tx) => {
      await tx.query(`update sessions set session_date = $2::timestamptz where id = $1`, [sessions[2]!.id, at(5 * 86_400_000)]);
    }, { retry: false });
    await Bun.sleep(200);
    release();
    await Promise.all([first, second]);
    const numbers = await store.sessions.refs(other.id, sessions.map((s) => s.id));
    // Day 4 (now day 0) 1, Day 1 2, Day 2 3, Day 3 (now day 5) 4.
    expect(sessions.map((s) => numbers.get(s.id)?.number)).toEqual([2, 3, 4, 1]);
  });
});

await forEachBackend("migration 0043 (session numbers)", (backend) => {
  test("the sessions written before it are numbered per campaign, and kept from then on", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0043"));
      const t = "2026-01-01T00:00:00Z";
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [t]);
      for (const c of ["c1", "c2"]) await db.query(`insert into campaigns (id, title, owner_id, created_at) values ($1, $1, 'u1', $2)`, [c, t]);
      // c1: s3 on day 1, s1 and s2 on day 2 (s2 created first), s4 on day 3; c2: one session.
      for (const [id, c, day, created] of [["s1", "c1", 2, 2], ["s2", "c1", 2, 1], ["s3", "c1", 1, 3], ["s4", "c1", 3, 0], ["s5", "c2", 9, 0]] as const)
        await db.query(`insert into sessions (id, campaign_id, type, title, session_date, created_at) values ($1, $2, 'chatVoice', $1, $3::timestamptz + $4 * interval '1 day', $3::timestamptz + $5 * interval '1 second')`, [id, c, t, day, created]);
      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0043").map((m) => m.version));
      const numbers = async () => (await db.query(`select session_id, number from session_numbers order by session_id`)).map((r) => [r.session_id, Number(r.number)]);
      expect(await numbers()).toEqual([["s1", 3], ["s2", 2], ["s3", 1], ["s4", 4], ["s5", 1]]);
      await db.query(`insert into sessions (id, campaign_id, type, title, session_date, created_at) values ('s6', 'c1', 'chatVoice', 's6', $1::timestamptz, $1::timestamptz)`, [t]);
      expect(await numbers()).toEqual([["s1", 4], ["s2", 3], ["s3", 2], ["s4", 5], ["s5", 1], ["s6", 1]]);
    } finally {
      await close();
    }
  });
});
