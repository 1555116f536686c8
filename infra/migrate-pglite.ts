// `bun infra/migrate-pglite.ts DATA_DIR --holder=PID`: brings an embedded database's schema up to
// date for the server (PID) that holds DATA_DIR, in a process of its own, with the planner
// statistics and visibility map of what the migrations wrote (adapters/sql/statistics.ts), so the
// first requests are planned well. PGlite's WebAssembly heap grows with a big migration and never
// shrinks; here it leaves with the process (issue 15). Run by infra/database.ts, never by hand: the
// holder keeps the folder's lock meanwhile, and this process gives up when the holder is gone.
// Prints {applied, vacuumed, analyzed} as JSON on stdout; an error's message on stderr, exit 1.
import { join } from "node:path";
import { openPglite } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { statistics } from "../adapters/sql/statistics.ts";
import { holdMigrationGuard } from "./datalock.ts";
import { loadMigrations } from "./schema.ts";

export interface MigrationReport {
  applied: string[];
  vacuumed: string[];
  analyzed: string[];
  /** Time of each step: open, migrations, statistics (when any was applied), close (a checkpoint). */
  steps_ms: Record<string, number>;
}

if (import.meta.main) {
  const [dataDir] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
  const holder = Number(process.argv.find((arg) => arg.startsWith("--holder="))?.slice(9));
  try {
    if (!dataDir || !Number.isInteger(holder)) throw new Error("usage: bun infra/migrate-pglite.ts DATA_DIR --holder=PID");
    // Taken before the database is opened and held until exit: see holdMigrationGuard.
    holdMigrationGuard(dataDir, holder);
    // The holder's end of stdin closes when it exits, however it ends: stop too, at the next turn
    // of the event loop (PGlite runs a statement without yielding, so after the one running; an
    // interrupted migration is a transaction never committed). Not a keep-alive: exit ends this.
    void (async () => {
      const reader = Bun.stdin.stream().getReader();
      while (!(await reader.read().catch(() => ({ done: true }))).done);
      process.exit(2);
    })();
    let at = performance.now();
    const lap = () => Math.round(-at + (at = performance.now()));
    const report: MigrationReport = { applied: [], vacuumed: [], analyzed: [], steps_ms: {} };
    const db = await openPglite(join(dataDir, "pglite"));
    report.steps_ms.open = lap();
    try {
      report.applied = await applyMigrations(db, loadMigrations());
      report.steps_ms.migrations = lap();
      if (report.applied.length) {
        const planner = statistics(db);
        report.vacuumed = await planner.refreshVisibility();
        report.analyzed = await planner.refresh();
        report.steps_ms.statistics = lap();
      }
    } finally {
      await db.close();
      report.steps_ms.close = lap();
    }
    await Bun.write(Bun.stdout, JSON.stringify(report));
    process.exit(0);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
