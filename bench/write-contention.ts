// Writers into ONE campaign (issue 15, helper writecontention): N clients at once POSTing records of
// one kind into the same campaign through the service's HTTP API, as an import from several clients
// does (bench/search.ts's BENCH_SEED=api runs 8). Inserts per second per kind and writer count, and on
// PostgreSQL what the writers' connections were doing, sampled from pg_stat_activity and pg_locks
// every few milliseconds: the hot rows they queue on show up as lock waits on a relation.
//
//   bun bench/write-contention.ts
//   BENCH_KINDS (characters,moments,locations,quests,links), BENCH_WRITERS (1,4,8), BENCH_DURATION (5 s
//   per kind and writer count), BENCH_ROUNDS (1), BENCH_POOL_SIZE (10, the service's default),
//   BENCH_BACKEND (postgres | pglite: one connection, so only its throughput), BENCH_POSTGRES_URL,
//   BENCH_TEXT (short: "Moment N"; long: a 12-word name), BENCH_COMPARE_DIR (another checkout of
//   the service, e.g. a worktree of main: each round measures it on its own scratch database right
//   before this one's, same window), BENCH_DB_SETTINGS (e.g. "log_lock_waits=on,deadlock_timeout=20ms"),
//   BENCH_KEEP_DB, BENCH_TIME_LIMIT (1200 s), BENCH_RESULTS (write-contention-<backend>.json)
//
// Every run is checked afterwards: the campaign's list total (the counters) must equal the number
// of records the run created, and on PostgreSQL a count(*) of the table.
import { join } from "node:path";
import postgres from "postgres";
import { assertLocalPostgres, BUN, env, intEnv, intList, ROOT } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { call, localSend, mustCaller } from "./lib/local-http.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { describeHost, writeResults } from "./lib/report.ts";
import { createCampaign, createUserWithKey } from "./lib/seed.ts";
import { ADMIN_KEY, launch, type RunningServer, tempDir } from "./lib/servers.ts";

const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
const BACKEND = env("BENCH_BACKEND", "postgres");
if (BACKEND !== "postgres" && BACKEND !== "pglite") throw new Error("BENCH_BACKEND must be postgres or pglite");
const ALL_KINDS = ["characters", "moments", "locations", "quests", "links"] as const;
type Kind = (typeof ALL_KINDS)[number];
const KINDS = env("BENCH_KINDS", ALL_KINDS.join(","))
  .split(",")
  .map((k) => k.trim())
  .filter(Boolean) as Kind[];
for (const kind of KINDS) if (!ALL_KINDS.includes(kind)) throw new Error(`BENCH_KINDS: unknown kind ${kind} (${ALL_KINDS.join(", ")})`);
const WRITERS = intList("BENCH_WRITERS", "1,4,8", 1, 64);
const DURATION = intEnv("BENCH_DURATION", 5, 1, 60);
const ROUNDS = intEnv("BENCH_ROUNDS", 1, 1, 10);
const POOL_SIZE = intEnv("BENCH_POOL_SIZE", 10, 1, 200);
const TEXT = env("BENCH_TEXT", "short");
if (TEXT !== "short" && TEXT !== "long") throw new Error("BENCH_TEXT must be short or long");
const COMPARE_DIR = process.env.BENCH_COMPARE_DIR?.trim() || null;
const TIME_LIMIT = intEnv("BENCH_TIME_LIMIT", 1200, 10, 3600);
const SAMPLE_MS = 5;

const WORDS = ["harbour", "lantern", "drowned", "crown", "smuggler", "tide", "ember", "vault", "raven", "oath", "sable", "warden", "mire", "cinder"];
/** The record's name: "Moment 17" (every one shares the word), or 12 words picked from i. */
const nameOf = (noun: string, i: number) =>
  TEXT === "short" ? `${noun} ${i}` : `${noun} ${i} ${Array.from({ length: 11 }, (_, j) => WORDS[(i * 7 + j * 5) % WORDS.length]).join(" ")}`;

interface Target {
  label: string;
  server: RunningServer;
  databaseUrl: string | null;
  key: string;
}

