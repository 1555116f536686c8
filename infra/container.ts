// Composition root: the only module that knows every adapter.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openPglite, openPostgres, type SqlDatabase } from "../adapters/sql/database.ts";
import { applyMigrations, type Migration } from "../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../adapters/sql/records.ts";
import { sqlRetriever } from "../adapters/sql/retrieval.ts";
import { apiKeyMinter, jsonLogger, systemClock, uuidV7 } from "../adapters/system/system.ts";
import { extractiveHandoutWriter } from "../adapters/ai/extractive.ts";
import { sharpCardRenderer } from "../adapters/imaging/cards.ts";
import type { Deps } from "../application/deps.ts";
import type { Logger } from "../ports/system.ts";
import type { Config } from "./config.ts";
import { acquireDataDir } from "./datalock.ts";

export const MIGRATIONS_DIR = join(import.meta.dir, "migrations");

export const loadMigrations = (dir = MIGRATIONS_DIR): Migration[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ""), sql: readFileSync(join(dir, name), "utf8") }));

export interface OpenedDatabase {
  db: SqlDatabase;
  /** Releases the data-folder lock (PGlite) after closing. */
  close(): Promise<void>;
}

/** Opens the configured database (taking the data folder when embedded) and brings its schema up to date. */
export async function openDatabase(config: Config, log: Logger, options: { lockPort?: number | null } = {}): Promise<OpenedDatabase> {
  let release = () => {};
  let db: SqlDatabase;
  if (config.databaseUrl) {
    db = openPostgres(config.databaseUrl, { maxConnections: config.databasePoolSize });
  } else {
    release = acquireDataDir(config.dataDir, options.lockPort ?? null);
    try {
      db = await openPglite(join(config.dataDir, "pglite"));
    } catch (error) {
      release();
      throw error;
    }
  }
  try {
    const applied = await applyMigrations(db, loadMigrations());
    if (applied.length) log.info("migrations applied", { versions: applied });
  } catch (error) {
    await db.close().catch(() => {});
    release();
    throw error;
  }
  return {
    db,
    close: async () => {
      await db.close();
      release();
    },
  };
}

/** `tasks.wake` does nothing until a worker is attached (the CLI runs none). */
export function buildDeps(db: SqlDatabase, log: Logger): Deps {
  return {
    records: sqlRecordStore(db),
    clock: systemClock,
    ids: uuidV7,
    keys: apiKeyMinter,
    log,
    tasks: { wake: () => {} },
    writer: extractiveHandoutWriter,
    cards: sharpCardRenderer,
    retriever: sqlRetriever(db),
  };
}

export const loggerFor = (config: Pick<Config, "logLevel">) => jsonLogger(config.logLevel);
