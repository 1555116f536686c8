// HTTP load benchmark: `bun bench/http.ts` (npm run bench). See docs/benchmarks.md.
//
// Starts real server processes (the service on PGlite and on PostgreSQL, and two ceilings), seeds
// them through the HTTP API, drives them with autocannon running on Node in its own process, and
// prints/writes requests/s and latency percentiles. Every target is 127.0.0.1; every load run is
// bounded in time; every child process is stopped at the end, on error too, and the scratch
// PostgreSQL database (cms_bench_*) is dropped.
//
// Settings (environment):
//   BENCH_DURATION=10          measured seconds per scenario
//   BENCH_WARMUP=2             warm-up seconds before each measurement (same connections, discarded)
//   BENCH_CONNECTIONS=16,64    connection counts
//   BENCH_REPEAT=5             rounds; each round runs every scenario once, in turn; medians are reported (single rounds drift by ±20 % here)
//   BENCH_POOL_SIZE=5          DATABASE_POOL_SIZE of the service and POOL_SIZE of the one-query ceiling
//                              (5 was the best of 5/10/20/40 on this 2-core machine; see docs/benchmarks.md)
//   BENCH_LOG_LEVEL=warn       LOG_LEVEL of the service in the main scenarios
//   BENCH_CAMPAIGNS=50         campaigns created for the list, besides the one that is read
//   BENCH_BACKENDS=pglite,postgres
//   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test   server on which cms_bench_* is created
//   BENCH_EXPLORE=             e.g. "5,10,20,40": extra PostgreSQL runs of GET /v1/campaigns/{id} at the
//                              highest connection count, each round: the service and the one-query
//                              ceiling at these pool sizes, the service with LOG_LEVEL=silent, and
//                              bench/variant-two-queries.ts (the service's former two statements, no framework)
//   BENCH_SOAK=                e.g. "6": ageing check on PostgreSQL: a fresh service and a fresh one-query
//                              ceiling, GET /v1/campaigns/{id} at the highest connection count, this many
//                              runs each, alternating; then one run of another fresh service
//   BENCH_PROFILE=             "1": one extra run of the service (PostgreSQL) under `bun --cpu-prof-md`,
//                              profile written to bench/results/profile/
//   BENCH_QUIET_WAIT=180       before each run, wait up to this many seconds for other processes on the
//                              machine to go quiet (< 0.05 core for 2 s)
//   BENCH_ATTEMPTS=3           a run during which other processes used > 0.1 core is repeated, up to
//                              this many runs in all; the last is kept and flagged "disturbed"
//   BENCH_TIME_LIMIT=3600      seconds after which everything is stopped and the run fails
import { spawnSync, type Subprocess } from "bun";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const ROOT = join(import.meta.dir, "..");
const RESULTS_DIR = join(import.meta.dir, "results");
const BUN = process.execPath;

// ---------------------------------------------------------------------------------------------
// Settings