interface Run {
  target: string;
  kind: Kind;
  writers: number;
  round: number;
  inserts: number;
  seconds: number;
  inserts_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Share of the writers' sampled connection states (PostgreSQL): "Lock:transactionid on change_counters", "cpu", … */
  waits: Record<string, number>;
  samples: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/** Starts the service of `dir` (this checkout or BENCH_COMPARE_DIR) on a new database. */
async function startTarget(label: string, dir: string): Promise<Target> {
  let databaseUrl: string | null = null;
  if (BACKEND === "postgres") databaseUrl = (await createScratchDatabase(ADMIN_URL, "cms_bench_wc", !!process.env.BENCH_KEEP_DB)).url;
  const serviceEnv: Record<string, string> = {
    HOST: "127.0.0.1",
    DATA_DIR: tempDir("cms-bench-wc-"),
    CMS_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: "warn",
    CMS_ENV: "bench",
    RATE_LIMIT_PER_MINUTE: "1000000",
    RATE_LIMIT_BURST: "1000000",
  };
  if (databaseUrl) Object.assign(serviceEnv, { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(POOL_SIZE) });
  const server = await launch(`service-${label}`, [BUN, join(dir, "infra", "main.ts")], serviceEnv, { backend: BACKEND, DATABASE_POOL_SIZE: POOL_SIZE });
  const user = await createUserWithKey(server.url);
  console.log(`  ${label}: ${dir} on ${databaseUrl ? new URL(databaseUrl).pathname.slice(1) : "PGlite"} (${server.url})`);
  return { label, server, databaseUrl, key: user.key };
}

/** What one POST of `kind` sends, for the i-th record; links need characters and locations to join. */
async function prepare(target: Target, campaignId: string, kind: Kind) {
  const must = mustCaller(localSend(60_000), target.server.url, target.key);
  const ends = { characters: [] as string[], locations: [] as string[] };
  if (kind === "links")
    for (let i = 0; i < 20; i++) {
      ends.characters.push(String((await must("POST", "/v1/characters", { campaign_id: campaignId, character_name: `Linked ${i}` })).id));
      ends.locations.push(String((await must("POST", "/v1/locations", { campaign_id: campaignId, name: `Place ${i}` })).id));
    }
  return (i: number): [string, unknown] => {
    switch (kind) {
      case "characters":
        return ["/v1/characters", { campaign_id: campaignId, character_name: nameOf("Character", i) }];
      case "moments":
        return ["/v1/moments", { campaign_id: campaignId, label: nameOf("Moment", i) }];
      case "locations":
        return ["/v1/locations", { campaign_id: campaignId, name: nameOf("Location", i) }];
      case "quests":
        return ["/v1/quests", { campaign_id: campaignId, quest_name: nameOf("Quest", i) }];
      case "links":
        // One link per (source, alias): every alias is new.
        return [`/v1/campaigns/${campaignId}/links`, { from_type: "Character", from_id: ends.characters[i % 20], to_type: "Location", to_id: ends.locations[(i * 7) % 20], alias: nameOf("Road", i) }];
    }
  };
}

/** The list route whose total counts `kind` in the campaign. */
const listPath = (kind: Kind, campaignId: string) =>
  kind === "links" ? `/v1/campaigns/${campaignId}/links?limit=1` : `/v1/${kind}?campaign_id=${campaignId}&limit=1`;
const TABLES: Record<Kind, string> = { characters: "characters", moments: "moments", locations: "entities", quests: "quests", links: "links" };

/**
 * Samples the writers' connections: a connection waiting on a row lock holds or waits for a tuple
 * lock of the row's relation, which names the hot table; otherwise its wait event, "cpu" when it
 * runs, "client" when its transaction waits for the service's next statement.
 */
function startSampler(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const counts: Record<string, number> = {};
  let samples = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const rows = await sql<{ state: string; wait_event_type: string | null; wait_event: string | null; rel: string | null }[]>`
        select a.state, a.wait_event_type, a.wait_event,
               (select string_agg(distinct l.relation::regclass::text, '+') from pg_locks l where l.pid = a.pid and l.locktype = 'tuple') as rel
        from pg_stat_activity a
        where a.datname = current_database() and a.pid <> pg_backend_pid() and a.backend_type = 'client backend' and a.state <> 'idle'`;
      samples++;
      for (const r of rows) {
        const what =
          r.state === "idle in transaction"
            ? "client (idle in transaction)"
            : r.wait_event_type === null
              ? "cpu"
              : r.wait_event_type === "Lock" && (r.wait_event === "transactionid" || r.wait_event === "tuple")
                ? `Lock:${r.wait_event} on ${r.rel ?? "?"}`
                : `${r.wait_event_type}:${r.wait_event}`;
        counts[what] = (counts[what] ?? 0) + 1;
      }
      await Bun.sleep(SAMPLE_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      await sql.end({ timeout: 2 });
      return { counts, samples };
    },
  };
}

