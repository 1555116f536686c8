// The first start after an upgrade on the embedded database (issue 15): the service started on a
// PGlite data folder whose schema is behind this checkout's migrations. Per run, a copy of the folder
// (the original is never changed): time from spawn to the first 200 from /health, the server's RSS
// then, its RSS and the slowest of a probe request every 100 ms over BENCH_IDLE_SECONDS after (long
// enough for the worker's first statistics pass at 30 s), and the service's log lines about it.
//
//   BENCH_UPGRADE_DIR=<a data folder at an older schema> bun bench/upgrade-start.ts
//   (BENCH_STARTUP_RUNS=1, BENCH_IDLE_SECONDS=45; BENCH_KEEP_DIR=1 keeps the last, upgraded copy)
//
// Such a folder: a PostgreSQL search seed made by an older checkout (BENCH_KEEP_DB, BENCH_SEED_ONLY),
// copied into PGlite by that checkout (BENCH_BACKEND=pglite BENCH_REUSE_URL=… BENCH_KEEP_DIR=1).
// The probe is GET /health/database (one read of schema_migrations): PGlite runs one statement at a
// time, so it waits for whatever the service's database is doing (a vacuum, a backfill).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, env, intEnv, ROOT } from "./lib/env.ts";
import { atCleanup, runBench } from "./lib/lifecycle.ts";
import { call, freePort } from "./lib/local-http.ts";
import { spawnChild, stopChild } from "./lib/processes.ts";

const SOURCE = env("BENCH_UPGRADE_DIR", "");
const RUNS = intEnv("BENCH_STARTUP_RUNS", 1, 1, 10);
const IDLE_SECONDS = intEnv("BENCH_IDLE_SECONDS", 45, 0, 600);

const statusMiB = (pid: number, field: "VmRSS" | "VmHWM") => {
  try {
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 102.4) / 10;
  } catch {
    return 0;
  }
};

async function run(index: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "cms-bench-upgrade-"));
  const keep = process.env.BENCH_KEEP_DIR && index === RUNS;
  if (!keep) atCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  cpSync(SOURCE, dataDir, { recursive: true });
  rmSync(join(dataDir, "cms.lock"), { force: true });
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawnChild("service", [BUN, join(ROOT, "infra", "main.ts")], { HOST: "127.0.0.1", PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "info", CMS_ENV: "bench" });
  const pid = child.proc.pid;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`the service exited: ${child.output()}`);
    try {
      if ((await call(`${url}/health`)).status === 200) break;
    } catch {}
    if (performance.now() - started > 280_000) throw new Error(`no /health within 280 s: ${child.output()}`);
    await Bun.sleep(10);
  }
  const healthMs = Math.round(performance.now() - started);
  const rssAtHealth = statusMiB(pid, "VmRSS");
  let slowest = 0;
  let probes = 0;
  let peak = rssAtHealth;
  const until = performance.now() + IDLE_SECONDS * 1000;
  while (performance.now() < until) {
    const sent = performance.now();
    const reply = await call(`${url}/health/database`);
    if (reply.status !== 200) throw new Error(`/health/database answered ${reply.status}`);
    slowest = Math.max(slowest, performance.now() - sent);
    probes++;
    peak = Math.max(peak, statusMiB(pid, "VmRSS"));
    await Bun.sleep(100);
  }
  const result = {
    run: index,
    health_ms: healthMs,
    rss_at_health_mib: rssAtHealth,
    rss_after_idle_mib: statusMiB(pid, "VmRSS"),
    rss_peak_during_idle_mib: peak,
    vm_hwm_mib: statusMiB(pid, "VmHWM"),
    probes,
    slowest_probe_ms: Math.round(slowest * 10) / 10,
  };
  await stopChild(child);
  const lines = child
    .output()
    .split("\n")
    .filter((line) => /migrat|vacuum|statistics|database created|listening/.test(line));
  console.log(JSON.stringify(result));
  for (const line of lines) console.log(`  ${line.slice(0, 400)}`);
  if (keep) console.log(`kept the upgraded copy ${dataDir}`);
}

await runBench(async () => {
  if (!SOURCE || !existsSync(join(SOURCE, "pglite"))) throw new Error("BENCH_UPGRADE_DIR: a data folder holding pglite/");
  console.log(`upgrade start: ${SOURCE}, checkout ${ROOT}, ${RUNS} run(s), ${IDLE_SECONDS} s after /health, ${new Date().toISOString()}`);
  for (let i = 1; i <= RUNS; i++) await run(i);
}, 300);
