// A statement waits for the first free connection of the pool, never queued behind one statement
// that is still running (issue 15): postgres.js pipelined a query onto a busy connection when every
// connection was busy, so a POST's statement sent while the worker's VACUUM of ask_counts waited
// 4.6 s to truncate it waited those 4.6 s too, though the other connections were free again in
// milliseconds (the black-box seed's slowest POST, 5.4 s). PostgreSQL only: PGlite has one connection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { openPostgres, type SqlDatabase } from "../../adapters/sql/database.ts";
import { POSTGRES_ADMIN_URL, postgresUnavailableReason } from "../support/postgres.ts";

const unavailable = await postgresUnavailableReason();

describe.skipIf(unavailable !== null)("PostgreSQL pool: no statement queued behind a busy connection", () => {
  // Advisory locks of this test only (another test process may use the same server).
  const [held, brief] = [Math.floor(Math.random() * 1e9), Math.floor(Math.random() * 1e9) + 1e9];
  let holder: postgres.Sql;
  let db: SqlDatabase;

  beforeAll(async () => {
    holder = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    db = openPostgres(POSTGRES_ADMIN_URL, { maxConnections: 2 });
  });
  afterAll(async () => {
    await holder.end({ timeout: 2 });
    await db.close();
  });

  const waitingFor = async (key: number) =>
    Number((await holder`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = ${key} and not granted`)[0]!.n);

  test("with every connection busy, statements sent then run on the first connection freed while the other still waits on a lock", async () => {
    await holder`select pg_advisory_lock(${held}), pg_advisory_lock(${brief})`;
    // Both connections open (a connection's first statement runs while it is still connecting).
    await Promise.all([db.query(`select pg_sleep(0.05)`), db.query(`select pg_sleep(0.05)`)]);
    // Both connections busy: each waits on a lock the holder keeps (what a long worker statement is).
    // Without parameters, as `vacuum (skip_locked) ask_counts` (a statement with parameters is
    // pipelined only once prepared on the connection).
    const long = db.query(`select pg_advisory_xact_lock_shared(${held}) as x`);
    const short = db.query(`select pg_advisory_xact_lock_shared(${brief}) as x`);
    while ((await waitingFor(held)) < 1 || (await waitingFor(brief)) < 1) await Bun.sleep(10);
    // A statement and a transaction sent now (a POST's read and its write): pipelined, one went
    // behind each busy connection.
    const sent = [db.query(`select 1 as one`), db.transaction((tx) => tx.query(`select 2 as two`))];
    await holder`select pg_advisory_unlock(${brief})`;
    await short;
    // The connection freed serves both; the other is still waiting (checked by its lock, after).
    const outcome = await Promise.race([
      Promise.all(sent).then(() => "both answered"),
      long.then(() => "the long statement ended first"),
      Bun.sleep(10_000).then(() => "still queued behind the waiting statement after 10 s"),
    ]);
    const stillWaiting = await waitingFor(held);
    await holder`select pg_advisory_unlock(${held})`;
    await long;
    expect(outcome).toBe("both answered");
    expect(stillWaiting).toBe(1);
    expect(await Promise.all(sent)).toEqual([[{ one: 1 }], [{ two: 2 }]]);
  }, 30_000);
});