const env = (name: string, fallback: string) => process.env[name]?.trim() || fallback;
const intEnv = (name: string, fallback: number, min: number, max: number): number => {
  const value = Number(env(name, String(fallback)));
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return value;
};
const intList = (name: string, fallback: string, min: number, max: number): number[] =>
  env(name, fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const value = Number(s);
      if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name}: ${s} is not a whole number from ${min} to ${max}`);
      return value;
    });

const SETTINGS = {
  duration: intEnv("BENCH_DURATION", 10, 1, 120),
  warmup: intEnv("BENCH_WARMUP", 2, 0, 60),
  connections: intList("BENCH_CONNECTIONS", "16,64", 1, 1024),
  poolSize: intEnv("BENCH_POOL_SIZE", 5, 1, 90),
  logLevel: env("BENCH_LOG_LEVEL", "warn"),
  campaigns: intEnv("BENCH_CAMPAIGNS", 50, 0, 1000),
  backends: env("BENCH_BACKENDS", "pglite,postgres").split(",").map((s) => s.trim()).filter(Boolean),
  postgresUrl: env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test"),
  explore: intList("BENCH_EXPLORE", "", 1, 90),
  profile: env("BENCH_PROFILE", "") === "1",
  timeLimit: intEnv("BENCH_TIME_LIMIT", 3600, 30, 7200),
  quietWait: intEnv("BENCH_QUIET_WAIT", 180, 0, 1800),
  attempts: intEnv("BENCH_ATTEMPTS", 3, 1, 10),
  repeat: intEnv("BENCH_REPEAT", 5, 1, 20),
  soak: intEnv("BENCH_SOAK", 0, 0, 50),
};
const MAX_CONNECTIONS = Math.max(...SETTINGS.connections);
for (const backend of SETTINGS.backends)
  if (backend !== "pglite" && backend !== "postgres") throw new Error(`BENCH_BACKENDS: unknown backend ${backend}`);

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
{
  const pg = new URL(SETTINGS.postgresUrl);
  if (!LOCAL_HOSTS.has(pg.hostname)) throw new Error(`BENCH_POSTGRES_URL must point at this machine (got ${pg.hostname})`);
}

/** Every HTTP request this script makes goes through here: 127.0.0.1 only, 10 s at most. */
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; text: string; json: any }> {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error(`refusing non-local target ${url}`);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, text, json };
}

// ---------------------------------------------------------------------------------------------
// Child processes: all tracked, all stopped at the end.

interface Child {
  name: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
  /** Set when this script stops it; an exit without it is reported as an incident. */
  stopping: boolean;
}
const children = new Set<Child>();

/** Child processes that ended without being asked to (killed from outside, crashed). */
const incidents: { at: string; name: string; pid: number; exit_code: number | null; signal: string | null; output_tail: string }[] = [];

async function drain(stream: ReadableStream<Uint8Array>, onText: (text: string) => void) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onText(decoder.decode(value, { stream: true }));
  }
}

function spawnChild(name: string, cmd: string[], childEnv: Record<string, string>, onStdoutLine?: (line: string) => void): Child {
  let output = "";
  const keep = (text: string) => {
    output = (output + text).slice(-20_000);
  };
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...process.env, ...childEnv },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let pending = "";
  void drain(proc.stdout, (text) => {
    keep(text);
    if (!onStdoutLine) return;
    pending += text;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      onStdoutLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  });
  void drain(proc.stderr, keep);
  const child: Child = { name, proc, output: () => output, stopping: false };
  children.add(child);
  void proc.exited.then(() => {
    children.delete(child);
    if (child.stopping || name === "loadgen") return;
    const incident = {
      at: new Date().toISOString(),
      name,
      pid: proc.pid,
      exit_code: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      output_tail: output.slice(-2000),
    };
    incidents.push(incident);
    console.log(`  !! ${name} (pid ${proc.pid}) ended unexpectedly: exit code ${proc.exitCode}, signal ${incident.signal}; last output: ${output.slice(-500).trim() || "(none)"}`);
  });
  return child;
}

async function stopChild(child: Child) {
  child.stopping = true;
  if (child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill("SIGTERM");
    const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
    if (!exited) {
      child.proc.kill("SIGKILL");
      await child.proc.exited;
    }
  }
  children.delete(child);
}

const stopAll = () => Promise.all([...children].map(stopChild));

const freePort = (): number => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
};

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

// ---------------------------------------------------------------------------------------------
// CPU accounting from /proc: where the CPU time of a measurement went.

const CLK_TCK = Number(spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** The scratch database's name, so its PostgreSQL backends count as ours and others' as foreign. */
let ourDatabase: string | null = null;

type CpuClass = "server" | "postgres" | "loadgen" | "own" | "foreign";

interface CpuSnapshot {
  /** pid -> class and CPU ticks (for foreign processes, including their reaped children). */
  processes: Map<number, { cls: CpuClass; ticks: number }>;
  machine: { busy: number; total: number };
  at: number;
}

const machineTicks = (): { busy: number; total: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
};

/**
 * Reads every process's CPU time from /proc. The measured server and the load generator are told
 * by pid; PostgreSQL processes serving our scratch database, and PostgreSQL's own background
 * processes, are "postgres"; this script and its other (idle) children are "own"; everything else
 * in user space is "foreign" (another test run on the machine, say). Kernel threads are left out.
 */
function snapshot(serverPid: number, loadgenPid: number): CpuSnapshot {
  const ownPids = new Set([process.pid, ...[...children].map((c) => c.proc.pid)]);
  const processes = new Map<number, { cls: CpuClass; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    if (pid === 2 || ppid === 2) continue;
    const own = Number(fields[11]) + Number(fields[12]);
    const withChildren = own + Number(fields[13]) + Number(fields[14]);
    let cls: CpuClass;
    if (pid === serverPid) cls = "server";
    else if (pid === loadgenPid) cls = "loadgen";
    else if (ownPids.has(pid)) cls = "own";
    else if (comm === "postgres") {
      let cmdline = "";
      try {
        cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {}
      const clientBackend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(cmdline);
      cls = !clientBackend || (ourDatabase !== null && cmdline.includes(` ${ourDatabase} `)) ? "postgres" : "foreign";
    } else cls = "foreign";
    processes.set(pid, { cls, ticks: cls === "foreign" ? withChildren : own });
  }
  return { processes, machine: machineTicks(), at: performance.now() };
}

/** CPU ticks used between two snapshots, by class; a process born in between counts from zero. */
function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): Record<CpuClass, number> {
  const used: Record<CpuClass, number> = { server: 0, postgres: 0, loadgen: 0, own: 0, foreign: 0 };
  for (const [pid, now] of b.processes) {
    const before = a.processes.get(pid);
    used[now.cls] += Math.max(0, now.ticks - (before?.ticks ?? 0));
  }
  return used;
}

/** Foreign CPU, in cores, over `seconds`. */
async function foreignLoad(seconds: number): Promise<number> {
  const a = snapshot(-1, -1);
  await Bun.sleep(seconds * 1000);
  const b = snapshot(-1, -1);
  return cpuBetween(a, b).foreign / CLK_TCK / ((b.at - a.at) / 1000);
}

/** Waits until processes outside the benchmark have been quiet (< 0.05 core) for 2 s in a row. */
async function waitForQuiet(): Promise<number> {
  const started = Date.now();
  let quiet = 0;
  let announced = false;
  while (Date.now() - started < SETTINGS.quietWait * 1000) {
    const load = await foreignLoad(1);
    if (load < 0.05) {
      if (++quiet >= 2) return (Date.now() - started) / 1000;
    } else {
      quiet = 0;
      if (!announced) {
        console.log(`  (waiting: other processes on this machine are using ${load.toFixed(2)} cores)`);
        announced = true;
      }
    }
  }
  console.log(`  (other processes stayed busy for ${SETTINGS.quietWait} s; measuring anyway)`);
  return (Date.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// One measurement: autocannon in its own Node process.

interface LoadSummary {
  requests_per_s: number;
  ok_total: number;
  requests_total: number;
  duration_s: number;
  latency_ms: { mean: number | null; p50: number | null; p90: number | null; p99: number | null; max: number | null };
  autocannon_latency_ms: { p50: number; p99: number; max: number };
  statuses: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface Measurement {
  scenario: string;
  target: string;
  backend: "pglite" | "postgres" | "none";
  route: string;
  connections: number;
  settings: Record<string, string | number>;
  requests_per_s: number;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  mean_ms: number | null;
  max_ms: number | null;
  valid: boolean;
  problems: string[];
  /** Other processes on the machine used more than FOREIGN_LIMIT cores during the run. */
  disturbed: boolean;
  attempts: number;
  /** hostCalibrationMs() just before the run: lower is a faster CPU at that moment. */
  host_calibration_ms: number;
  /** Resident memory of the server process right after the run (VmRSS), in MiB. */
  server_rss_mib: number | null;
  cpu: {
    /** CPU microseconds per successful request, by process. */
    server_us_per_req: number;
    postgres_us_per_req: number | null;
    loadgen_us_per_req: number;
    /** Share of both cores busy during the measurement (all processes on the machine). */
    machine_busy_pct: number;
    /** Cores used by processes outside the benchmark during the run. */
    foreign_cores: number;
  };
  load: LoadSummary;
}

const measurements: Measurement[] = [];

interface MeasureOptions {
  scenario: string;
  target: string;
  backend: Measurement["backend"];
  server: RunningServer;
  path: string;
  route: string;
  key: string | null;
  connections: number;
  settings: Record<string, string | number>;
}

/** One load run: warm-up, then the measured part, with the CPU time of every process around it. */
async function measureOnce(options: MeasureOptions): Promise<Measurement> {
  const config = {
    url: `${options.server.url}${options.path}`,
    connections: options.connections,
    duration: SETTINGS.duration,
    warmup: SETTINGS.warmup,
    headers: options.key ? { "x-api-key": options.key } : {},
  };
  let before: CpuSnapshot | null = null;
  let after: CpuSnapshot | null = null;
  let resultLine: string | null = null;
  const loadgen = spawnChild("loadgen", ["node", join(import.meta.dir, "loadgen.mjs"), JSON.stringify(config)], {}, (line) => {
    if (line === "phase measure") before = snapshot(options.server.child.proc.pid, loadgen.proc.pid);
    else if (line.startsWith("result ")) {
      resultLine = line.slice("result ".length);
      after = snapshot(options.server.child.proc.pid, loadgen.proc.pid);
    }
  });
  const limit = (SETTINGS.duration + SETTINGS.warmup + 45) * 1000;
  const finished = await Promise.race([loadgen.proc.exited.then(() => true), Bun.sleep(limit).then(() => false)]);
  if (!finished) {
    await stopChild(loadgen);
    throw new Error(`load generator did not finish within ${limit / 1000} s: ${loadgen.output()}`);
  }
  // Let the stdout reader deliver the last lines.
  for (let i = 0; i < 50 && resultLine === null; i++) await Bun.sleep(20);
  if (loadgen.proc.exitCode !== 0 || resultLine === null || before === null || after === null)
    throw new Error(`load generator failed (exit ${loadgen.proc.exitCode}): ${loadgen.output()}`);
  const load = JSON.parse(resultLine) as LoadSummary;
  const b = before as CpuSnapshot;
  const a = after as CpuSnapshot;
  const perReq = (ticks: number) => (load.ok_total ? Math.round(((ticks / CLK_TCK) * 1e6) / load.ok_total) : 0);
  const seconds = (a.at - b.at) / 1000;
  const used = cpuBetween(b, a);
  const foreignCores = Math.round((100 * used.foreign) / CLK_TCK / seconds) / 100;
  const problems: string[] = [];
  if (load.non2xx) problems.push(`${load.non2xx} non-2xx responses (${JSON.stringify(load.statuses)})`);
  if (load.errors) problems.push(`${load.errors} connection errors`);
  if (load.timeouts) problems.push(`${load.timeouts} timeouts`);
  if (!load.ok_total) problems.push("no successful response");
  return {
    scenario: options.scenario,
    target: options.target,
    backend: options.backend,
    route: options.route,
    connections: options.connections,
    settings: options.settings,
    requests_per_s: load.requests_per_s,
    p50_ms: load.latency_ms.p50,
    p90_ms: load.latency_ms.p90,
    p99_ms: load.latency_ms.p99,
    mean_ms: load.latency_ms.mean,
    max_ms: load.latency_ms.max,
    valid: problems.length === 0,
    problems,
    disturbed: foreignCores > FOREIGN_LIMIT,
    attempts: 1,
    host_calibration_ms: 0,
    server_rss_mib: rssMiB(options.server.child.proc.pid),
    cpu: {
      server_us_per_req: perReq(used.server),
      postgres_us_per_req: options.backend === "pglite" ? null : perReq(used.postgres),
      loadgen_us_per_req: perReq(used.loadgen),
      machine_busy_pct: Math.round((1000 * (a.machine.busy - b.machine.busy)) / Math.max(1, a.machine.total - b.machine.total)) / 10,
      foreign_cores: foreignCores,
    },
    load,
  };
}

/**
 * A fixed single-threaded workload (20,000 SHA-256 digests), timed just before a run: the same
 * machine, idle, has been seen to take anywhere from 1x to 2x as long from one second to the next
 * (a virtual machine sharing its host), so this tells how fast the CPU was when a run started.
 */
function hostCalibrationMs(): number {
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += createHash("sha256").update(`cms_${i}`).digest()[0]!;
  return Math.round((performance.now() - started + (sink < 0 ? 1 : 0)) * 10) / 10;
}

const rssMiB = (pid: number): number | null => {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s*(\d+) kB/);
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
};

/** Above this many cores used by other processes, a measurement is retried. */
const FOREIGN_LIMIT = 0.1;

/**
 * Measures a scenario on a quiet machine: waits for other processes to calm down, and repeats a
 * run that other processes disturbed (up to BENCH_ATTEMPTS runs; the last one is kept, flagged).
 */
async function measure(options: MeasureOptions): Promise<Measurement> {
  let m: Measurement | null = null;
  for (let attempt = 1; attempt <= SETTINGS.attempts; attempt++) {
    if (!isRunning(options.server)) await options.server.relaunch();
    await waitForQuiet();
    const calibration = hostCalibrationMs();
    m = await measureOnce(options);
    m.attempts = attempt;
    m.host_calibration_ms = calibration;
    if (!isRunning(options.server)) {
      m.problems.push(`${options.server.name} ended during the run`);
      m.valid = false;
      console.log(`  (${options.server.name} ended during the run${attempt < SETTINGS.attempts ? "; measuring again" : ""})`);
      continue;
    }
    if (!m.disturbed) break;
    console.log(`  (run disturbed: other processes used ${m.cpu.foreign_cores} cores during it${attempt < SETTINGS.attempts ? "; measuring again" : ""})`);
  }
  const result = m!;
  measurements.push(result);
  console.log(
    `  ${result.scenario.padEnd(34)} c=${String(result.connections).padStart(3)}  ${String(result.requests_per_s).padStart(8)} req/s` +
      `  p50 ${fmt(result.p50_ms)} ms  p99 ${fmt(result.p99_ms)} ms  cpu/req: server ${result.cpu.server_us_per_req} µs` +
      (result.cpu.postgres_us_per_req === null ? "" : `, postgres ${result.cpu.postgres_us_per_req} µs`) +
      `, loadgen ${result.cpu.loadgen_us_per_req} µs; machine busy ${result.cpu.machine_busy_pct}%, others ${result.cpu.foreign_cores} cores; calibration ${result.host_calibration_ms} ms; server RSS ${result.server_rss_mib} MiB` +
      (result.disturbed ? "  DISTURBED" : "") +
      (result.valid ? "" : `  INVALID: ${result.problems.join("; ")}`),
  );
  return result;
}

const fmt = (value: number | null) => (value === null ? "-" : value.toFixed(2));

// ---------------------------------------------------------------------------------------------
// The service, seeded through its HTTP API.

/** A server process on 127.0.0.1 that can be started again (same command, new port) if it dies. */
interface RunningServer {
  name: string;
  child: Child;
  url: string;
  settings: Record<string, string | number>;
  restarts: number;
  relaunch(): Promise<void>;
}

async function launch(name: string, cmd: string[], childEnv: Record<string, string>, settings: Record<string, string | number>): Promise<RunningServer> {
  const start = async () => {
    const port = freePort();
    const child = spawnChild(name, cmd, { ...childEnv, PORT: String(port) });
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

const isRunning = (server: RunningServer) => server.child.proc.exitCode === null && server.child.proc.signalCode === null;

const tempDirs: string[] = [];
const ADMIN_KEY = `bench_admin_${crypto.randomUUID().replaceAll("-", "")}`;

async function startService(options: {
  name: string;
  databaseUrl: string | null;
  poolSize: number;
  logLevel: string;
  dataDir?: string;
  profileDir?: string;
}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "cms-bench-"));
  if (!options.dataDir) tempDirs.push(dataDir);
  const serviceEnv: Record<string, string> = {
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    CMS_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: options.logLevel,
    CMS_ENV: "bench",
  };
  if (options.databaseUrl) {
    serviceEnv.DATABASE_URL = options.databaseUrl;
    serviceEnv.DATABASE_POOL_SIZE = String(options.poolSize);
  }
  const profileFlags = options.profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${options.profileDir}`] : [];
  const settings: Record<string, string | number> = {
    backend: options.databaseUrl ? "postgres" : "pglite",
    HOST: "127.0.0.1",
    LOG_LEVEL: options.logLevel,
  };
  if (options.databaseUrl) settings.DATABASE_POOL_SIZE = options.poolSize;
  if (options.profileDir) settings.profile = "bun --cpu-prof-md";
  return launch(options.name, [BUN, ...profileFlags, join(ROOT, "infra", "main.ts")], serviceEnv, settings);
}

