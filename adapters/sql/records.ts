// The record ports on SQL: one query set for PGlite and PostgreSQL. Each kind's repositories are in its
// own file, which registers them (`export const repositories = {…} satisfies SqlRepositories`); this file
// finds those files by listing its folder and composes the store, so a new kind edits nothing here.
import { readdirSync } from "node:fs";
import type { RecordStore, Repositories } from "../../ports/records.ts";
import type { SqlDatabase, SqlExecutor } from "./database.ts";
import { migrationStatus } from "./migrate.ts";
import { portability } from "./portability.ts";

/** What one SQL file registers: some of the store's repositories, each made on a connection or a transaction. */
export type SqlRepositories = { [Name in keyof Repositories]?: (db: SqlExecutor) => Repositories[Name] };

/**
 * Every `repositories` export of the files beside this one. Read once at start-up; the service runs
 * from its source files (`bun infra/main.ts`), never from a bundle, so the folder is there to list.
 */
const registered = new Map<string, (db: SqlExecutor) => unknown>();
for (const file of readdirSync(import.meta.dir).filter((name) => name.endsWith(".ts") && name !== "records.ts").sort()) {
  const module: { repositories?: Record<string, (db: SqlExecutor) => unknown> } = await import(`./${file}`);
  for (const [name, make] of Object.entries(module.repositories ?? {})) {
    if (registered.has(name)) throw new Error(`Two SQL files register the repository "${name}" (one is ${file})`);
    registered.set(name, make);
  }
}

/** The names registered, for the registration test (which checks them against the port's `Repositories`). */
export const registeredRepositories = (): string[] => [...registered.keys()].sort();

// The one cast of the composition: the registration test proves every name of `Repositories` is registered.
const repositoriesOn = (db: SqlExecutor): Repositories =>
  Object.fromEntries([...registered].map(([name, make]) => [name, make(db)])) as unknown as Repositories;

/** Carries a use case's failed Result out of the transaction, which the throw rolls back. */
class RolledBack extends Error {
  constructor(readonly result: unknown) {
    super("rolled back: the use case failed");
  }
}

const isFailedResult = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false && "error" in value;

export function sqlRecordStore(db: SqlDatabase): RecordStore {
  return {
    backend: db.backend,
    ...repositoriesOn(db),
    portable: portability(db),
    withTransaction: async (work, options) => {
      try {
        return await db.transaction(async (tx) => {
          const result = await work(repositoriesOn(tx));
          if (isFailedResult(result)) throw new RolledBack(result);
          return result;
        }, options);
      } catch (error) {
        if (error instanceof RolledBack) return error.result as Awaited<ReturnType<typeof work>>;
        throw error;
      }
    },
    async health() {
      const started = performance.now();
      const migrations = await migrationStatus(db);
      return { backend: db.backend, latency_ms: Math.round((performance.now() - started) * 100) / 100, migrations };
    },
    close: () => db.close(),
  };
}
