// Opening the configured database: PostgreSQL, or the embedded PGlite in DATA_DIR (taken with the
// data-folder lock, made from the prepared image when new). Kept apart from the composition root so
// `npm start` can open it while the rest of the service is still loading.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite, openPostgres, type SqlDatabase } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { needsDatabase, removeStaleUnpacks } from "../adapters/sql/pglite-image.ts";
import type { Logger } from "../ports/system.ts";
import type { Config } from "./config.ts";
import { acquireDataDir } from "./datalock.ts";
import { createDatabaseFolder, preparedImage } from "./pglite-image.ts";
import { loadMigrations } from "./schema.ts";

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
      const folder = join(config.dataDir, "pglite");
      removeStaleUnpacks(folder); // we hold the folder: nobody else is unpacking
      if (needsDatabase(folder)) {
        // A new database is the prepared image unpacked, not initdb in this process (issue 15).
        const started = performance.now();
        const { built } = await createDatabaseFolder(folder, { scratchDir: config.dataDir });
        log.info("database created", { from: built ? "a newly built image" : "the prepared image", ms: Math.round(performance.now() - started) });
      }
      db = await openPglite(folder);
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

/**
 * An in-memory PGlite with every migration applied, loaded from the prepared image (tests, benches):
 * no initdb, no migrations to run.
 */
export async function openMigratedMemoryPglite(): Promise<SqlDatabase> {
  const { image } = await preparedImage({ scratchDir: tmpdir() });
  return openPglite(null, { image });
}
