// The whole service in this process on an in-memory PGlite: for tests that need many cheap requests.
import { afterAll, beforeAll } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { jsonLogger } from "../../adapters/system/system.ts";
import { ensureAdminKey } from "../../application/identity.ts";
import { parseConfig } from "../../infra/config.ts";
import type { Deps } from "../../application/deps.ts";
import { buildDeps, openMigratedMemoryPglite, type DepsConfig } from "../../infra/container.ts";
import { buildApp, serviceInfo } from "../../infra/service.ts";
import type { Backend, Cleanup } from "./backends.ts";
import { randomAdminKey } from "./server.ts";

export type InProcessService = Awaited<ReturnType<typeof inProcessService>>;

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
  /** The raw response; with `must`, one that succeeded (2xx) or an error naming the call, the status and the body. */
  const request = async (method: string, path: string, init: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string>; must?: boolean } = {}) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { ...(init.key ? { "x-api-key": init.key } : {}), ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
        // `raw`: a body sent as it is (with its own content-type header), not as JSON.
        body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      }),
    );
    if (init.must && response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  /** A JSON call: the status and the parsed body (null when empty). */
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await request(method, path, { key, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  /** A call that must succeed (2xx): its parsed body, or an error naming the call, the status and the body. */
  const must = async (method: string, path: string, key: string, body?: unknown) => {
    const text = await (await request(method, path, { key, body, must: true })).text();
    return text ? JSON.parse(text) : null;
  };
  /** A POST that must succeed: its parsed body, or an error naming the path, status and body. */
  const post = (path: string, body: unknown, key: string) => must("POST", path, key, body);
  /** `call` and `must` speaking as one key (the admin's unless given), for suites that mostly use one caller. */
  const as = (key: string = adminKey) => ({
    call: (method: string, path: string, body?: unknown) => call(method, path, key, body),
    must: (method: string, path: string, body?: unknown) => must(method, path, key, body),
  });
  /** A user with a key of their own, made through the admin routes: `{ id, name, email, key, keyId }`. */
  const newUser = async (name: string, email: string) => {
    const user: { id: string; name: string; email: string } = await must("POST", "/internal/v1/users", adminKey, { name, email });
    const issued = await must("POST", `/internal/v1/users/${user.id}/keys`, adminKey, {});
    return { ...user, key: issued.key as string, keyId: issued.id as string };
  };
  /** A session's transcript imported as the admin (plain text: "Speaker: words" a line); anything but 201 is an error naming it. */
  const importTranscript = async (sessionId: string, text: string, format = "plain") => {
    const response = await request("POST", `/internal/v1/sessions/${sessionId}/transcript?format=${format}`, { key: adminKey, headers: { "content-type": "text/plain" }, raw: text });
    if (response.status !== 201) throw new Error(`transcript import into ${sessionId}: ${response.status} ${await response.text()}`);
  };
  return { app, db, deps, adminKey, info, logged, request, call, must, post, as, newUser, importTranscript, close: () => (database ? Promise.resolve() : db.close()) };
}

/**
 * For the enclosing describe block: the service in process on a fresh database of `backend`, handed
 * to `ready` (the set-up the tests share) before they run; closed with its database after the block,
 * once the cleanup `ready` returned (if any) has run.
 */
export function inProcessOn(
  backend: Pick<Backend, "open">,
  ready: (service: InProcessService) => Promise<Cleanup | void> | Cleanup | void,
  options?: Parameters<typeof inProcessService>[1],
): void {
  let opened: Awaited<ReturnType<Backend["open"]>> | undefined;
  let service: InProcessService | undefined;
  let cleanup: Cleanup | void;
  beforeAll(async () => {
    opened = await backend.open();
    service = await inProcessService(opened.db, options);
    cleanup = await ready(service);
  });
  afterAll(async () => {
    await cleanup?.();
    await service?.close();
    await opened?.close();
  });
}
