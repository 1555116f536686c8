// HTTP load benchmark: `bun bench/http.ts` (npm run bench). See docs/benchmarks.md.
//
// Starts real server processes (the service on PGlite and on PostgreSQL, and two ceilings), seeds
// them through the HTTP API, drives them with autocannon running on Node in its own process, and
// prints/writes requests/s and latency percentiles. Every target is 127.0.0.1; every load run is
// bounded in time; every child process is stopped at the end, on error too, and the scratch
// PostgreSQL database (cms_bench_*) is dropped. The machinery is in bench/lib/; this file is the
// list of scenarios.
//
// Settings: the BENCH_* environment variables of SETTINGS below (docs/benchmarks.md has the table).
import { ageingCheck } from "./lib/ageing.ts";
import { countDatabaseAsOurs } from "./lib/cpu.ts";
import { assertLocalPostgres, env, intEnv, intList } from "./lib/env.ts";
import { explorePoolSizes, type PostgresRuns, profileService } from "./lib/explore.ts";
import { runBench } from "./lib/lifecycle.ts";
import { listRoute, measure, type MeasureOptions, readRoute } from "./lib/measure.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { stopAll } from "./lib/processes.ts";
import { describeHost, recordHttpRun } from "./lib/report.ts";
import { checkRevocation } from "./lib/revocation.ts";
import { type Seeded, seedCampaigns } from "./lib/seed.ts";
import { checkSameAnswers, isRunning, type RunningServer, startBare, startOneQuery, startService } from "./lib/servers.ts";

const SETTINGS = {
  duration: intEnv("BENCH_DURATION", 10, 1, 120), // measured seconds per scenario
  warmup: intEnv("BENCH_WARMUP", 2, 0, 60), // seconds before each measurement (same connections, discarded)
  connections: intList("BENCH_CONNECTIONS", "16,64", 1, 1024),
  // DATABASE_POOL_SIZE of the service and POOL_SIZE of the one-query ceiling (5 was the best of
  // 5/10/20/40 on this 2-core machine; see docs/benchmarks.md)
  poolSize: intEnv("BENCH_POOL_SIZE", 5, 1, 90),
  logLevel: env("BENCH_LOG_LEVEL", "warn"), // LOG_LEVEL of the service in the main scenarios
  campaigns: intEnv("BENCH_CAMPAIGNS", 50, 0, 1000), // created for the list, besides the one that is read
  backends: env("BENCH_BACKENDS", "pglite,postgres").split(",").map((s) => s.trim()).filter(Boolean),
  postgresUrl: env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test"), // where cms_bench_* is created
  // e.g. "5,10,20,40": extra PostgreSQL runs of GET /v1/campaigns/{id} at the highest connection
  // count, each round: the service and the one-query ceiling at these pool sizes, the service with
  // LOG_LEVEL=silent, and bench/variant-two-queries.ts (the service's former two statements, no framework)
  explore: intList("BENCH_EXPLORE", "", 1, 90),
  // "1": one extra run of the service (PostgreSQL) under `bun --cpu-prof-md`, profile written to bench/results/profile/
  profile: env("BENCH_PROFILE", "") === "1",
  timeLimit: intEnv("BENCH_TIME_LIMIT", 3600, 30, 7200), // seconds after which everything is stopped and the run fails
  // before each run, wait up to this many seconds for other processes on the machine to go quiet (< 0.05 core for 2 s)
  quietWait: intEnv("BENCH_QUIET_WAIT", 180, 0, 1800),
  // a run during which other processes used > 0.1 core is repeated, up to this many runs in all; the last is kept and flagged "disturbed"
  attempts: intEnv("BENCH_ATTEMPTS", 3, 1, 10),
  // rounds; each runs every scenario once, in turn; medians are reported (single rounds drift by ±20 % here)
  repeat: intEnv("BENCH_REPEAT", 5, 1, 20),
  // e.g. "6": ageing check on PostgreSQL: a fresh service and a fresh one-query ceiling, GET /v1/campaigns/{id}
  // at the highest connection count, this many runs each, alternating; then one run of another fresh service
  soak: intEnv("BENCH_SOAK", 0, 0, 50),
};
const MAX_CONNECTIONS = Math.max(...SETTINGS.connections);
for (const backend of SETTINGS.backends)
  if (backend !== "pglite" && backend !== "postgres") throw new Error(`BENCH_BACKENDS: unknown backend ${backend}`);
assertLocalPostgres("BENCH_POSTGRES_URL", SETTINGS.postgresUrl);
const RUN = { duration: SETTINGS.duration, warmup: SETTINGS.warmup, attempts: SETTINGS.attempts, quietWait: SETTINGS.quietWait };

// Every server is started and seeded first; they idle while another one is measured, so the rounds
// can alternate between them and slow drifts of the machine hit all scenarios alike. Within a round
// the service and the one-query ceiling run back to back at each connection count (orders 2i and
// 2i+1), so their ratio is taken from neighbouring runs.
const scenarios: { order: number; options: Omit<MeasureOptions, "run"> }[] = [];
const add = (order: number, options: Omit<MeasureOptions, "run">) => scenarios.push({ order, options });
const service = (backend: "pglite" | "postgres", server: RunningServer, data: Seeded) =>
  SETTINGS.connections.forEach((connections, i) => {
    const base = { target: "service", backend, server, connections };
    add((backend === "pglite" ? 0 : 100) + 2 * i, { ...base, scenario: `service ${backend} GET /v1/campaigns/{id}`, ...readRoute(data) });
    add((backend === "pglite" ? 0 : 100) + 50 + i, { ...base, scenario: `service ${backend} GET /v1/campaigns`, ...listRoute(data) });
  });

