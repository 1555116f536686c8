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
  const executorOf = (runner: PgliteRunner): SqlExecutor => ({
    query: async <T>(text: string, params: readonly unknown[] = []) =>
      (await runner.query<T>(text, params as unknown[])).rows,
    exec: async (text) => {
      await runner.exec(text);
    },
  });
  return {
    backend: "pglite",
    ...executorOf(db),
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => work(executorOf(tx))),
    close: () => db.close(),
  };
}
