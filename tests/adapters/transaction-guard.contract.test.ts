// Issue 15: inside db.transaction(work), a query or transaction through the database itself (not the
// transaction's tx) waits for a second connection while the transaction holds one: on PostgreSQL a
// pool slot (with every slot so held, forever), on PGlite its transaction lock (forever, every time).
// It is refused at once, whatever the pool's size, instead of hanging; what is legitimate still works.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NestedInTransactionError, openPostgres, outsideTransaction, type SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { openMigratedMemoryPglite } from "../../infra/container.ts";
import { asActor } from "../../adapters/shared/actor.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { scratchDatabase } from "../support/postgres.ts";
import { at, newId } from "../support/records.ts";

const REFUSED = /^Refused db\.(query|exec|transaction)\(\) inside db\.transaction\(\)'s work: use the transaction's executor \(tx\)/;

/** What `promise` came to within `ms`: its value, its error's message, or "still waiting" (a hang). */
const within = <T>(promise: Promise<T>, ms = 5_000): Promise<{ value: T } | { error: string } | "still waiting"> =>
  Promise.race([promise.then((value) => ({ value }), (error: Error) => ({ error: error.message })), Bun.sleep(ms).then(() => "still waiting" as const)]);

/** A promise and the function that resolves it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

await forEachBackend("transaction guard, one connection", (backend) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (backend.name === "pglite") {
      db = await openMigratedMemoryPglite();
      close = () => db.close();
    } else {
      const scratch = await scratchDatabase("poolguard");
      db = openPostgres(scratch.url, { maxConnections: 1 });
      close = async () => {
        await db.close();
        await scratch.drop();
      };
    }
    await db.exec(`create table guarded (n int not null)`);
  });
  afterAll(async () => close?.());

  test("a query through the database inside a transaction is refused at once, the transaction rolled back, the connection free again", async () => {
    const outcome = await within(
      db.transaction(async (tx) => {
        await tx.query(`insert into guarded (n) values (1)`);
        return db.query<{ n: number }>(`select count(*)::int as n from guarded`);
      }),
    );
    expect(outcome).toEqual({ error: expect.stringMatching(REFUSED) });
    expect((outcome as { error: string }).error.startsWith("Refused db.query()")).toBe(true);
    // Rolled back, and the one connection is not held by anything.
    expect(await within(db.query(`select count(*)::int as n from guarded`))).toEqual({ value: [{ n: 0 }] });
  });

  test("so are exec, a transaction inside a transaction, and a write with an actor (which opens its own transaction)", async () => {
    const attempts = [
      () => db.exec(`select 1`),
      () => db.transaction((inner) => inner.query(`select 1 as one`)),
      () => asActor("someone", () => db.query(`insert into guarded (n) values (2)`)),
    ];
    const outcomes = [];
    for (const attempt of attempts) outcomes.push(await within(db.transaction(async () => attempt())));
    expect(outcomes.map((o) => (typeof o === "object" && "error" in o ? o.error.slice(0, o.error.indexOf(" inside")) : o))).toEqual([
      "Refused db.exec()",
      "Refused db.transaction()",
      "Refused db.query()",
    ]);
    for (const outcome of outcomes) expect(outcome).toEqual({ error: expect.stringMatching(REFUSED) });
    expect(await within(db.query(`select count(*)::int as n from guarded`))).toEqual({ value: [{ n: 0 }] });
  });

  test("the error is a NestedInTransactionError the work may catch, carrying on through tx", async () => {
    const caught = await db.transaction(async (tx) => {
      const error = await db.query(`select 1`).catch((e: unknown) => e);
      await tx.query(`insert into guarded (n) values (3)`);
      return error;
    });
    expect(caught).toBeInstanceOf(NestedInTransactionError);
    expect(await db.query(`select n from guarded`)).toEqual([{ n: 3 }]);
    await db.query(`delete from guarded`);
  });

  test("queries through tx see the transaction's writes; a transaction after another, and two sent at once, both run", async () => {
    const seen = await within(
      db.transaction(async (tx) => {
        await tx.query(`insert into guarded (n) values (10)`);
        return tx.query<{ n: number }>(`select n from guarded`);
      }),
    );
    expect(seen).toEqual({ value: [{ n: 10 }] });
    expect(await within(db.transaction((tx) => tx.query<{ n: number }>(`select count(*)::int as n from guarded`)))).toEqual({ value: [{ n: 1 }] });
    // Siblings, not nested: the second waits for the one connection, then runs.
    const both = await within(Promise.all([11, 12].map((n) => db.transaction((tx) => tx.query(`insert into guarded (n) values ($1)`, [n])))));
    expect(both).toEqual({ value: [[], []] });
    expect(await db.query(`select n from guarded order by n`)).toEqual([{ n: 10 }, { n: 11 }, { n: 12 }]);
    await db.query(`delete from guarded`);
  });

  test("work started inside and not awaited that queries after the transaction ended runs (the mark is cleared at the end)", async () => {
    const ended = deferred();
    let later: Promise<{ n: number }[]> | undefined;
    await db.transaction(async (tx) => {
      await tx.query(`insert into guarded (n) values (20)`);
      // Fire-and-forget: not awaited by the work, queries through the database once the transaction is over.
      later = ended.promise.then(() => db.query<{ n: number }>(`select count(*)::int as n from guarded`));
    });
    ended.resolve();
    expect(await within(later!)).toEqual({ value: [{ n: 1 }] });
    await db.query(`delete from guarded`);
  });

  test("work started inside through outsideTransaction, not awaited, may query at once: it waits for the transaction, then runs", async () => {
    let early: Promise<{ n: number }[]> | undefined;
    const outcome = await within(
      db.transaction(async (tx) => {
        await tx.query(`insert into guarded (n) values (30)`);
        early = outsideTransaction(() => db.query<{ n: number }>(`select count(*)::int as n from guarded`));
        await Bun.sleep(50); // the transaction stays open a while after it was sent
        await tx.query(`insert into guarded (n) values (31)`);
        return "committed";
      }),
    );
    expect(outcome).toEqual({ value: "committed" });
    // One connection: it ran after the commit and saw both rows.
    expect(await within(early!)).toEqual({ value: [{ n: 2 }] });
    await db.query(`delete from guarded`);
  });

  test("a transaction that failed leaves no mark behind: the next query and transaction run", async () => {
    await expect(db.transaction(async () => Promise.reject(new Error("work failed")))).rejects.toThrow("work failed");
    expect(await within(db.transaction((tx) => tx.query(`select 1 as one`)))).toEqual({ value: [{ one: 1 }] });
    expect(await within(db.query(`select 2 as two`))).toEqual({ value: [{ two: 2 }] });
  });
});

await forEachBackend("transaction guard, record store with free connections", (backend) => {
  let db: SqlDatabase;
  withStore(backend, (opened) => {
    ({ db } = opened);
  });

  // The mistake a use case makes: the store's own repositories inside withTransaction. Refused though
  // connections are free (PostgreSQL's test pool has 4), so a test shows it, not only a full pool.
  test("a repository of the store used inside withTransaction is refused, not answered outside the transaction", async () => {
    const store = sqlRecordStore(db);
    const id = newId();
    const outcome = await within(
      store.withTransaction(async (tx) => {
        await tx.users.insert({ id, name: "Inside", email: `${id}@example.test`, role: "user", created_at: at() });
        return store.users.get(id);
      }),
    );
    expect(outcome).toEqual({ error: expect.stringMatching(REFUSED) });
    expect(await store.users.get(id)).toBeNull();
    const written = await within(
      store.withTransaction(async (tx) => {
        await tx.users.insert({ id, name: "Inside", email: `${id}@example.test`, role: "user", created_at: at() });
        return (await tx.users.get(id))?.name;
      }),
    );
    expect(written).toEqual({ value: "Inside" });
  });
});

describe("transaction guard, two databases", () => {
  test("a query on another database inside a transaction is not this one's business", async () => {
    const [first, second] = [await openMigratedMemoryPglite(), await openMigratedMemoryPglite()];
    try {
      const outcome = await within(first.transaction(async () => second.query<{ one: number }>(`select 1 as one`)));
      expect(outcome).toEqual({ value: [{ one: 1 }] });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