async function main() {
  const startedAt = new Date();
  const wantsPostgres = SETTINGS.backends.includes("postgres");
  console.log("Campaign Memory Service — HTTP load benchmark");
  const host = await describeHost(wantsPostgres ? SETTINGS.postgresUrl : null);
  console.log(
    `  load: autocannon on node, separate process; ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s measured; connections ${SETTINGS.connections.join(", ")}; pipelining 1; header x-api-key; ${SETTINGS.repeat} round(s), median kept`,
  );
  console.log(`  service: HOST=127.0.0.1 LOG_LEVEL=${SETTINGS.logLevel}; on PostgreSQL DATABASE_POOL_SIZE=${SETTINGS.poolSize}; one-query ceiling POOL_SIZE=${SETTINGS.poolSize}`);
  console.log(`  seed: 1 user, 1 key, 1 campaign to read + ${SETTINGS.campaigns} more (the list reads the default page of 20)\n`);

  let pglite: { server: RunningServer; data: Seeded } | null = null;
  if (SETTINGS.backends.includes("pglite")) {
    console.log("[setup] service on embedded PGlite");
    const server = await startService({ name: "service-pglite", databaseUrl: null, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    pglite = { server, data: await seedCampaigns(server.url, SETTINGS.campaigns) };
    service("pglite", server, pglite.data);
  }

  let pg: (PostgresRuns & { server: RunningServer; oneQuery: RunningServer }) | null = null;
  if (wantsPostgres) {
    const scratch = await createScratchDatabase(SETTINGS.postgresUrl);
    countDatabaseAsOurs(scratch.name);
    console.log(`[setup] service on PostgreSQL, database ${scratch.name}, DATABASE_POOL_SIZE=${SETTINGS.poolSize}`);
    const server = await startService({ name: "service-postgres", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    const data = await seedCampaigns(server.url, SETTINGS.campaigns);
    service("postgres", server, data);
    console.log(`[setup] one-query ceiling on the same database, POOL_SIZE=${SETTINGS.poolSize}`);
    const oneQuery = await startOneQuery(scratch.url, SETTINGS.poolSize);
    await checkSameAnswers("one-query ceiling", oneQuery, data);
    SETTINGS.connections.forEach((connections, i) =>
      add(100 + 2 * i + 1, { scenario: "ceiling one-query postgres", target: "ceiling-one-query", backend: "postgres", server: oneQuery, ...readRoute(data), connections }),
    );
    pg = { server, oneQuery, databaseUrl: scratch.url, data, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel, connections: MAX_CONNECTIONS, run: RUN };
  }

  const data = pg?.data ?? pglite?.data;
  if (!data) throw new Error("no backend ran, so there is no body to serve");
  console.log("[setup] bare Bun.serve ceiling returning the captured campaign JSON");
  const bare = await startBare(data.campaignBody);
  SETTINGS.connections.forEach((connections, i) =>
    add(200 + i, { scenario: "ceiling bare Bun.serve", target: "ceiling-bare", backend: "none", server: bare, ...readRoute(data, null), connections }),
  );
  scenarios.sort((a, b) => a.order - b.order);

  for (let round = 1; round <= SETTINGS.repeat; round++) {
    console.log(`\n[round ${round}/${SETTINGS.repeat}]`);
    for (const { options } of scenarios) await measure({ ...options, run: RUN });
  }
  if (pg && (SETTINGS.explore.length || SETTINGS.profile)) {
    console.log(`\n[explore] PostgreSQL, GET /v1/campaigns/{id} at ${MAX_CONNECTIONS} connections`);
    await explorePoolSizes(pg, SETTINGS.explore, SETTINGS.repeat);
    if (SETTINGS.profile) await profileService(pg);
  }
  if (pg && SETTINGS.soak) await ageingCheck(pg, SETTINGS.soak);

  console.log("\n[revocation] revoke the key with the admin key, then use it once more");
  for (const server of [pglite?.server, pg?.server, pg?.oneQuery]) if (server && !isRunning(server)) await server.relaunch();
  if (pglite) await checkRevocation("pglite", pglite.server.url, pglite.data);
  if (pg) await checkRevocation("postgres", pg.server.url, pg.data, [{ name: "one-query ceiling", url: pg.oneQuery.url }]);
  await stopAll();

  const { duration, warmup, connections, repeat, logLevel, poolSize, campaigns, explore } = SETTINGS;
  recordHttpRun({ startedAt, host, rounds: repeat, maxConnections: MAX_CONNECTIONS, poolSize, settings: {
    duration_s: duration, warmup_s: warmup, connections, rounds: repeat, service: { HOST: "127.0.0.1", LOG_LEVEL: logLevel, DATABASE_POOL_SIZE: poolSize },
    one_query_pool_size: poolSize, seeded_campaigns: campaigns + 1, explore_pool_sizes: explore,
  } });
}

await runBench(main, SETTINGS.timeLimit);
