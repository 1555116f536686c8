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
//   BENCH_POOL_SIZE=10         DATABASE_POOL_SIZE of the service and POOL_SIZE of the one-query ceiling
//   BENCH_LOG_LEVEL=warn       LOG_LEVEL of the service in the main scenarios
//   BENCH_CAMPAIGNS=50         campaigns created for the list, besides the one that is read
//   BENCH_BACKENDS=pglite,postgres
//   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test   server on which cms_bench_* is created
//   BENCH_EXPLORE=             e.g. "5,20,40": extra PostgreSQL runs of GET /v1/campaigns/{id} at the
//                              highest connection count: the service at these pool sizes, the service
//                              with LOG_LEVEL=silent, and the one-query ceiling at these pool sizes
//   BENCH_PROFILE=             "1": one extra run of the service (PostgreSQL) under `bun --cpu-prof-md`,
//                              profile written to bench/results/profile/
//   BENCH_TIME_LIMIT=1800      seconds after which everything is stopped and the run fails
import { spawnSync, type Subprocess } from "bun";
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
  poolSize: intEnv("BENCH_POOL_SIZE", 10, 1, 90),
  logLevel: env("BENCH_LOG_LEVEL", "warn"),
  campaigns: intEnv("BENCH_CAMPAIGNS", 50, 0, 1000),
  backends: env("BENCH_BACKENDS", "pglite,postgres").split(",").map((s) => s.trim()).filter(Boolean),
  postgresUrl: env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test"),
  explore: intList("BENCH_EXPLORE", "", 1, 90),
  profile: env("BENCH_PROFILE", "") === "1",
  timeLimit: intEnv("BENCH_TIME_LIMIT", 1800, 30, 7200),
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
}
const children = new Set<Child>();

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
  const child: Child = { name, proc, output: () => output };
  children.add(child);
  void proc.exited.then(() => children.delete(child));
  return child;
}

async function stopChild(child: Child) {
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

const procTicks = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
};

/** All PostgreSQL server processes on this machine (backends included). */
const postgresTicks = (): number => {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== "postgres") continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return total;
};

const machineTicks = (): { busy: number; total: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
};

interface CpuSnapshot {
  server: number;
  postgres: number;
  loadgen: number;
  machine: { busy: number; total: number };
  at: number;
}
const snapshot = (serverPid: number, loadgenPid: number): CpuSnapshot => ({
  server: procTicks(serverPid),
  postgres: postgresTicks(),
  loadgen: procTicks(loadgenPid),
  machine: machineTicks(),
  at: performance.now(),
});

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
  cpu: {
    /** CPU microseconds per successful request, by process. */
    server_us_per_req: number;
    postgres_us_per_req: number | null;
    loadgen_us_per_req: number;
    /** Share of both cores busy during the measurement (all processes on the machine). */
    machine_busy_pct: number;
  };
  load: LoadSummary;
}

const measurements: Measurement[] = [];

async function measure(options: {
  scenario: string;
  target: string;
  backend: Measurement["backend"];
  server: Child;
  baseUrl: string;
  path: string;
  route: string;
  key: string | null;
  connections: number;
  settings: Record<string, string | number>;
}): Promise<Measurement> {
  const config = {
    url: `${options.baseUrl}${options.path}`,
    connections: options.connections,
    duration: SETTINGS.duration,
    warmup: SETTINGS.warmup,
    headers: options.key ? { "x-api-key": options.key } : {},
  };
  let before: CpuSnapshot | null = null;
  let resultLine: string | null = null;
  const loadgen = spawnChild("loadgen", ["node", join(import.meta.dir, "loadgen.mjs"), JSON.stringify(config)], {}, (line) => {
    if (line === "phase measure") before = snapshot(options.server.proc.pid, loadgen.proc.pid);
    else if (line.startsWith("result ")) {
      resultLine = line.slice("result ".length);
      after = snapshot(options.server.proc.pid, loadgen.proc.pid);
    }
  });
  let after: CpuSnapshot | null = null;
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
  const problems: string[] = [];
  if (load.non2xx) problems.push(`${load.non2xx} non-2xx responses (${JSON.stringify(load.statuses)})`);
  if (load.errors) problems.push(`${load.errors} connection errors`);
  if (load.timeouts) problems.push(`${load.timeouts} timeouts`);
  if (!load.ok_total) problems.push("no successful response");
  const m: Measurement = {
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
    cpu: {
      server_us_per_req: perReq(a.server - b.server),
      postgres_us_per_req: options.backend === "pglite" ? null : perReq(a.postgres - b.postgres),
      loadgen_us_per_req: perReq(a.loadgen - b.loadgen),
      machine_busy_pct: Math.round((1000 * (a.machine.busy - b.machine.busy)) / Math.max(1, a.machine.total - b.machine.total)) / 10,
    },
    load,
  };
  measurements.push(m);
  console.log(
    `  ${m.scenario.padEnd(34)} c=${String(m.connections).padStart(3)}  ${String(m.requests_per_s).padStart(8)} req/s` +
      `  p50 ${fmt(m.p50_ms)} ms  p99 ${fmt(m.p99_ms)} ms  cpu/req: server ${m.cpu.server_us_per_req} µs` +
      (m.cpu.postgres_us_per_req === null ? "" : `, postgres ${m.cpu.postgres_us_per_req} µs`) +
      `, loadgen ${m.cpu.loadgen_us_per_req} µs; machine busy ${m.cpu.machine_busy_pct}%` +
      (m.valid ? "" : `  INVALID: ${problems.join("; ")}`),
  );
  return m;
}

