// Ask packing on PGlite's one connection (issue 15, migration 0040): the longest request while the
// worker packs a big campaign's posting lists. A PGlite folder holding bench/ask.ts's campaign (e.g. a
// 105k-passage PostgreSQL database of `ASK_BENCH_COPIES=10 BENCH_KEEP_DB=1 bun bench/ask.ts` copied
// in with PACK_COPY_FROM) is opened with this checkout's migrations, its build is made due again
// (its passage count set far off, so the old build serves until replaced, as after a tenth of growth),
// and while the pass runs (with the worker's statistics pass every 30 s) two askers ask the bench's
// questions (each every second) and a third client asks GET /health (every 250 ms), timed from when
// each request was due; then, under the same load, the statistics pass once more (it vacuums ask_packed).
//
//   PACK_DIR=<folder> [PACK_COPY_FROM=<postgres url, copied in when the folder is empty>] bun bench/ask-pack.ts
//   PACK_WARM_S=10 (the same load before the pass, for reference), PACK_COPY_ONLY=1 (copy, then stop)
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openPglite } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { jsonLogger } from "../adapters/system/system.ts";
import { PACK_MIN_PASSAGES } from "../application/retrieval.ts";
import { parseConfig } from "../infra/config.ts";
import { buildDeps, loadMigrations } from "../infra/container.ts";
import { buildApp, serviceInfo } from "../infra/service.ts";
import { loadQuestions } from "./ask/baseline.ts";
import { env, intEnv } from "./lib/env.ts";
import { copyPostgresIntoPglite } from "./lib/pglite-copy.ts";

const DIR = env("PACK_DIR", "");
const COPY_FROM = process.env.PACK_COPY_FROM?.trim() || null;
const WARM_S = intEnv("PACK_WARM_S", 10, 0, 600);
if (!DIR) throw new Error("set PACK_DIR to a PGlite folder");
const folder = join(DIR, "pglite");

if (!existsSync(folder) || !readdirSync(folder).length) {
  if (!COPY_FROM) throw new Error(`${folder} is empty: set PACK_COPY_FROM`);
  mkdirSync(folder, { recursive: true });
  const made = await openPglite(folder);
  await applyMigrations(made, loadMigrations().filter((m) => m.version < "0040"));
  await made.close();
  const started = performance.now();
  await copyPostgresIntoPglite(COPY_FROM, folder);
  console.log(`copied in ${Math.round((performance.now() - started) / 1000)} s`);
}
if (process.env.PACK_COPY_ONLY === "1") process.exit(0);

const db = await openPglite(folder);
const migrating = performance.now();
const applied = await applyMigrations(db, loadMigrations());
if (applied.length) console.log(`migrations ${applied.join(", ")} in ${Math.round(performance.now() - migrating)} ms`);
const deps = buildDeps(db, jsonLogger("warn"));
const app = buildApp(deps, serviceInfo(parseConfig({ PORT: "8000" })));
const [campaign] = await db.query(`select c.id, (select count(*)::int from ask_passages p where p.campaign_id = c.id) as passages from campaigns c order by passages desc limit 1`);
const campaignId = String(campaign!.id);
console.log(`campaign ${campaignId}: ${campaign!.passages} passages`);
const questions = loadQuestions();

const round1 = (n: number) => Math.round(n * 10) / 10;
type Sample = { kind: string; ms: number; phase: string };
const samples: Sample[] = [];
let phase = "warm";
let stop = false;
// Open loop: each client's requests are due at fixed times, and a request's time runs from when it
// was due. PGlite runs a statement synchronously in this thread, so a request due while one runs
// cannot even start: timed from its start it would look fast.
const loop = async (kind: string, everyMs: number, offset: number, request: (i: number) => Promise<unknown>) => {
  let due = performance.now();
  for (let i = offset; !stop; i++) {
    const wait = due - performance.now();
    await (wait > 0 ? Bun.sleep(wait) : new Promise((resolve) => setImmediate(resolve)));
    await request(i);
    samples.push({ kind, ms: performance.now() - due, phase });
    due += everyMs;
  }
};
// The event loop's longest stall (a 10 ms timer's lateness): the longest statement PGlite ran.
const stall = { warm: 0, pack: 0, statistics: 0 } as Record<string, number>;
let tick = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  stall[phase] = Math.max(stall[phase] ?? 0, now - tick - 10);
  tick = now;
}, 10);
const ask = (i: number) => deps.retriever.retrieve({ campaignId, text: questions[i % questions.length]!.question, journals: { all: true }, limit: 5 });
const health = async () => {
  const response = await app.handle(new Request("http://localhost/health"));
  if (!response.ok) throw new Error(`health ${response.status}`);
  await response.text();
};
// Every question once first: their lists in the process's cache, as in a service asked for a while.
for (let i = 0; i < questions.length; i++) await ask(i);
stall.warm = 0;
const clients = [loop("ask", 1000, 0, ask), loop("ask", 1000, 37, ask), loop("health", 250, 0, health)];

await Bun.sleep(WARM_S * 1000);
// Due again with its build in place: the pass replaces it.
await db.query(`update ask_packed_builds set passages = passages * 3 where campaign_id = $1`, [campaignId]);
phase = "pack";
// The worker's statistics pass runs every 30 s meanwhile (it vacuums ask_packed once enough changed).
const statisticsPasses: string[] = [];
const statisticsPass = async () => {
  const started = performance.now();
  const vacuumed = await deps.records.statistics.refreshVisibility();
  const gathered = await deps.records.statistics.refresh();
  statisticsPasses.push(`${round1((performance.now() - started) / 1000)} s (vacuumed ${vacuumed.join(", ") || "none"}; analysed ${gathered.join(", ") || "none"})`);
};
let statisticsRunning: Promise<void> | null = null;
const statisticsTimer = setInterval(() => {
  statisticsRunning ??= statisticsPass().finally(() => (statisticsRunning = null));
}, 30_000);
let started = performance.now();
const packed = await deps.records.askIndex.pack(PACK_MIN_PASSAGES, 10);
const packMs = performance.now() - started;
clearInterval(statisticsTimer);
await statisticsRunning;
// Then the pass after it (the old build's rows swept meanwhile).
phase = "statistics";
started = performance.now();
await statisticsPass();
const statisticsMs = performance.now() - started;
stop = true;
await Promise.all(clients);
clearInterval(ticker);

const summary = (list: Sample[]) => {
  const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
  const at = (p: number) => round1(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
  return { n: sorted.length, p50: at(50), p99: at(99), max: round1(sorted.at(-1) ?? 0) };
};
console.log(`packed ${JSON.stringify(packed)} in ${round1(packMs / 1000)} s; statistics passes: ${statisticsPasses.join("; ")} (the last after the pass, ${round1(statisticsMs / 1000)} s)`);
const table: Record<string, unknown> = {};
for (const p of ["warm", "pack", "statistics"]) for (const kind of ["ask", "health"]) table[`${p} ${kind}`] = summary(samples.filter((s) => s.phase === p && s.kind === kind));
console.table(table);
console.log(`longest event-loop stall (a statement running) ms: ${JSON.stringify(Object.fromEntries(Object.entries(stall).map(([k, v]) => [k, round1(v)])))}`);
const [size] = await db.query(`select pg_total_relation_size('ask_packed') as bytes, (select count(*)::int from ask_packed) as rows`);
console.log(`ask_packed ${Math.round(Number(size!.bytes) / 2 ** 20)} MiB, ${size!.rows} rows; peak RSS ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MiB now`);
await db.close();
