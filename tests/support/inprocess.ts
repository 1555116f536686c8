// The whole service in this process on an in-memory PGlite: for tests that need many cheap requests.
import { openPglite, type SqlDatabase } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { jsonLogger } from "../../adapters/system/system.ts";
import { ensureAdminKey } from "../../application/identity.ts";
import { parseConfig } from "../../infra/config.ts";
import { buildDeps, loadMigrations } from "../../infra/container.ts";
import { buildApp, serviceInfo } from "../../infra/service.ts";
import { randomAdminKey } from "./server.ts";

/** On an in-memory PGlite, or on `database` (already migrated; the caller closes it). */
export async function inProcessService(database?: SqlDatabase) {
  const db = database ?? (await openPglite(null));
  if (!database) await applyMigrations(db, loadMigrations());
  const logged: string[] = [];
  const deps = buildDeps(db, jsonLogger("debug", (line) => logged.push(line)));
  const adminKey = randomAdminKey();
  await ensureAdminKey(deps, adminKey);
  const info = serviceInfo(parseConfig({ PORT: "8000" }));
  const app = buildApp(deps, info);
  const request = (method: string, path: string, init: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { ...(init.key ? { "x-api-key": init.key } : {}), ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }),
    );
  return { app, db, deps, adminKey, info, logged, request, close: () => (database ? Promise.resolve() : db.close()) };
}
