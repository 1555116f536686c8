// Opening the configured database: PostgreSQL, or the embedded PGlite in DATA_DIR (taken with the
// data-folder lock, made from the prepared image when new). Kept apart from the composition root so
// `npm start` can open it while the rest of the service is still loading.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite, openPostgres, type SqlDatabase } from "../adapters/sql/database.ts";
import { applyMigrations, type Migration } from "../adapters/sql/migrate.ts";
import { needsDatabase, removeStaleUnpacks } from "../adapters/sql/pglite-image.ts";
import type { Logger } from "../ports/system.ts";
import type { Config } from "./config.ts";
import { acquireDataDir } from "./datalock.ts";
import { createDatabaseFolder, preparedImage } from "./pglite-image.ts";
import type { MigrationReport } from "./migrate-pglite.ts";
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
  const migrations = loadMigrations();
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
      } else {
        const pending = unrecorded(folder, migrations);
        if (pending.length) await migrateInChild(config.dataDir, pending, migrations.length, log);
      }
      db = await openPglite(folder);
    } catch (error) {
      release();
      throw error;
    }
  }
  try {
    // On PGlite what the child left (nothing, but for a folder the record misled): applied here.
    const applied = await applyMigrations(db, migrations);
    if (applied.length) log.info("migrations applied", { versions: applied });
    if (db.backend === "pglite") recordApplied(join(config.dataDir, "pglite"), migrations);
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

// Which migrations an embedded folder has, recorded beside its files after every open: read
// without opening the database, so a start with nothing to apply spawns nothing. Only a hint, never
// trusted for correctness: migrations are applied (or found applied) on every open all the same.
const RECORD = "cms-migrations-applied.txt";

/** This service's migrations the folder's record does not list (all of them without a record). */
export function unrecorded(folder: string, migrations: readonly Migration[]): string[] {
  let listed: Set<string>;
  try {
    listed = new Set(readFileSync(join(folder, RECORD), "utf8").split("\n"));
  } catch {
    listed = new Set();
  }
  return migrations.map((m) => m.version).filter((version) => !listed.has(version));
}

function recordApplied(folder: string, migrations: readonly Migration[]) {
  if (!unrecorded(folder, migrations).length) return;
  try {
    const partial = join(folder, `${RECORD}.${process.pid}.tmp`);
    writeFileSync(partial, migrations.map((m) => m.version).join("\n") + "\n");
    renameSync(partial, join(folder, RECORD));
  } catch {} // a hint: without it the next start checks in a child process
}

const MIGRATE_ENTRY = join(import.meta.dir, "migrate-pglite.ts");

/**
 * Applies the pending migrations of the folder this process holds in a child process (and the
 * planner statistics they need), so that PGlite's heap, grown by a backfill, leaves with it: a
 * second PGlite instance in this process, closed, returned its memory only now and then (issue 15,
 * docs/decisions.md). The child stops once this process is gone (it reads stdin to its end) and
 * holds a guard the data-folder lock checks, so nobody else opens the folder before it has exited.
 */
async function migrateInChild(dataDir: string, pending: string[], known: number, log: Logger): Promise<void> {
  const started = performance.now();
  // Said first: /health answers only once this is done, which a big backfill makes minutes.
  log.info("checking the database's migrations before serving", pending.length < known ? { pending } : { record: "none yet" });
  const child = Bun.spawn([process.execPath, MIGRATE_ENTRY, dataDir, `--holder=${process.pid}`], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const [code, out, errors] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  void child.stdin.end();
  if (code !== 0) throw new Error(`could not migrate the database: ${errors.trim().split("\n").at(-1) || `the migration process exited with ${code}`}`);
  const report = JSON.parse(out) as MigrationReport;
  const ms = Math.round(performance.now() - started);
  if (report.applied.length)
    log.info("migrations applied before serving", { versions: report.applied, ms, steps_ms: report.steps_ms, tables_vacuumed: report.vacuumed, tables_analyzed: report.analyzed });
  else log.info("no migrations to apply", { ms, steps_ms: report.steps_ms });
}

/**
 * An in-memory PGlite with every migration applied, loaded from the prepared image (tests, benches):
 * no initdb, no migrations to run.
 */
export async function openMigratedMemoryPglite(): Promise<SqlDatabase> {
  const { image } = await preparedImage({ scratchDir: tmpdir() });
  return openPglite(null, { image });
}