async function measure(target: Target, kind: Kind, writers: number, round: number): Promise<Run> {
  const campaignId = await createCampaign(target.server.url, target.key, { title: `Writers ${kind} ${writers} r${round}` });
  const body = await prepare(target, campaignId, kind);
  const send = localSend(60_000);
  let next = 0;
  const post = async () => {
    const [path, payload] = body(next++);
    const started = performance.now();
    const response = await send(new Request(`${target.server.url}${path}`, { method: "POST", headers: { "x-api-key": target.key, "content-type": "application/json" }, body: JSON.stringify(payload) }));
    const text = await response.text();
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
    return performance.now() - started;
  };
  // Warm-up: the campaign's counter rows and the service's prepared statements exist before timing.
  for (let i = 0; i < 10; i++) await post();
  const sampler = target.databaseUrl ? startSampler(target.databaseUrl) : null;
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + DURATION * 1000;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < deadline) latencies.push(await post());
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sampled = sampler ? await sampler.stop() : { counts: {}, samples: 0 };
  const created = next;
  // Exactness: the list's total and, on PostgreSQL, a count(*) of the table, both equal to the POSTs made.
  const list = await call(`${target.server.url}${listPath(kind, campaignId)}`, { headers: { "x-api-key": target.key } });
  if (list.status !== 200) throw new Error(`list ${kind}: ${list.status} ${list.text.slice(0, 300)}`);
  const expected = created;
  if (list.json.total !== expected) throw new Error(`${target.label} ${kind} × ${writers}: list total ${list.json.total}, ${expected} created`);
  if (target.databaseUrl) {
    const sql = postgres(target.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql.unsafe(`select count(*)::int as n from ${TABLES[kind]} where campaign_id = $1`, [campaignId]);
      if (row!.n !== expected) throw new Error(`${target.label} ${kind} × ${writers}: count(*) ${row!.n}, ${expected} created`);
    } finally {
      await sql.end({ timeout: 2 });
    }
  }
  const sorted = latencies.sort((a, b) => a - b);
  const total = Object.values(sampled.counts).reduce((a, b) => a + b, 0);
  const waits = Object.fromEntries(
    Object.entries(sampled.counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, Math.round((1000 * v) / Math.max(1, total)) / 10]),
  );
  return {
    target: target.label,
    kind,
    writers,
    round,
    inserts: latencies.length,
    seconds: Math.round(seconds * 100) / 100,
    inserts_per_s: Math.round(latencies.length / seconds),
    p50_ms: Math.round(percentile(sorted, 0.5) * 10) / 10,
    p99_ms: Math.round(percentile(sorted, 0.99) * 10) / 10,
    max_ms: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
    waits,
    samples: sampled.samples,
  };
}

await runBench(async () => {
  const startedAt = new Date();
  console.log(`write contention: ${BACKEND}, kinds ${KINDS.join(",")}, writers ${WRITERS.join(",")}, ${DURATION} s each, ${ROUNDS} round(s), pool ${POOL_SIZE}, text ${TEXT}`);
  const host = await describeHost(BACKEND === "postgres" ? ADMIN_URL : null);
  const targets: Target[] = [];
  if (COMPARE_DIR) targets.push(await startTarget("compare", COMPARE_DIR));
  targets.push(await startTarget("this", ROOT));
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const kind of KINDS)
      for (const writers of WRITERS)
        for (const target of targets) {
          const run = await measure(target, kind, writers, round);
          runs.push(run);
          const top = Object.entries(run.waits)
            .slice(0, 4)
            .map(([k, v]) => `${k} ${v}%`)
            .join(", ");
          console.log(
            `  ${target.label.padEnd(7)} ${kind.padEnd(10)} × ${String(writers).padStart(2)}: ${String(run.inserts_per_s).padStart(5)} inserts/s (${run.inserts} in ${run.seconds} s; p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, max ${run.max_ms} ms)${top ? `  [${top}]` : ""}`,
          );
        }
  console.log("\n| target | kind | writers | inserts/s (rounds) | p50 ms | p99 ms |\n|---|---|--:|--:|--:|--:|");
  for (const target of targets)
    for (const kind of KINDS)
      for (const writers of WRITERS) {
        const mine = runs.filter((r) => r.target === target.label && r.kind === kind && r.writers === writers);
        const rates = mine.map((r) => r.inserts_per_s).sort((a, b) => a - b);
        console.log(`| ${target.label} | ${kind} | ${writers} | ${rates[Math.floor(rates.length / 2)]} (${rates.join(", ")}) | ${mine.map((r) => r.p50_ms).join(", ")} | ${mine.map((r) => r.p99_ms).join(", ")} |`);
      }
  const path = writeResults(env("BENCH_RESULTS", `write-contention-${BACKEND}.json`), {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    ...host,
    settings: { BACKEND, KINDS, WRITERS, DURATION, ROUNDS, POOL_SIZE, TEXT, COMPARE_DIR },
    runs,
  });
  console.log(`\nwrote ${path}`);
}, TIME_LIMIT);
