// The record backends a suite runs against. A backend that cannot run is announced, never silently dropped.
import { openPglite, openPostgres, type SqlDatabase } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { loadMigrations } from "../../infra/container.ts";
import { postgresUnavailableReason, scratchDatabase } from "./postgres.ts";
import { startServer, type TestServer } from "./server.ts";

export interface Backend {
  name: "pglite" | "postgres";
  /** Null when it can run here; otherwise the reason it is skipped. */
  skipReason: string | null;
  /** A migrated, empty database of this backend. */
  open(): Promise<{ db: SqlDatabase; close(): Promise<void> }>;
  /** A server process on a fresh database of this backend; stopping it drops that database. */
  startServer(): Promise<TestServer>;
}

const announced = new Set<string>();
export function announceSkip(suite: string, backend: Backend) {
  const line = `SKIPPED BACKEND: ${suite} on ${backend.name}: ${backend.skipReason}`;
  if (announced.has(line)) return;
  announced.add(line);
  console.warn(`\n*** ${line} ***\n`);
}

export async function recordBackends(): Promise<Backend[]> {
  const postgresReason = await postgresUnavailableReason();
  return [
    {
      name: "pglite",
      skipReason: null,
      async open() {
        const db = await openPglite(null);
        await applyMigrations(db, loadMigrations());
        return { db, close: () => db.close() };
      },
      startServer: () => startServer(),
    },
    {
      name: "postgres",
      skipReason: postgresReason,
      async open() {
        const scratch = await scratchDatabase("contract");
        const db = openPostgres(scratch.url, { maxConnections: 4 });
        await applyMigrations(db, loadMigrations());
        return {
          db,
          close: async () => {
            await db.close();
            await scratch.drop();
          },
        };
      },
      async startServer() {
        const scratch = await scratchDatabase("server");
        const server = await startServer({ DATABASE_URL: scratch.url }).catch(async (error) => {
          await scratch.drop();
          throw error;
        });
        return {
          ...server,
          stop: async () => {
            await server.stop();
            await scratch.drop();
          },
        };
      },
    },
  ];
}
