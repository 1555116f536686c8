// One small interface over postgres.js and PGlite, so every query is written once.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { currentActor } from "../shared/actor.ts";

export type Row = Record<string, unknown>;

/** The feed's triggers read the acting user from this transaction-local setting (migration 0011). */
const SET_ACTOR = `select set_config('cms.actor_id', $1, true)`;
/** The start of a data-modifying part; the verbs alone also name columns (characters.merge) and row locks (for update). */
const DATA_MODIFYING = /\b(insert\s+into|delete\s+from|merge\s+into|update\s+[\w."]+(\s+(as\s+)?\w+)?\s+set)\b/i;
/**
 * A statement that may write: run in a transaction of its own when an actor is set, so the setting
 * reaches the triggers. A WITH statement writes only through a data-modifying part; most are reads
 * (every list search since the seventh session), and wrapping those cost three round trips (begin,
 * the setting, commit) a request for nothing (issue 15).
 */
const mayWrite = (text: string) => /^\s*(insert|update|delete|merge)\b/i.test(text) || (/^\s*with\b/i.test(text) && DATA_MODIFYING.test(text));

export interface SqlExecutor {
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Run `work` again (a few times, after a short random pause) when the database rolled it back
   * over a deadlock or serialization failure. `work` must then have no effects outside the
   * transaction; pass false for work that cannot run twice (it consumes a stream).
   */
  retry?: boolean;
  /** One consistent snapshot for every read (repeatable read, read only): an export. */
  snapshot?: boolean;
}

export interface SqlDatabase extends SqlExecutor {
  readonly backend: "pglite" | "postgres";
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Calls `onNotify` for every NOTIFY on `channel` (any session's, after its commit); answers how to stop. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  maxConnections?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): SqlDatabase {
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    // JIT off: a list page's estimate grows with the campaign (per-row journal checks over 500k
    // links) past jit_above_cost, and PostgreSQL then compiled the page on every call (links page
    // of 20: 63-490 ms of LLVM for < 20 ms of work). The service's statements are short; none gains.
    connection: { application_name: "campaign-memory-service", jit: "off" },
  });
  const executorOf = (runner: postgres.Sql | postgres.TransactionSql): SqlExecutor => ({
    query: async <T>(text: string, params: readonly unknown[] = []) =>
      (await runner.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as T[],
    exec: async (text) => {
      await runner.unsafe(text);
    },
  });
  // Never more statements in flight than connections: with every connection busy, postgres.js
  // pipelined the next statement onto one of them (round robin), behind whatever that one ran. A
  // POST sent while the worker's `vacuum ask_counts` waited 4.6 s to truncate waited those 4.6 s
  // too, though the other connections were free within milliseconds (issue 15: the black-box
  // seed's 26 POSTs over 1 s, the slowest 5.4 s). Here a statement or transaction waits for the
  // first connection free, in arrival order. (postgres.js's own `max_pipeline: 0` breaks sql.begin.)
  const slots = new Slots(options.maxConnections ?? 10);
  const raw = executorOf(sql);
  const pool = {}; // this database, for the guard
  const top: SqlExecutor = {
    query: (text, params) => guarded(pool, "db.query()", () => slots.run(() => raw.query(text, params))),
    exec: (text) => guarded(pool, "db.exec()", () => slots.run(() => raw.exec(text))),
  };
  const transaction = <T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}) =>
    guarded(pool, "db.transaction()", () => {
      const actor = currentActor();
      const once = () =>
        slots.run(async () => (await sql.begin(options.snapshot ? "isolation level repeatable read read only" : "", async (tx) => {
          // Sent ahead of the work's first query on the same connection: no round trip of its own.
          const setting = actor ? tx.unsafe(SET_ACTOR, [actor]).execute() : null;
          const result = await markedOpen(pool, () => work(executorOf(tx)));
          await setting;
          return result;
        })) as T);
      return options.retry === false ? once() : retryingConflicts(once);
    });
  return {
    backend: "postgres",
    // A single statement rolled back over a deadlock changed nothing, so it may simply run again.
    query: (text, params) =>
      guarded(pool, "db.query()", () =>
        currentActor() && mayWrite(text) ? transaction((tx) => tx.query(text, params)) : retryingConflicts(() => top.query(text, params)),
      ),
    exec: top.exec,
    transaction,
    async listen(channel, onNotify) {
      // postgres.js keeps one connection of its own for LISTEN and re-listens after a reconnect.
      const { unlisten } = await sql.listen(channel, () => onNotify());
      return unlisten;
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

// A query or transaction through the database itself, awaited by a transaction's work, waits for a
// second connection while the transaction holds one: on PostgreSQL a slot (with every slot so held,
// pool 5 under load, forever; and forever at once when it waits for a row lock of its own
// transaction), on PGlite its transaction lock (forever, every time). It also reads and writes
// outside the transaction. So it is refused at once, on both engines, with an error that says where
// to look (issue 15). The marker is per database and cleared when the work ends: work started inside
// and not awaited (fire-and-forget) that queries after the end is free; if it must start querying
// while the transaction is still open, start it through outsideTransaction().
interface OpenTransaction {
  database: object;
  open: boolean;
  outer: OpenTransaction | undefined;
}

const openTransaction = new AsyncLocalStorage<OpenTransaction>();

export class NestedInTransactionError extends Error {
  constructor(call: string) {
    super(
      `Refused ${call} inside db.transaction()'s work: use the transaction's executor (tx). Through the database it would wait ` +
        `for a second connection while the transaction holds one (a deadlock once every connection is so held) and run outside ` +
        `the transaction. Work the transaction does not wait for: start it with outsideTransaction().`,
    );
    this.name = "NestedInTransactionError";
  }
}

function guarded<T>(database: object, call: string, run: () => Promise<T>): Promise<T> {
  for (let marker = openTransaction.getStore(); marker; marker = marker.outer)
    if (marker.open && marker.database === database) return Promise.reject(new NestedInTransactionError(call));
  return run();
}

async function markedOpen<T>(database: object, work: () => Promise<T>): Promise<T> {
  const marker: OpenTransaction = { database, open: true, outer: openTransaction.getStore() };
  try {
    return await openTransaction.run(marker, work);
  } finally {
    marker.open = false;
  }
}

/** Runs `work` as if no transaction were open: for work a transaction starts and does not wait for. */
export const outsideTransaction = <T>(work: () => T): T => openTransaction.exit(work);

/** At most `size` holders at once; the others wait in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // Handed straight to the next in line (a newcomer never takes it first).
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** SQLSTATEs that mean "this transaction lost a race; running it again may well succeed". */
const RETRYABLE = new Set(["40001", "40P01"]); // serialization_failure, deadlock_detected
const MAX_ATTEMPTS = 6;

export const isRetryableConflict = (error: unknown): boolean =>
  RETRYABLE.has(String((error as { code?: unknown } | null)?.code ?? ""));

export async function retryingConflicts<T>(run: () => Promise<T>, attempts = MAX_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      // Jittered, growing pause so the transactions that collided do not collide again in step.
      await Bun.sleep(Math.random() * 5 * 2 ** attempt);
    }
  }
}

export interface PgliteOptions {
  /** A prepared image (adapters/sql/pglite-image.ts) to start an in-memory database from, instead of initdb. */
  image?: Uint8Array<ArrayBuffer>;
}

/** `dataDir` null keeps the database in memory (tests). */
export async function openPglite(dataDir: string | null, options: PgliteOptions = {}): Promise<SqlDatabase> {
  // A small cache: the embedded database is for one machine, and WebAssembly memory never shrinks.
  const db = await PGlite.create(dataDir ?? undefined, {
    extensions: { pg_trgm },
    postgresqlconf: ["shared_buffers = 16MB", "work_mem = 4MB", "maintenance_work_mem = 16MB"],
    ...(options.image ? { loadDataDir: new Blob([options.image], { type: "application/gzip" }) } : {}),
  });
  type PgliteRunner = Pick<PGlite, "query" | "exec">;
  // PGlite hands every message through fresh ArrayBuffers; the collector lets them pile up
  // (hundreds of MB after a bulk import), so a transaction that moved a lot asks for a collection.
  let movedBytes = 0;
  const executorOf = (runner: PgliteRunner): SqlExecutor => ({
    query: async <T>(text: string, params: readonly unknown[] = []) => {
      for (const param of params) if (typeof param === "string") movedBytes += param.length;
      const started = performance.now();
      const { rows } = await runner.query<T>(text, params as unknown[]);
      if (rows.length > 100) movedBytes += rows.length * approximateRowBytes(rows[0]);
      collectIfHeavy(performance.now() - started);
      return rows;
    },
    exec: async (text) => {
      await runner.exec(text);
    },
  });
  // A statement that writes a lot (a transcript's Ask index: 30-80 MB through the emulated file
  // system, thousands of calls) leaves ~20 MB of small garbage in the JS heap, which neither count
  // above sees (issue 11); so the process's own growth since the last collection asks for one too,
  // looked at after every few ms of database work (reading it costs ~30 µs).
  let collectedAt = process.memoryUsage.rss();
  let busyMs = 0;
  const collectIfHeavy = (ms: number) => {
    if (movedBytes < COLLECT_AFTER_BYTES) {
      if ((busyMs += ms) < CHECK_GROWTH_AFTER_MS) return;
      busyMs = 0;
      if (process.memoryUsage.rss() - collectedAt < COLLECT_AFTER_GROWTH) return;
    }
    movedBytes = 0;
    (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
    collectedAt = process.memoryUsage.rss();
  };
  // One connection runs one transaction at a time: nothing to collide with, nothing to retry.
  const transaction = <T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}) =>
    guarded(db, "db.transaction()", () =>
      db.transaction(async (tx) => {
        if (options.snapshot) await tx.query(`set transaction isolation level repeatable read, read only`);
        const actor = currentActor();
        if (actor) await tx.query(SET_ACTOR, [actor]);
        return markedOpen(db, () => work(executorOf(tx)));
      }),
    );
  const unguarded = executorOf(db);
  const top: SqlExecutor = {
    query: (text, params) => guarded(db, "db.query()", () => unguarded.query(text, params)),
    exec: (text) => guarded(db, "db.exec()", () => unguarded.exec(text)),
  };
  return {
    backend: "pglite",
    ...top,
    query: (text, params) =>
      guarded(db, "db.query()", () => (currentActor() && mayWrite(text) ? transaction((tx) => tx.query(text, params)) : top.query(text, params))),
    transaction,
    listen: (channel, onNotify) => db.listen(channel, () => onNotify()),
    close: () => db.close(),
  };
}

const COLLECT_AFTER_BYTES = 2_000_000;
/** Measured on the CRD3 import (bench/import.ts): 24 MB gave a 285 MB peak, 12 MB 271 MB, in the same time. */
const COLLECT_AFTER_GROWTH = 12 * 2 ** 20;
const CHECK_GROWTH_AFTER_MS = 5;

const approximateRowBytes = (row: unknown): number =>
  Object.values((row ?? {}) as Record<string, unknown>).reduce<number>((sum, value) => sum + (typeof value === "string" ? value.length : 8), 0);
