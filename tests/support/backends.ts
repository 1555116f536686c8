// The record backends a suite runs against. A backend that cannot run is announced, never silently dropped.
import { afterAll, beforeAll, describe } from "bun:test";
import { openPglite, openPostgres, type SqlDatabase } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { openMigratedMemoryPglite } from "../../infra/container.ts";
import type { RecordStore } from "../../ports/records.ts";
import { postgresUnavailableReason, scratchDatabase } from "./postgres.ts";
import { client, newUser, type Client } from "./client.ts";
import { startServer, type TestServer } from "./server.ts";

export interface Backend {
  name: "pglite" | "postgres";
  /** Null when it can run here; otherwise the reason it is skipped. */
  skipReason: string | null;
  /** A migrated, empty database of this backend. */
  open(): Promise<{ db: SqlDatabase; close(): Promise<void> }>;
  /** An empty database of this backend with no migration applied: for a migration's test on data written before it. */
  openUnmigrated(): Promise<{ db: SqlDatabase; close(): Promise<void> }>;
  /** A server process on a fresh database of this backend (with extra environment); stopping it drops that database. */
  startServer(env?: Record<string, string>): Promise<TestServer>;
}

/** A scratch PostgreSQL database (copied from the migrated template when `migrated`), dropped on close. */
async function openScratch(name: string, migrated: boolean): Promise<{ db: SqlDatabase; close(): Promise<void> }> {
  const scratch = await scratchDatabase(name, { migrated });
  const db = openPostgres(scratch.url, { maxConnections: 4 });
  return {
    db,
    close: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}

const announced = new Set<string>();
export function announceSkip(suite: string, backend: Pick<Backend, "name" | "skipReason">) {
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
        // From the prepared image: no initdb, no migrations to run (the same schema: tests/infra/pglite-image.test.ts).
        const db = await openMigratedMemoryPglite();
        return { db, close: () => db.close() };
      },
      async openUnmigrated() {
        const db = await openPglite(null);
        return { db, close: () => db.close() };
      },
      startServer: (env = {}) => startServer(env),
    },
    {
      name: "postgres",
      skipReason: postgresReason,
      open: () => openScratch("contract", true),
      openUnmigrated: () => openScratch("unmigrated", false),
      async startServer(env = {}) {
        const scratch = await scratchDatabase("server", { migrated: true });
        const server = await startServer({ ...env, DATABASE_URL: scratch.url }).catch(async (error) => {
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

/**
 * Declares `body` as a describe block `${title} on <backend>` once per record backend; a backend
 * that cannot run here is announced and its block skipped.
 */
export async function forEachBackend(title: string, body: (backend: Backend) => void): Promise<void> {
  for (const backend of await recordBackends()) {
    if (backend.skipReason) announceSkip(title, backend);
    describe.skipIf(Boolean(backend.skipReason))(`${title} on ${backend.name}`, () => body(backend));
  }
}

/** A suite's database: migrated and empty when opened, with the record store over it. */
export interface OpenedStore {
  db: SqlDatabase;
  store: RecordStore;
}

/**
 * For the enclosing describe block: a migrated, empty database of `backend` and its record store,
 * handed to `ready` before the tests run (to keep them, and write what the tests share); closed
 * after the block.
 */
export function withStore(backend: Pick<Backend, "open">, ready: (opened: OpenedStore) => Promise<void> | void): void {
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await backend.open();
    close = opened.close;
    await ready({ db: opened.db, store: sqlRecordStore(opened.db) });
  });
  afterAll(async () => close?.());
}

export type User = Awaited<ReturnType<typeof newUser>>;

export interface ServerWithUsers<Name extends string> {
  server: TestServer;
  /** The admin key's client. */
  admin: Client;
  /** A user with a key per name asked for (made in that order). */
  users: Record<Name, User>;
}

/** A server on the embedded database (the default), for suites that run on it alone. */
export const EMBEDDED: Pick<Backend, "startServer"> = { startServer: () => startServer() };

/** What a fixture's `ready` may return: work to undo before the server stops (closing a client). */
export type Cleanup = () => Promise<void> | void;

/**
 * For the enclosing describe block: a server on `backend` with users of these names (the first is
 * usually the game master), handed to `ready` before the tests run; stopped after the block, once
 * the cleanup `ready` returned (if any) has run.
 */
export function serverWithUsers<Name extends string>(
  backend: Pick<Backend, "startServer">,
  names: readonly Name[],
  ready: (fixture: ServerWithUsers<Name>) => Promise<Cleanup | void> | Cleanup | void,
): void {
  let server: TestServer | undefined;
  let cleanup: Cleanup | void;
  beforeAll(async () => {
    server = await backend.startServer();
    const users = {} as Record<Name, User>;
    for (const name of names) users[name] = await newUser(server.url, server.adminKey, name);
    cleanup = await ready({ server, admin: client(server.url, server.adminKey), users });
  });
  afterAll(async () => {
    await cleanup?.();
    await server?.stop();
  });
}
