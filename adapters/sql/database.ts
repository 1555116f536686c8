// One small interface over postgres.js and PGlite, so every query is written once.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import postgres from "postgres";

export type Row = Record<string, unknown>;

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
}

export interface SqlDatabase extends SqlExecutor {
  readonly backend: "pglite" | "postgres";
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  maxConnections?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): SqlDatabase {
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    connection: { application_name: "campaign-memory-service" },
  });
  const executorOf = (runner: postgres.Sql | postgres.TransactionSql): SqlExecutor => ({
    query: async <T>(text: string, params: readonly unknown[] = []) =>
      (await runner.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as T[],
    exec: async (text) => {
      await runner.unsafe(text);
    },
  });
  const top = executorOf(sql);
  return {
    backend: "postgres",
    // A single statement rolled back over a deadlock changed nothing, so it may simply run again.
    query: (text, params) => retryingConflicts(() => top.query(text, params)),
    exec: top.exec,
    transaction: async <T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}) => {
      const once = async () => (await sql.begin((tx) => work(executorOf(tx)))) as T;
      return options.retry === false ? once() : retryingConflicts(once);
    },
    close: () => sql.end({ timeout: 5 }),
  };
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

/** `dataDir` null keeps the database in memory (tests). */
export async function openPglite(dataDir: string | null): Promise<SqlDatabase> {
  // A small cache: the embedded database is for one machine, and WebAssembly memory never shrinks.
  const db = await PGlite.create(dataDir ?? undefined, { extensions: { pg_trgm }, postgresqlconf: ["shared_buffers = 16MB", "work_mem = 4MB", "maintenance_work_mem = 16MB"] });
  type PgliteRunner = Pick<PGlite, "query" | "exec">;
  // PGlite hands every message through fresh ArrayBuffers; the collector lets them pile up
  // (hundreds of MB after a bulk import), so a transaction that moved a lot asks for a collection.
  let movedBytes = 0;
  const executorOf = (runner: PgliteRunner): SqlExecutor => ({
    query: async <T>(text: string, params: readonly unknown[] = []) => {
      for (const param of params) if (typeof param === "string") movedBytes += param.length;
      const { rows } = await runner.query<T>(text, params as unknown[]);
      if (rows.length > 100) movedBytes += rows.length * approximateRowBytes(rows[0]);
      collectIfHeavy();
      return rows;
    },
    exec: async (text) => {
      await runner.exec(text);
    },
  });
  const collectIfHeavy = () => {
    if (movedBytes < COLLECT_AFTER_BYTES) return;
    movedBytes = 0;
    (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
  };
  return {
    backend: "pglite",
    ...executorOf(db),
    // One connection runs one transaction at a time: nothing to collide with, nothing to retry.
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => work(executorOf(tx))),
    close: () => db.close(),
  };
}

const COLLECT_AFTER_BYTES = 2_000_000;

const approximateRowBytes = (row: unknown): number =>
  Object.values((row ?? {}) as Record<string, unknown>).reduce<number>((sum, value) => sum + (typeof value === "string" ? value.length : 8), 0);