const fmt = (value: number | null) => (value === null ? "-" : value.toFixed(2));

// ---------------------------------------------------------------------------------------------
// The service, seeded through its HTTP API.

interface RunningServer {
  child: Child;
  url: string;
  settings: Record<string, string | number>;
}

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
  const port = freePort();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "cms-bench-"));
  if (!options.dataDir) tempDirs.push(dataDir);
  const serviceEnv: Record<string, string> = {
    PORT: String(port),
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
  const child = spawnChild(options.name, [BUN, ...profileFlags, join(ROOT, "infra", "main.ts")], serviceEnv);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(child, url);
  const settings: Record<string, string | number> = {
    backend: options.databaseUrl ? "postgres" : "pglite",
    HOST: "127.0.0.1",
    LOG_LEVEL: options.logLevel,
  };
  if (options.databaseUrl) settings.DATABASE_POOL_SIZE = options.poolSize;
  if (options.profileDir) settings.profile = "bun --cpu-prof-md";
  return { child, url, settings };
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

async function measureService(server: RunningServer, backend: "pglite" | "postgres", data: Seeded, scenarioSuffix = "", connections = SETTINGS.connections, routes: ("get" | "list")[] = ["get", "list"]) {
  for (const route of routes)
    for (const c of connections)
      await measure({
        scenario: `service ${backend} ${route === "get" ? "GET /v1/campaigns/{id}" : "GET /v1/campaigns"}${scenarioSuffix}`,
        target: "service",
        backend,
        server: server.child,
        baseUrl: server.url,
        path: route === "get" ? `/v1/campaigns/${data.campaignId}` : "/v1/campaigns",
        route: route === "get" ? "GET /v1/campaigns/{id}" : "GET /v1/campaigns",
        key: data.key,
        connections: c,
        settings: server.settings,
      });
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
  const port = freePort();
  const dir = mkdtempSync(join(tmpdir(), "cms-bench-body-"));
  tempDirs.push(dir);
  const bodyFile = join(dir, "campaign.json");
  writeFileSync(bodyFile, body);
  const child = spawnChild("ceiling-bare", [BUN, join(import.meta.dir, "ceiling-bare.ts")], { PORT: String(port), BODY_FILE: bodyFile });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(child, url);
  return { child, url, settings: { handler: "Bun.serve, fixed body" } };
}

async function startOneQuery(databaseUrl: string, poolSize: number): Promise<RunningServer> {
  const port = freePort();
  const child = spawnChild("ceiling-one-query", [BUN, join(import.meta.dir, "ceiling-one-query.ts")], {
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    POOL_SIZE: String(poolSize),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(child, url);
  return { child, url, settings: { handler: "Bun.serve + one postgres.js query", POOL_SIZE: poolSize } };
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

function printTable() {
  const header = ["scenario", "conns", "req/s", "p50 ms", "p99 ms", "server µs/req", "pg µs/req", "loadgen µs/req", "busy %", "settings"];
  const rows = measurements.map((m) => [
    m.scenario + (m.valid ? "" : " (INVALID)"),
    String(m.connections),
    m.requests_per_s.toFixed(0),
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
  const line = (cells: string[]) => "| " + cells.map((c, i) => (i >= 1 && i <= 8 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w, i) => (i >= 1 && i <= 8 ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

const find = (scenario: string, connections: number) => measurements.find((m) => m.scenario === scenario && m.connections === connections);

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
  const wantsPostgres = SETTINGS.backends.includes("postgres");
  const pgInfo = wantsPostgres ? await postgresInfo() : null;
  const machine = {
    nproc: spawnSync(["nproc"]).stdout.toString().trim(),
    cpu: (readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) ?? [])[1] ?? "unknown",
    memory: (readFileSync("/proc/meminfo", "utf8").match(/MemTotal:\s*(.*)/) ?? [])[1] ?? "unknown",
  };

  console.log("Campaign Memory Service — HTTP load benchmark");
  console.log(`  machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memory}; bun ${bunVersion}; node ${nodeVersion}; autocannon ${autocannonVersion}`);
  if (pgInfo) console.log(`  postgres: ${pgInfo.version} (max_connections=${pgInfo.max_connections}, shared_buffers=${pgInfo.shared_buffers})`);
  console.log(
    `  load: autocannon on node, separate process; ${SETTINGS.warmup} s warm-up then ${SETTINGS.duration} s measured; connections ${SETTINGS.connections.join(", ")}; pipelining 1; header x-api-key`,
  );
  console.log(
    `  service: HOST=127.0.0.1 LOG_LEVEL=${SETTINGS.logLevel}; PostgreSQL runs with DATABASE_POOL_SIZE=${SETTINGS.poolSize}; one-query ceiling POOL_SIZE=${SETTINGS.poolSize}`,
  );
  console.log(`  seed: 1 user, 1 key, 1 campaign to read + ${SETTINGS.campaigns} more (list reads the default page of 20)\n`);

  let capturedBody: string | null = null;
  let postgresData: Seeded | null = null;

  if (SETTINGS.backends.includes("pglite")) {
    console.log("[pglite] starting the service (embedded PGlite)");
    const server = await startService({ name: "service-pglite", databaseUrl: null, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    const data = await seed(server.url);
    capturedBody = data.campaignBody;
    await measureService(server, "pglite", data);
    await checkRevocation("pglite", server.url, data);
    await stopChild(server.child);
  }

  if (wantsPostgres) {
    scratch = await createScratchDatabase();
    console.log(`[postgres] database ${scratch.name}; starting the service with DATABASE_POOL_SIZE=${SETTINGS.poolSize}`);
    const server = await startService({ name: "service-postgres", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    postgresData = await seed(server.url);
    capturedBody = postgresData.campaignBody;
    await measureService(server, "postgres", postgresData);
    await stopChild(server.child);
  }

  if (!capturedBody) throw new Error("no backend ran, so there is no body to serve");

  console.log("[ceiling] bare Bun.serve returning the captured campaign JSON");
  {
    const bare = await startBare(capturedBody);
    for (const c of SETTINGS.connections)
      await measure({
        scenario: "ceiling bare Bun.serve",
        target: "ceiling-bare",
        backend: "none",
        server: bare.child,
        baseUrl: bare.url,
        path: `/v1/campaigns/${postgresData?.campaignId ?? "x"}`,
        route: "GET /v1/campaigns/{id}",
        key: null,
        connections: c,
        settings: bare.settings,
      });
    await stopChild(bare.child);
  }

  if (wantsPostgres && scratch && postgresData) {
    console.log(`[ceiling] one-query handler (postgres.js, POOL_SIZE=${SETTINGS.poolSize})`);
    const data: Seeded = postgresData;
    const oneQuery = await startOneQuery(scratch.url, SETTINGS.poolSize);
    const same = await call(`${oneQuery.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": data.key } });
    if (same.status !== 200 || same.text !== data.campaignBody)
      throw new Error(`one-query handler does not answer like the service: ${same.status} ${same.text} vs ${data.campaignBody}`);
    const bad = await call(`${oneQuery.url}/v1/campaigns/${data.campaignId}`, { headers: { "x-api-key": "cms_not_a_real_key_0000000000" } });
    const missing = await call(`${oneQuery.url}/v1/campaigns/nope`, { headers: { "x-api-key": data.key } });
    if (bad.status !== 401 || missing.status !== 404) throw new Error(`one-query handler: bad key -> ${bad.status}, missing -> ${missing.status}`);
    console.log("  one-query handler body is byte-identical to the service's; bad key -> 401, unknown id -> 404");
    for (const c of SETTINGS.connections)
      await measure({
        scenario: "ceiling one-query postgres",
        target: "ceiling-one-query",
        backend: "postgres",
        server: oneQuery.child,
        baseUrl: oneQuery.url,
        path: `/v1/campaigns/${data.campaignId}`,
        route: "GET /v1/campaigns/{id}",
        key: data.key,
        connections: c,
        settings: oneQuery.settings,
      });
    await stopChild(oneQuery.child);

    if (SETTINGS.explore.length || SETTINGS.profile) {
      console.log(`[explore] PostgreSQL, GET /v1/campaigns/{id} at ${MAX_CONNECTIONS} connections`);
      for (const pool of SETTINGS.explore) {
        const variant = await startService({ name: `service-postgres-pool${pool}`, databaseUrl: scratch.url, poolSize: pool, logLevel: SETTINGS.logLevel });
        await measureService(variant, "postgres", data, ` pool=${pool}`, [MAX_CONNECTIONS], ["get"]);
        await stopChild(variant.child);
        const ceiling = await startOneQuery(scratch.url, pool);
        await measure({
          scenario: `ceiling one-query postgres pool=${pool}`,
          target: "ceiling-one-query",
          backend: "postgres",
          server: ceiling.child,
          baseUrl: ceiling.url,
          path: `/v1/campaigns/${data.campaignId}`,
          route: "GET /v1/campaigns/{id}",
          key: data.key,
          connections: MAX_CONNECTIONS,
          settings: ceiling.settings,
        });
        await stopChild(ceiling.child);
      }
      if (SETTINGS.explore.length) {
        const silent = await startService({ name: "service-postgres-silent", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: "silent" });
        await measureService(silent, "postgres", data, " LOG_LEVEL=silent", [MAX_CONNECTIONS], ["get"]);
        await stopChild(silent.child);
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
        await measureService(profiled, "postgres", data, " (cpu-prof)", [MAX_CONNECTIONS], ["get"]);
        await stopChild(profiled.child);
        console.log(`  CPU profile written to ${profileDir}: ${readdirSync(profileDir).join(", ")}`);
      }
    }

    console.log("[revocation] restarting the PostgreSQL service; the one-query handler runs beside it");
    const service = await startService({ name: "service-postgres-revoke", databaseUrl: scratch.url, poolSize: SETTINGS.poolSize, logLevel: SETTINGS.logLevel });
    const ceiling = await startOneQuery(scratch.url, SETTINGS.poolSize);
    await checkRevocation("postgres", service.url, data, [{ name: "one-query", url: ceiling.url }]);
    await stopChild(ceiling.child);
    await stopChild(service.child);
  }

  console.log("\nResults (latency percentiles from exact response times; CPU µs per successful request, by process)\n");
  printTable();

  const ours = find("service postgres GET /v1/campaigns/{id}", MAX_CONNECTIONS);
  const ceiling = find("ceiling one-query postgres", MAX_CONNECTIONS);
  let target: Record<string, unknown> | null = null;
  if (ours && ceiling) {
    const ratio = Math.round((1000 * ours.requests_per_s) / ceiling.requests_per_s) / 1000;
    const met = ratio >= 0.7 && ours.p99_ms !== null && ours.p99_ms < 15 && ours.valid && ceiling.valid;
    target = {
      statement: `on Postgres at ${MAX_CONNECTIONS} connections, our GET /v1/campaigns/{id} reaches at least 70% of the one-query handler's requests/s with p99 under 15 ms`,
      service_requests_per_s: ours.requests_per_s,
      one_query_requests_per_s: ceiling.requests_per_s,
      ratio,
      service_p99_ms: ours.p99_ms,
      met,
    };
    console.log(
      `\nRatio service/one-query (PostgreSQL, GET /v1/campaigns/{id}, ${MAX_CONNECTIONS} connections, pool ${SETTINGS.poolSize}): ` +
        `${ours.requests_per_s} / ${ceiling.requests_per_s} = ${(ratio * 100).toFixed(1)}%; service p99 ${fmt(ours.p99_ms)} ms`,
    );
    console.log(`Target (>= 70% and p99 < 15 ms): ${met ? "MET" : "NOT MET"}`);
  }

  const invalid = measurements.filter((m) => !m.valid);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    machine: { ...machine, bun: bunVersion, node: nodeVersion, autocannon: autocannonVersion, postgres: pgInfo },
    settings: {
      duration_s: SETTINGS.duration,
      warmup_s: SETTINGS.warmup,
      connections: SETTINGS.connections,
      service: { HOST: "127.0.0.1", LOG_LEVEL: SETTINGS.logLevel, DATABASE_POOL_SIZE: SETTINGS.poolSize },
      one_query_pool_size: SETTINGS.poolSize,
      seeded_campaigns: SETTINGS.campaigns + 1,
      explore_pool_sizes: SETTINGS.explore,
    },
    results: measurements,
    ratio_postgres_get_64: target,
    revocation: revocationChecks,
  };
  writeFileSync(join(RESULTS_DIR, "latest.json"), JSON.stringify(report, null, 2) + "\n");
  console.log(`\nwrote ${join(RESULTS_DIR, "latest.json")}`);
  if (invalid.length) throw new Error(`${invalid.length} measurement(s) had failed requests: ${invalid.map((m) => m.scenario).join(", ")}`);
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
