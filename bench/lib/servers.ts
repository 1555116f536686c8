// Server processes on 127.0.0.1: the service (infra/main.ts) and the minimal handlers it is compared
// with. Each can be started again (same command, new port) if it dies during a run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, BUN, ROOT } from "./env.ts";
import { atCleanup } from "./lifecycle.ts";
import { call, freePort } from "./local-http.ts";
import { type Child, spawnChild, stopChild } from "./processes.ts";
import type { Seeded } from "./seed.ts";

/** The service's admin key for this run (CMS_ADMIN_KEY). */
export const ADMIN_KEY = `bench_admin_${crypto.randomUUID().replaceAll("-", "")}`;

export interface RunningServer {
  name: string;
  child: Child;
  url: string;
  settings: Record<string, string | number>;
  restarts: number;
  relaunch(): Promise<void>;
}

export const isRunning = (server: RunningServer) => server.child.proc.exitCode === null && server.child.proc.signalCode === null;

async function waitHealthy(child: Child, url: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited with ${child.proc.exitCode}: ${child.output()}`);
    try {
      if ((await call(`${url}/health`)).status === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer /health within 60 s: ${child.output()}`);
    await Bun.sleep(100);
  }
}

/** Starts `cmd` with PORT set to a free port and waits for `GET /health` to answer 200. */
export async function launch(
  name: string,
  cmd: string[],
  childEnv: Record<string, string>,
  settings: Record<string, string | number>,
  echo = false,
): Promise<RunningServer> {
  const start = async () => {
    const port = freePort();
    const child = spawnChild(name, cmd, { ...childEnv, PORT: String(port) }, { echo });
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(child, url);
    return { child, url };
  };
  const first = await start();
  const server: RunningServer = {
    name,
    ...first,
    settings,
    restarts: 0,
    async relaunch() {
      await stopChild(server.child);
      if (++server.restarts > 5) throw new Error(`${name} had to be restarted more than 5 times`);
      Object.assign(server, await start());
      console.log(`  (${name} restarted: pid ${server.child.proc.pid}, ${server.url})`);
    },
  };
  return server;
}

/** A temporary folder, removed at the end of the run. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  atCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface ServiceOptions {
  name: string;
  /** PostgreSQL, or null for embedded PGlite in `dataDir`. */
  databaseUrl: string | null;
  /** DATABASE_POOL_SIZE on PostgreSQL; the service's default when left out. */
  poolSize?: number;
  logLevel: string;
  /** Defaults to a fresh temporary folder. */
  dataDir?: string;
  profileDir?: string;
  bunFlags?: string[];
  /** Pass the service's output on to this process's (the default keeps it for error messages only). */
  echo?: boolean;
  /** More environment for the service (e.g. S3_* for the image benchmark). */
  env?: Record<string, string>;
}

/** The service, `bun infra/main.ts`, on 127.0.0.1 with the bench's admin key. */
export async function startService(options: ServiceOptions): Promise<RunningServer> {
  const dataDir = options.dataDir ?? tempDir("cms-bench-");
  const serviceEnv: Record<string, string> = {
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    CMS_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: options.logLevel,
    CMS_ENV: "bench",
    // The limiter runs (its cost is measured) but the load never reaches it: one key at thousands a second.
    RATE_LIMIT_PER_MINUTE: "1000000",
    RATE_LIMIT_BURST: "1000000",
    ...options.env,
  };
  const settings: Record<string, string | number> = {
    backend: options.databaseUrl ? "postgres" : "pglite",
    HOST: "127.0.0.1",
    LOG_LEVEL: options.logLevel,
    RATE_LIMIT_PER_MINUTE: 1000000,
  };
  if (options.databaseUrl) serviceEnv.DATABASE_URL = options.databaseUrl;
  if (options.databaseUrl && options.poolSize !== undefined) {
    serviceEnv.DATABASE_POOL_SIZE = String(options.poolSize);
    settings.DATABASE_POOL_SIZE = options.poolSize;
  }
  const flags = [...(options.bunFlags ?? [])];
  if (options.profileDir) {
    flags.push("--cpu-prof-md", `--cpu-prof-dir=${options.profileDir}`);
    settings.profile = "bun --cpu-prof-md";
  }
  return launch(options.name, [BUN, ...flags, join(ROOT, "infra", "main.ts")], serviceEnv, settings, options.echo);
}

/** Ceiling: bench/ceiling-bare.ts, a bare Bun.serve answering with a fixed body. */
export async function startBare(body: string): Promise<RunningServer> {
  const bodyFile = join(tempDir("cms-bench-body-"), "campaign.json");
  writeFileSync(bodyFile, body);
  return launch("ceiling-bare", [BUN, join(BENCH_DIR, "ceiling-bare.ts")], { BODY_FILE: bodyFile }, { handler: "Bun.serve, fixed body" });
}

/** A minimal Bun.serve handler on PostgreSQL: bench/ceiling-one-query.ts, or bench/variant-two-queries.ts. */
export async function startHandler(kind: "one-query" | "two-queries", databaseUrl: string, poolSize: number): Promise<RunningServer> {
  const file = kind === "one-query" ? "ceiling-one-query.ts" : "variant-two-queries.ts";
  const handler = kind === "one-query" ? "Bun.serve + one postgres.js query" : "Bun.serve + the service's two queries";
  return launch(`handler-${kind}`, [BUN, join(BENCH_DIR, file)], { DATABASE_URL: databaseUrl, POOL_SIZE: String(poolSize) }, { handler, POOL_SIZE: poolSize });
}
export const startOneQuery = (databaseUrl: string, poolSize: number) => startHandler("one-query", databaseUrl, poolSize);

/** A handler must answer the seeded read byte for byte like the service, and refuse what the service refuses. */
export async function checkSameAnswers(name: string, handler: RunningServer, data: Seeded) {
  const same = await call(`${handler.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  if (same.status !== 200 || same.text !== data.campaignBody)
    throw new Error(`${name} does not answer like the service: ${same.status} ${same.text} vs ${data.campaignBody}`);
  const bad = await call(`${handler.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": "cms_not_a_real_key_0000000000" } });
  const missing = await call(`${handler.url}/v1/campaigns/nope`, { headers: { "x-api-key": data.key } });
  if (bad.status !== 401 || missing.status !== 404) throw new Error(`${name}: bad key -> ${bad.status}, unknown id -> ${missing.status}`);
  console.log(`  ${name}: body byte-identical to the service's; a bad key gets 401, an unknown id 404`);
}
