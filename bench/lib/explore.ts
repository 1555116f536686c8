// Extra PostgreSQL runs after the main rounds, each on fresh processes, GET /v1/campaigns/{id} at
// the highest connection count: pool sizes (BENCH_EXPLORE), log level, the two-queries variant, and
// a run under the CPU profiler (BENCH_PROFILE).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR } from "./env.ts";
import { measure, readRoute, type RunSettings } from "./measure.ts";
import { stopChild } from "./processes.ts";
import type { Seeded } from "./seed.ts";
import { checkSameAnswers, type RunningServer, startHandler, startOneQuery, startService } from "./servers.ts";

export interface PostgresRuns {
  databaseUrl: string;
  data: Seeded;
  poolSize: number;
  logLevel: string;
  connections: number;
  run: RunSettings;
}

export const measureRead = (ctx: PostgresRuns, server: RunningServer, scenario: string, target: string) =>
  measure({ scenario, target, backend: "postgres", server, ...readRoute(ctx.data), connections: ctx.connections, run: ctx.run });

/** Starts a server, measures it once, stops it. */
export async function measureFresh(ctx: PostgresRuns, start: () => Promise<RunningServer>, scenario: string, target: string, check?: (server: RunningServer) => Promise<void>) {
  const server = await start();
  await check?.(server);
  await measureRead(ctx, server, scenario, target);
  await stopChild(server.child);
}

/** Per round: the service and the one-query ceiling at each pool size, the two-queries variant and the service with LOG_LEVEL=silent. */
export async function explorePoolSizes(ctx: PostgresRuns, poolSizes: number[], rounds: number) {
  const service = (name: string, poolSize: number, logLevel: string) => () => startService({ name, databaseUrl: ctx.databaseUrl, poolSize, logLevel });
  for (let round = 1; round <= rounds; round++) {
    for (const pool of poolSizes) {
      await measureFresh(ctx, service(`service-postgres-pool${pool}`, pool, ctx.logLevel), `service postgres GET /v1/campaigns/{id} pool=${pool}`, "service");
      await measureFresh(ctx, () => startOneQuery(ctx.databaseUrl, pool), `ceiling one-query postgres pool=${pool}`, "ceiling-one-query");
    }
    if (!poolSizes.length) continue;
    const check = round === 1 ? (server: RunningServer) => checkSameAnswers("two-queries variant", server, ctx.data) : undefined;
    await measureFresh(ctx, () => startHandler("two-queries", ctx.databaseUrl, ctx.poolSize), `variant two-queries postgres pool=${ctx.poolSize}`, "variant-two-queries", check);
    await measureFresh(ctx, service("service-postgres-silent", ctx.poolSize, "silent"), "service postgres GET /v1/campaigns/{id} LOG_LEVEL=silent", "service");
  }
}

/** One run of the service under `bun --cpu-prof-md`; the profile goes to bench/results/profile/. */
export async function profileService(ctx: PostgresRuns) {
  const profileDir = join(RESULTS_DIR, "profile");
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  const start = () => startService({ name: "service-postgres-profiled", databaseUrl: ctx.databaseUrl, poolSize: ctx.poolSize, logLevel: ctx.logLevel, profileDir });
  await measureFresh(ctx, start, "service postgres GET /v1/campaigns/{id} (under cpu-prof)", "service");
  console.log(`  CPU profile written to ${profileDir}: ${readdirSync(profileDir).join(", ")}`);
}
