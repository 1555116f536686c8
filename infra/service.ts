import { buildHttpApp } from "../adapters/http/app.ts";
import { DEFAULT_BODY_TIMEOUTS, SERVER_BODY_CAP } from "../adapters/http/body.ts";
import { oauthRoutes } from "../adapters/http/oauth.ts";
import { RateLimiter } from "../adapters/http/ratelimit.ts";
import { settingsFor } from "../application/oauth.ts";
import { mcpEndpoint } from "../adapters/mcp/server.ts";
import { OPERATIONS } from "../adapters/operations/index.ts";
import { acceptManagedImageUrls } from "../adapters/operations/common.ts";
import { LocalBlobStore, MEDIA_PATH } from "../adapters/blobs/local.ts";
import type { ServiceInfo } from "../adapters/operations/operation.ts";
import { ensureAdminKey } from "../application/identity.ts";
import type { Deps } from "../application/deps.ts";
import type { Config } from "./config.ts";
import { buildDeps, imageServices, loggerFor, openDatabase, type OpenedDatabase } from "./container.ts";
import { startWebhookDispatcher, startWorker } from "./worker.ts";
import packageJson from "../package.json" with { type: "json" };

export const serviceInfo = (config: Config): ServiceInfo => ({
  name: "campaign-memory-service",
  version: packageJson.version,
  environment: config.environment,
  port: config.port,
  publicBaseUrl: config.publicBaseUrl,
});

export function buildApp(deps: Deps, info: ServiceInfo, options: { corsOrigins?: Config["corsOrigins"]; rateLimiter?: RateLimiter } = {}) {
  const store = deps.images.store;
  acceptManagedImageUrls((url) => store.keyOfUrl(url) !== null);
  // The local store's signed PUT and public GET are served here; an S3 bucket serves its own.
  const byteRoutes = store instanceof LocalBlobStore ? [{ prefix: MEDIA_PATH, methods: ["GET", "HEAD", "PUT"] as const, handle: (request: Request) => store.handle(request) }] : [];
  const routes = oauthRoutes({ deps, settings: settingsFor(info.publicBaseUrl), bodyTimeouts: DEFAULT_BODY_TIMEOUTS });
  return buildHttpApp({
    deps,
    info,
    operations: OPERATIONS,
    mcp: mcpEndpoint({ deps, info, operations: OPERATIONS }),
    cors: { origins: options.corsOrigins ?? "*" },
    routes,
    rateLimiter: options.rateLimiter,
    byteRoutes,
  });
}

export interface RunningService {
  url: string;
  deps: Deps;
  stop(): Promise<void>;
}

/** `opened`: the database, when the caller opened it already (main.ts, while this module loaded). */
export async function startService(config: Config, opened?: OpenedDatabase): Promise<RunningService> {
  const log = loggerFor(config);
  const database = opened ?? (await openDatabase(config, log, { lockPort: config.port }));
  const deps = buildDeps(database.db, log, imageServices(config), config);
  try {
    if (config.adminKey) await ensureAdminKey(deps, config.adminKey);
    const worker = startWorker(deps, { changeRetentionDays: config.changeRetentionDays, imageSweepMs: config.images.sweepSeconds * 1000 });
    deps.tasks.wake = worker.wake;
    const dispatcher = startWebhookDispatcher(deps);
    // Woken at the commit of a change a webhook waits for (migration 0014), not only by its poll.
    const unlisten = await database.db.listen("cms_webhooks", dispatcher.wake);
    const rateLimiter = new RateLimiter(config.rateLimits, deps.records.rateLimits, log);
    rateLimiter.start();
    const app = buildApp(deps, serviceInfo(config), { corsOrigins: config.corsOrigins, rateLimiter });
    app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: SERVER_BODY_CAP });
    const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`;
    log.info("listening", { url, backend: database.db.backend, public_base_url: config.publicBaseUrl });
    if (!config.adminKey && (await deps.records.users.count()) === 0)
      log.info("no users yet: stop the server and run `npx bun run cms users create --name NAME --email EMAIL`, then `npx bun run cms keys issue --user USER_ID`; or restart with CMS_ADMIN_KEY set and use the /internal/v1 routes");
    return {
      url,
      deps,
      stop: async () => {
        await app.stop();
        await rateLimiter.stop();
        await worker.stop();
        await unlisten();
        await dispatcher.stop();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
