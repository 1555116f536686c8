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

export interface SqlDatabase extends SqlExecutor {
  readonly backend: "pglite" | "postgres";
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
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
  return {
    backend: "postgres",
    ...executorOf(sql),
    transaction: async <T>(work: (tx: SqlExecutor) => Promise<T>) =>
      (await sql.begin((tx) => work(executorOf(tx)))) as T,
    close: () => sql.end({ timeout: 5 }),
  };
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
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => work(executorOf(tx))),
    close: () => db.close(),
  };
}

const COLLECT_AFTER_BYTES = 2_000_000;

const approximateRowBytes = (row: unknown): number =>
  Object.values((row ?? {}) as Record<string, unknown>).reduce<number>((sum, value) => sum + (typeof value === "string" ? value.length : 8), 0);
