// The whole service in this process on an in-memory PGlite: for tests that need many cheap requests.
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { jsonLogger } from "../../adapters/system/system.ts";
import { ensureAdminKey } from "../../application/identity.ts";
import { parseConfig } from "../../infra/config.ts";
import type { Deps } from "../../application/deps.ts";
import { buildDeps, openMigratedMemoryPglite, type DepsConfig } from "../../infra/container.ts";
import { buildApp, serviceInfo } from "../../infra/service.ts";
import { randomAdminKey } from "./server.ts";

/** On an in-memory PGlite, or on `database` (already migrated; the caller closes it). */
export async function inProcessService(database?: SqlDatabase, options: { config?: DepsConfig; deps?: (built: Deps) => Partial<Deps> } = {}) {
  const db = database ?? (await openMigratedMemoryPglite());
  const logged: string[] = [];
  const built = buildDeps(db, jsonLogger("debug", (line) => logged.push(line)), undefined, options.config);
  // A test may replace parts (a retriever with a chosen vector search) before the app is built.
  const deps: Deps = { ...built, ...options.deps?.(built) };
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
  /** A JSON call: the status and the parsed body (null when empty). */
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await request(method, path, { key, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  /** A POST that must succeed: its parsed body, or an error naming the path, status and body. */
  const post = async (path: string, body: unknown, key: string) => {
    const reply = await call("POST", path, key, body);
    if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  return { app, db, deps, adminKey, info, logged, request, call, post, close: () => (database ? Promise.resolve() : db.close()) };
}