interface Seeded {
  userId: string;
  keyId: string;
  key: string;
  campaignId: string;
  campaignBody: string;
  listBody: string;
}

async function seed(url: string): Promise<Seeded> {
  const admin = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
  const user = await call(`${url}/internal/v1/users`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ name: "Bench User", email: `bench-${crypto.randomUUID()}@example.test` }),
  });
  if (user.status !== 201) throw new Error(`create user: ${user.status} ${user.text}`);
  const issued = await call(`${url}/internal/v1/users/${user.json.id}/keys`, { method: "POST", headers: admin, body: "{}" });
  if (issued.status !== 201) throw new Error(`issue key: ${issued.status} ${issued.text}`);
  const key = String(issued.json.key);
  const asUser = { "x-api-key": key, "content-type": "application/json" };
  const create = async (title: string, description: string) => {
    const created = await call(`${url}/v1/campaigns`, { method: "POST", headers: asUser, body: JSON.stringify({ title, description, system: "D&D 5e" }) });
    if (created.status !== 201) throw new Error(`create campaign: ${created.status} ${created.text}`);
    return String(created.json.id);
  };
  const campaignId = await create("The Sunken Crown", "A coastal campaign: smugglers, a drowned king and a lighthouse that remembers.");
  for (let i = 1; i <= SETTINGS.campaigns; i++) await create(`Bench campaign ${String(i).padStart(3, "0")}`, `Seeded for the list benchmark (#${i}).`);
  const read = await call(`${url}/v1/campaigns/${campaignId}`, { headers: { "x-api-key": key } });
  if (read.status !== 200) throw new Error(`read campaign: ${read.status} ${read.text}`);
  const list = await call(`${url}/v1/campaigns`, { headers: { "x-api-key": key } });
  if (list.status !== 200 || list.json.total !== SETTINGS.campaigns + 1) throw new Error(`list campaigns: ${list.status} ${list.text.slice(0, 300)}`);
  return { userId: String(user.json.id), keyId: String(issued.json.id), key, campaignId, campaignBody: read.text, listBody: list.text };
}

