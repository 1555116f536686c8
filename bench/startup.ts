// Start-up benchmark (issue 15, item 5): how long `npm start` takes to answer /health, and the
// server's memory once idle, on the embedded database with a new DATA_DIR ("fresh"), again on the
// same folder ("restart"), and on PostgreSQL (a new database each run).
//
//   bun bench/startup.ts     (BENCH_STARTUP_RUNS=5; BENCH_IDLE_SECONDS=10; BENCH_SCENARIOS=fresh,restart,postgres;
//                             BENCH_VIA_NPM=1 starts `npm start` instead of `bun infra/main.ts`;
//                             PostgreSQL at 127.0.0.1:5432 or BENCH_POSTGRES_URL)
//
// Time is from spawning the process to the first 200 from /health (polled every 10 ms); the CPU time
// the server used by then is recorded too (on a busy machine, wall time mostly measures the others). RSS is the
// server process's VmRSS after BENCH_IDLE_SECONDS without requests; peak is its VmHWM by then.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assertLocalPostgres, BUN, env, intEnv, ROOT } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { freePort } from "./lib/local-http.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { spawnChild, stopChild } from "./lib/processes.ts";
import { describeHost } from "./lib/report.ts";
import { tempDir } from "./lib/servers.ts";

const RUNS = intEnv("BENCH_STARTUP_RUNS", 5, 1, 100);
const IDLE_SECONDS = intEnv("BENCH_IDLE_SECONDS", 10, 0, 600);
const SCENARIOS = env("BENCH_SCENARIOS", "fresh,restart,postgres").split(",");
const VIA_NPM = env("BENCH_VIA_NPM", "0") === "1";
const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);

const statusKb = (pid: number, field: "VmRSS" | "VmHWM") => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** The server itself: under `npm start` it is the bun process below npm (and its shell). */
function serverPid(rootPid: number): number {
  const childrenOf = (pid: number): number[] =>
    readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((name) => {
        try {
          const stat = readFileSync(`/proc/${name}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
        } catch {
          return false;
        }
      })
      .map(Number);
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift()!;
    let comm = "";
    try {
      comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {}
    if (comm === "bun") return pid;
    queue.push(...childrenOf(pid));
  }
  return rootPid;
}

/** CPU time (user + system) the process has used, in ms: what the start costs without the machine's other load. */
const cpuMs = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return 0;
  }
};

interface Sample {
  ms: number;
  cpuMs: number;
  rssMb: number;
  peakMb: number;
}

async function startOnce(dataDir: string, databaseUrl: string | null): Promise<Sample> {
  const port = freePort();
  const cmd = VIA_NPM ? ["npm", "start", "--silent"] : [BUN, join(ROOT, "infra", "main.ts")];
  const childEnv: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn", CMS_ENV: "bench" };
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  const started = performance.now();
  const child = spawnChild("service", cmd, childEnv);
  let ms = 0;
  let cpu = 0;
  for (;;) {
    if (child.proc.exitCode !== null) throw new Error(`the service exited with ${child.proc.exitCode}: ${child.output()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.status === 200) {
        ms = performance.now() - started;
        cpu = cpuMs(serverPid(child.proc.pid));
        break;
      }
    } catch {}
    if (performance.now() - started > 120_000) throw new Error(`no /health within 120 s: ${child.output()}`);
    await Bun.sleep(10);
  }
  await Bun.sleep(IDLE_SECONDS * 1000);
  const pid = serverPid(child.proc.pid);
  const sample = { ms, cpuMs: cpu, rssMb: statusKb(pid, "VmRSS") / 1024, peakMb: statusKb(pid, "VmHWM") / 1024 };
  await stopChild(child);
  return sample;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main() {
  await describeHost(SCENARIOS.includes("postgres") ? ADMIN_URL : null);
  console.log(`  ${RUNS} runs per scenario, idle ${IDLE_SECONDS} s, via ${VIA_NPM ? "npm start" : "bun infra/main.ts"}`);
  const rows: string[] = [];
  for (const scenario of SCENARIOS) {
    const samples: Sample[] = [];
    for (let run = 0; run < RUNS; run++) {
      let sample: Sample;
      if (scenario === "fresh") sample = await startOnce(tempDir("cms-bench-startup-"), null);
      else if (scenario === "restart") {
        const dir = tempDir("cms-bench-startup-");
        await startOnce(dir, null); // the first start makes the folder; the second is measured
        sample = await startOnce(dir, null);
      } else if (scenario === "postgres") sample = await startOnce(tempDir("cms-bench-startup-"), (await createScratchDatabase(ADMIN_URL, "cms_bench_startup")).url);
      else throw new Error(`unknown scenario ${scenario} (fresh, restart, postgres)`);
      samples.push(sample);
      console.log(`  ${scenario} #${run + 1}: /health after ${sample.ms.toFixed(0)} ms (CPU ${sample.cpuMs.toFixed(0)} ms); idle RSS ${sample.rssMb.toFixed(0)} MB (peak ${sample.peakMb.toFixed(0)} MB)`);
    }
    const ms = samples.map((s) => s.ms);
    const cpu = samples.map((s) => s.cpuMs);
    const rss = samples.map((s) => s.rssMb);
    const peak = samples.map((s) => s.peakMb);
    rows.push(
      `| ${scenario} | ${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}) | ${median(cpu).toFixed(0)} | ${median(rss).toFixed(0)} (${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)}) | ${median(peak).toFixed(0)} (${Math.min(...peak).toFixed(0)}–${Math.max(...peak).toFixed(0)}) |`,
    );
  }
  console.log(`\n| scenario | /health after, ms: median (min–max) | CPU to /health, ms (median) | idle RSS, MB | peak RSS, MB |\n|---|---|---|---|---|\n${rows.join("\n")}`);
}

await runBench(main, intEnv("BENCH_TIME_LIMIT", 1800, 10, 86_400));