const revocationChecks: Record<string, unknown>[] = [];

/** Revokes the key with the admin key, then shows the very next request with it is refused. */
async function checkRevocation(label: string, serviceUrl: string, data: Seeded, alsoUrls: { name: string; url: string }[] = []) {
  const before = await call(`${serviceUrl}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  const revoke = await call(`${serviceUrl}/internal/v1/keys/${data.keyId}`, { method: "DELETE", headers: { "x-api-key": ADMIN_KEY } });
  const after = await call(`${serviceUrl}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  const check: Record<string, unknown> = {
    backend: label,
    before_revoke_status: before.status,
    revoke_status: revoke.status,
    next_request_status: after.status,
    next_request_body: after.json,
    ok: before.status === 200 && revoke.status === 204 && after.status === 401,
  };
  console.log(`  revoke (${label}): GET before -> ${before.status}; DELETE /internal/v1/keys/${data.keyId} -> ${revoke.status}; very next GET with the key -> ${after.status} ${after.text}`);
  for (const other of alsoUrls) {
    const response = await call(`${other.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
    check[`${other.name}_next_request_status`] = response.status;
    console.log(`  revoke (${label}): ${other.name} with the revoked key -> ${response.status} ${response.text}`);
    if (response.status !== 401) check.ok = false;
  }
  revocationChecks.push(check);
  if (!check.ok) throw new Error(`revocation check failed on ${label}: ${JSON.stringify(check)}`);
}

// ---------------------------------------------------------------------------------------------
// Ceilings

async function startBare(body: string): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "cms-bench-body-"));
  tempDirs.push(dir);
  const bodyFile = join(dir, "campaign.json");
  writeFileSync(bodyFile, body);
  return launch("ceiling-bare", [BUN, join(import.meta.dir, "ceiling-bare.ts")], { BODY_FILE: bodyFile }, { handler: "Bun.serve, fixed body" });
}

/** A minimal Bun.serve handler on PostgreSQL: bench/ceiling-one-query.ts, or bench/variant-two-queries.ts. */
async function startHandler(kind: "one-query" | "two-queries", databaseUrl: string, poolSize: number): Promise<RunningServer> {
  const file = kind === "one-query" ? "ceiling-one-query.ts" : "variant-two-queries.ts";
  const handler = kind === "one-query" ? "Bun.serve + one postgres.js query" : "Bun.serve + the service's two queries";
  return launch(`handler-${kind}`, [BUN, join(import.meta.dir, file)], { DATABASE_URL: databaseUrl, POOL_SIZE: String(poolSize) }, { handler, POOL_SIZE: poolSize });
}
const startOneQuery = (databaseUrl: string, poolSize: number) => startHandler("one-query", databaseUrl, poolSize);

/** A handler must answer the seeded read byte for byte like the service, and refuse what the service refuses. */
async function checkSameAnswers(name: string, handler: RunningServer, data: Seeded) {
  const same = await call(`${handler.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
  if (same.status !== 200 || same.text !== data.campaignBody)
    throw new Error(`${name} does not answer like the service: ${same.status} ${same.text} vs ${data.campaignBody}`);
  const bad = await call(`${handler.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": "cms_not_a_real_key_0000000000" } });
  const missing = await call(`${handler.url}/v1/campaigns/nope`, { headers: { "x-api-key": data.key } });
  if (bad.status !== 401 || missing.status !== 404) throw new Error(`${name}: bad key -> ${bad.status}, unknown id -> ${missing.status}`);
  console.log(`  ${name}: body byte-identical to the service's; a bad key gets 401, an unknown id 404`);
}

// ---------------------------------------------------------------------------------------------
// Scratch PostgreSQL database

async function createScratchDatabase(): Promise<{ name: string; url: string }> {
  const name = `cms_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(SETTINGS.postgresUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end({ timeout: 2 });
  }
  const url = new URL(SETTINGS.postgresUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropScratchDatabase(name: string) {
  const admin = postgres(SETTINGS.postgresUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end({ timeout: 2 });
  }
}

async function postgresInfo(): Promise<Record<string, string>> {
  const sql = postgres(SETTINGS.postgresUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [row] = await sql`select version() as version, current_setting('max_connections') as max_connections,
      current_setting('shared_buffers') as shared_buffers`;
    return { version: String(row!.version), max_connections: String(row!.max_connections), shared_buffers: String(row!.shared_buffers) };
  } finally {
    await sql.end({ timeout: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Report

interface Summary {
  scenario: string;
  target: string;
  backend: Measurement["backend"];
  route: string;
  connections: number;
  settings: Record<string, string | number>;
  runs: number;
  /** Medians over the runs, each taken on its own. */
  requests_per_s: number;
  p50_ms: number | null;
  p99_ms: number | null;
  requests_per_s_min: number;
  requests_per_s_max: number;
  valid: boolean;
  disturbed_runs: number;
  cpu: Measurement["cpu"];
}

/** The median; for an even count, the mean of the two middle values. */
function medianValue(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value * 100) / 100;
}

/** Groups the runs of each scenario: medians of req/s, p50 and p99; CPU figures of the median-req/s run. */
function summarize(): Summary[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${m.scenario}\u0000${m.connections}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((runs) => {
    const sorted = [...runs].sort((a, b) => a.requests_per_s - b.requests_per_s);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const medianOf = (values: (number | null)[]) => medianValue(values.filter((v): v is number => v !== null));
    return {
      scenario: median.scenario,
      target: median.target,
      backend: median.backend,
      route: median.route,
      connections: median.connections,
      settings: median.settings,
      runs: runs.length,
      requests_per_s: medianOf(runs.map((m) => m.requests_per_s))!,
      p50_ms: medianOf(runs.map((m) => m.p50_ms)),
      p99_ms: medianOf(runs.map((m) => m.p99_ms)),
      requests_per_s_min: sorted[0]!.requests_per_s,
      requests_per_s_max: sorted[sorted.length - 1]!.requests_per_s,
      valid: runs.every((m) => m.valid),
      disturbed_runs: runs.filter((m) => m.disturbed).length,
      cpu: median.cpu,
    };
  });
}

function printTable(summaries: Summary[]) {
  const header = ["scenario", "conns", "req/s", "range (runs)", "p50 ms", "p99 ms", "server µs/req", "pg µs/req", "loadgen µs/req", "busy %", "settings"];
  const right = new Set([1, 2, 4, 5, 6, 7, 8, 9]);
  const rows = summaries.map((m) => [
    m.scenario + (m.valid ? "" : " (INVALID)") + (m.disturbed_runs ? ` (${m.disturbed_runs} disturbed)` : ""),
    String(m.connections),
    m.requests_per_s.toFixed(0),
    `${m.requests_per_s_min.toFixed(0)}–${m.requests_per_s_max.toFixed(0)} (${m.runs})`,
    fmt(m.p50_ms),
    fmt(m.p99_ms),
    String(m.cpu.server_us_per_req),
    m.cpu.postgres_us_per_req === null ? "-" : String(m.cpu.postgres_us_per_req),
    String(m.cpu.loadgen_us_per_req),
    m.cpu.machine_busy_pct.toFixed(0),
    Object.entries(m.settings)
      .filter(([k]) => k !== "backend" && k !== "HOST")
      .map(([k, v]) => `${k}=${v}`)
      .join(" "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w, i) => (right.has(i) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------------------------------------
// Main

let cleanedUp = false;
let scratch: { name: string; url: string } | null = null;
async function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  await stopAll();
  if (scratch) {
    await dropScratchDatabase(scratch.name).then(
      () => console.log(`dropped database ${scratch!.name}`),
      (error) => console.error(`could not drop database ${scratch!.name}: ${(error as Error).message}`),
    );
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    console.error(`\n${signal}: stopping every child process`);
    void cleanup().finally(() => process.exit(130));
  });

const watchdog = setTimeout(() => {
  console.error(`bench: time limit of ${SETTINGS.timeLimit} s reached, stopping everything`);
  void cleanup().finally(() => process.exit(1));
}, SETTINGS.timeLimit * 1000);

async function main() {
  const startedAt = new Date();
  const bunVersion = Bun.version;
  const nodeVersion = spawnSync(["node", "--version"]).stdout.toString().trim();
  const autocannonVersion = JSON.parse(readFileSync(join(ROOT, "node_modules", "autocannon", "package.json"), "utf8")).version as string;
  const wantsPglite = SETTINGS.backends.includes("pglite");
  const wantsPostgres = SETTINGS.backends.includes("postgres");
  const pgInfo = wantsPostgres ? await postgresInfo() : null;
  const git = {
    commit: spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout.toString().trim(),
    /** Files outside bench/ that differ from that commit: the service measured is the working tree. */
    changed_outside_bench: spawnSync(["git", "status", "--porcelain", "--", ".", ":(exclude)bench"], { cwd: ROOT })
      .stdout.toString()
      .split("\n")
      .filter(Boolean).length,
  };
  const machine = {
    nproc: spawnSync(["nproc"]).stdout.toString().trim(),
    cpu: (readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) ?? [])[1] ?? "unknown",
    memory: (readFileSync("/proc/meminfo", "utf8").match(/MemTotal:\s*(.*)/) ?? [])[1] ?? "unknown",
  };

  console.log("Campaign Memory Service — HTTP load benchmark");
  console.log(`  machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memory}; bun ${bunVersion}; node ${nodeVersion}; autocannon ${autocannonVersion}`);
  console.log(`  code: commit ${git.commit.slice(0, 12)}, ${git.changed_outside_bench} file(s) outside bench/ changed in the working tree`);
  if (pgInfo) console.log(`  postgres: ${pgInfo.version} (max_connections=${pgInfo.max_connections}, shared_buffers=${pgInfo.shared_buffers})`);
  console.log(
    `  load: autocannon on node, separate process; ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s measured; connections ${SETTINGS.connections.join(", ")}; pipelining 1; header x-api-key; ${SETTINGS.repeat} round(s), median kept`,
  );
  console.log(
    `  service: HOST=127.0.0.1 LOG_LEVEL=${SETTINGS.logLevel}; on PostgreSQL DATABASE_POOL_SIZE=${SETTINGS.poolSize}; one-query ceiling POOL_SIZE=${SETTINGS.poolSize}`,
  );
  console.log(`  seed: 1 user, 1 key, 1 campaign to read + ${SETTINGS.campaigns} more (the list reads the default page of 20)\n`);

  // Every server is started and seeded first; they idle while another one is measured, so the
  // rounds can alternate between them and slow drifts of the machine hit all scenarios alike.
  // Within a round the service and the one-query ceiling run back to back at each connection count,
  // so their ratio is taken from neighbouring runs.
  type Scenario = { order: number; run: (round: number) => Promise<unknown> };
  const scenarios: Scenario[] = [];
  const serviceScenarios = (server: RunningServer, backend: "pglite" | "postgres", data: Seeded) => {
    for (const route of ["get", "list"] as const)
      SETTINGS.connections.forEach((c, i) =>
        scenarios.push({
          order: (backend === "pglite" ? 0 : 100) + (route === "get" ? 2 * i : 50 + i),
          run: () =>
            measure({
              scenario: `service ${backend} ${route === "get" ? "GET /v1/campaigns/{id}" : "GET /v1/campaigns"}`,
              target: "service",
              backend,
              server: server,
              path: route === "get" ? `/v1/campaigns/${data.campaignId}` : "/v1/campaigns",
              route: route === "get" ? "GET /v1/campaigns/{id}" : "GET /v1/campaigns",
              key: data.key,
              connections: c,
              settings: server.settings,
            }),
        }),
      );
  };

  let pglite: { server: RunningServer; data: Seeded } | null = null;
  if (wantsPglite) {
    console.log("[setup] service on embedded PGlite");
    const server = await startService({ name: "service-pglite", databaseUrl: null, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    pglite = { server, data: await seed(server.url) };
    serviceScenarios(server, "pglite", pglite.data);
  }

  let pg: { server: RunningServer; data: Seeded; oneQuery: RunningServer } | null = null;
  if (wantsPostgres) {
    scratch = await createScratchDatabase();
    ourDatabase = scratch.name;
    console.log(`[setup] service on PostgreSQL, database ${scratch.name}, DATABASE_POOL_SIZE=${SETTINGS.poolSize}`);
    const server = await startService({ name: "service-postgres", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    const data = await seed(server.url);
    serviceScenarios(server, "postgres", data);
    console.log(`[setup] one-query ceiling on the same database, POOL_SIZE=${SETTINGS.poolSize}`);
    const oneQuery = await startOneQuery(scratch.url, SETTINGS.poolSize);
    await checkSameAnswers("one-query ceiling", oneQuery, data);
    SETTINGS.connections.forEach((c, i) =>
      scenarios.push({
        order: 100 + 2 * i + 1,
        run: () =>
          measure({
            scenario: "ceiling one-query postgres",
            target: "ceiling-one-query",
            backend: "postgres",
            server: oneQuery,
            path: `/v1/campaigns/${data.campaignId}`,
            route: "GET /v1/campaigns/{id}",
            key: data.key,
            connections: c,
            settings: oneQuery.settings,
          }),
      }),
    );
    pg = { server, data, oneQuery };
  }

  const body = pg?.data.campaignBody ?? pglite?.data.campaignBody;
  const campaignId = pg?.data.campaignId ?? pglite?.data.campaignId;
  if (!body || !campaignId) throw new Error("no backend ran, so there is no body to serve");
  console.log("[setup] bare Bun.serve ceiling returning the captured campaign JSON");
  const bare = await startBare(body);
  SETTINGS.connections.forEach((c, i) =>
    scenarios.push({
      order: 200 + i,
      run: () =>
        measure({
          scenario: "ceiling bare Bun.serve",
          target: "ceiling-bare",
          backend: "none",
          server: bare,
          path: `/v1/campaigns/${campaignId}`,
          route: "GET /v1/campaigns/{id}",
          key: null,
          connections: c,
          settings: bare.settings,
        }),
    }),
  );
  scenarios.sort((a, b) => a.order - b.order);

  for (let round = 1; round <= SETTINGS.repeat; round++) {
    console.log(`\n[round ${round}/${SETTINGS.repeat}]`);
    for (const scenario of scenarios) await scenario.run(round);
  }

  if (pg && scratch && (SETTINGS.explore.length || SETTINGS.profile)) {
    const data = pg.data;
    const exploreMeasure = (server: RunningServer, scenario: string, target: string) =>
      measure({
        scenario,
        target,
        backend: "postgres",
        server: server,
        path: `/v1/campaigns/${data.campaignId}`,
        route: "GET /v1/campaigns/{id}",
        key: data.key,
        connections: MAX_CONNECTIONS,
        settings: server.settings,
      });
    console.log(`\n[explore] PostgreSQL, GET /v1/campaigns/{id} at ${MAX_CONNECTIONS} connections`);
    for (let round = 1; round <= SETTINGS.repeat; round++) {
      for (const pool of SETTINGS.explore) {
        const variant = await startService({ name: `service-postgres-pool${pool}`, databaseUrl: scratch.url, poolSize: pool, logLevel: SETTINGS.logLevel });
        await exploreMeasure(variant, `service postgres GET /v1/campaigns/{id} pool=${pool}`, "service");
        await stopChild(variant.child);
        const ceiling = await startOneQuery(scratch.url, pool);
        await exploreMeasure(ceiling, `ceiling one-query postgres pool=${pool}`, "ceiling-one-query");
        await stopChild(ceiling.child);
      }
      if (SETTINGS.explore.length) {
        const twoQueries = await startHandler("two-queries", scratch.url, SETTINGS.poolSize);
        if (round === 1) await checkSameAnswers("two-queries variant", twoQueries, data);
        await exploreMeasure(twoQueries, `variant two-queries postgres pool=${SETTINGS.poolSize}`, "variant-two-queries");
        await stopChild(twoQueries.child);
        const silent = await startService({ name: "service-postgres-silent", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: "silent" });
        await exploreMeasure(silent, "service postgres GET /v1/campaigns/{id} LOG_LEVEL=silent", "service");
        await stopChild(silent.child);
      }
    }
    if (SETTINGS.profile) {
      const profileDir = join(RESULTS_DIR, "profile");
      rmSync(profileDir, { recursive: true, force: true });
      mkdirSync(profileDir, { recursive: true });
      const profiled = await startService({
        name: "service-postgres-profiled",
        databaseUrl: scratch.url,
        poolSize: SETTINGS.poolSize,
        logLevel: SETTINGS.logLevel,
        profileDir,
      });
      await exploreMeasure(profiled, "service postgres GET /v1/campaigns/{id} (under cpu-prof)", "service");
      await stopChild(profiled.child);
      console.log(`  CPU profile written to ${profileDir}: ${readdirSync(profileDir).join(", ")}`);
    }
  }

  if (pg && scratch && SETTINGS.soak) {
    const data = pg.data;
    const soakMeasure = (server: RunningServer, scenario: string, target: string) =>
      measure({
        scenario,
        target,
        backend: "postgres",
        server,
        path: `/v1/campaigns/${data.campaignId}`,
        route: "GET /v1/campaigns/{id}",
        key: data.key,
        connections: MAX_CONNECTIONS,
        settings: server.settings,
      });
    console.log(`\n[soak] fresh processes, ${SETTINGS.soak} alternating runs each of GET /v1/campaigns/{id} at ${MAX_CONNECTIONS} connections, pool ${SETTINGS.poolSize}`);
    const service = await startService({ name: "service-postgres-soak", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    const ceiling = await startOneQuery(scratch.url, SETTINGS.poolSize);
    for (let run = 1; run <= SETTINGS.soak; run++) {
      await soakMeasure(service, "soak service postgres GET /v1/campaigns/{id}", "service");
      await soakMeasure(ceiling, "soak ceiling one-query postgres", "ceiling-one-query");
    }
    await stopChild(service.child);
    await stopChild(ceiling.child);
    const control = await startService({ name: "service-postgres-control", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    await soakMeasure(control, "soak control: another fresh service", "service");
    await stopChild(control.child);
  }

  console.log("\n[revocation] revoke the key with the admin key, then use it once more");
  for (const server of [pglite?.server, pg?.server, pg?.oneQuery]) if (server && !isRunning(server)) await server.relaunch();
  if (pglite) await checkRevocation("pglite", pglite.server.url, pglite.data);
  if (pg) await checkRevocation("postgres", pg.server.url, pg.data, [{ name: "one-query ceiling", url: pg.oneQuery.url }]);
  await stopAll();

  const summaries = summarize();
  console.log(`\nResults: medians over ${SETTINGS.repeat} round(s) of req/s, p50 and p99 (latency from exact response times); CPU µs per successful request, by process, from the median-req/s run\n`);
  printTable(summaries);

  const findSummary = (scenario: string) => summaries.find((m) => m.scenario === scenario && m.connections === MAX_CONNECTIONS);
  const ours = findSummary("service postgres GET /v1/campaigns/{id}");
  const ceiling = findSummary("ceiling one-query postgres");
  let target: Record<string, unknown> | null = null;
  if (ours && ceiling) {
    const ourRuns = measurements.filter((m) => m.connections === MAX_CONNECTIONS && m.scenario === ours.scenario);
    const ceilingRuns = measurements.filter((m) => m.connections === MAX_CONNECTIONS && m.scenario === ceiling.scenario);
    const perRound = ourRuns.map((m, i) => {
      const other = ceilingRuns[i];
      return other ? Math.round((1000 * m.requests_per_s) / other.requests_per_s) / 1000 : null;
    });
    // The verdict uses the median of the per-round ratios: each compares two neighbouring runs.
    const ratio = medianValue(perRound.filter((r): r is number => r !== null)) ?? 0;
    const ratioOfMedians = Math.round((1000 * ours.requests_per_s) / ceiling.requests_per_s) / 1000;
    const met = ratio >= 0.7 && ours.p99_ms !== null && ours.p99_ms < 15 && ours.valid && ceiling.valid;
    target = {
      statement: `on Postgres at ${MAX_CONNECTIONS} connections, our GET /v1/campaigns/{id} reaches at least 70% of the one-query handler's requests/s with p99 under 15 ms`,
      database_pool_size: SETTINGS.poolSize,
      service_requests_per_s: ours.requests_per_s,
      one_query_requests_per_s: ceiling.requests_per_s,
      ratio,
      ratio_per_round: perRound,
      ratio_of_medians: ratioOfMedians,
      service_p99_ms: ours.p99_ms,
      met,
    };
    console.log(
      `\nRatio service/one-query (PostgreSQL, GET /v1/campaigns/{id}, ${MAX_CONNECTIONS} connections, pool ${SETTINGS.poolSize}): ` +
        `median of per-round ratios ${(ratio * 100).toFixed(1)}% (rounds: ${perRound.map((r) => (r === null ? "-" : `${(r * 100).toFixed(1)}%`)).join(", ")}; ` +
        `ratio of medians ${ours.requests_per_s} / ${ceiling.requests_per_s} = ${(ratioOfMedians * 100).toFixed(1)}%); service p99 (median) ${fmt(ours.p99_ms)} ms`,
    );
    console.log(`Target (>= 70% and p99 < 15 ms): ${met ? "MET" : "NOT MET"}`);
  }

  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    machine: { ...machine, bun: bunVersion, node: nodeVersion, autocannon: autocannonVersion, postgres: pgInfo },
    git,
    settings: {
      duration_s: SETTINGS.duration,
      warmup_s: SETTINGS.warmup,
      connections: SETTINGS.connections,
      rounds: SETTINGS.repeat,
      service: { HOST: "127.0.0.1", LOG_LEVEL: SETTINGS.logLevel, DATABASE_POOL_SIZE: SETTINGS.poolSize },
      one_query_pool_size: SETTINGS.poolSize,
      seeded_campaigns: SETTINGS.campaigns + 1,
      explore_pool_sizes: SETTINGS.explore,
    },
    summary: summaries,
    ratio_postgres_get_by_id: target,
    revocation: revocationChecks,
    incidents,
    runs: measurements,
  };
  writeFileSync(join(RESULTS_DIR, "latest.json"), JSON.stringify(report, null, 2) + "\n");
  console.log(`\nwrote ${join(RESULTS_DIR, "latest.json")}`);
  if (incidents.length)
    console.log(`\n${incidents.length} server process(es) ended without being asked to during the run (see "incidents" in latest.json); runs they spoilt were repeated.`);
  const invalid = measurements.filter((m) => !m.valid);
  if (invalid.length) throw new Error(`${invalid.length} run(s) had failed requests: ${invalid.map((m) => m.scenario).join(", ")}`);
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  exitCode = 1;
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
process.exit(exitCode);
