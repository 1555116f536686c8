// A measurement of one scenario: a load run on a quiet machine, with the CPU time of every process
// around it, repeated when other processes disturbed it; every measurement is kept for the report.
import { cpuBetween, CLK_TCK, type CpuSnapshot, hostCalibrationMs, rssMiB, snapshot, waitForQuiet } from "./cpu.ts";
import { type LoadSummary, runLoadgen } from "./loadgen.ts";
import type { Seeded } from "./seed.ts";
import { isRunning, type RunningServer } from "./servers.ts";
import { fmt } from "./stats.ts";

export interface Measurement {
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

/** Every measurement of the run, in order. */
export const measurements: Measurement[] = [];

/** How each load run is done (BENCH_DURATION, BENCH_WARMUP, BENCH_ATTEMPTS, BENCH_QUIET_WAIT). */
export interface RunSettings {
  duration: number;
  warmup: number;
  attempts: number;
  quietWait: number;
}

/** A route of the seeded data: where it is, how it is reported, and the key sent. */
export interface Route {
  path: string;
  route: string;
  key: string | null;
}
export const readRoute = (data: Seeded, key: string | null = data.key): Route => ({ path: `/v1/campaigns/${data.campaignId}`, route: "GET /v1/campaigns/{id}", key });
export const listRoute = (data: Seeded): Route => ({ path: "/v1/campaigns", route: "GET /v1/campaigns", key: data.key });

export interface MeasureOptions extends Route {
  scenario: string;
  target: string;
  backend: Measurement["backend"];
  server: RunningServer;
  connections: number;
  run: RunSettings;
}

/** Above this many cores used by other processes, a measurement is retried. */
const FOREIGN_LIMIT = 0.1;

/** One load run: warm-up, then the measured part, with the CPU time of every process around it. */
async function measureOnce(options: MeasureOptions): Promise<Measurement> {
  let before: CpuSnapshot | null = null;
  let after: CpuSnapshot | null = null;
  const serverPid = options.server.child.proc.pid;
  const load = await runLoadgen(
    {
      url: `${options.server.url}${options.path}`,
      connections: options.connections,
      duration: options.run.duration,
      warmup: options.run.warmup,
      headers: options.key ? { "x-api-key": options.key } : {},
    },
    { onMeasureStart: (loadgenPid) => (before = snapshot(serverPid, loadgenPid)), onResult: (loadgenPid) => (after = snapshot(serverPid, loadgenPid)) },
  );
  if (before === null || after === null) throw new Error("load generator finished without marking its measured part");
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
    settings: options.server.settings,
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
    server_rss_mib: rssMiB(serverPid),
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
 * Measures a scenario on a quiet machine: waits for other processes to calm down, and repeats a
 * run that other processes disturbed (up to BENCH_ATTEMPTS runs; the last one is kept, flagged).
 * A server that died is started again first.
 */
export async function measure(options: MeasureOptions): Promise<Measurement> {
  const { attempts, quietWait } = options.run;
  let m: Measurement | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (!isRunning(options.server)) await options.server.relaunch();
    await waitForQuiet(quietWait);
    const calibration = hostCalibrationMs();
    m = await measureOnce(options);
    m.attempts = attempt;
    m.host_calibration_ms = calibration;
    if (!isRunning(options.server)) {
      m.problems.push(`${options.server.name} ended during the run`);
      m.valid = false;
      console.log(`  (${options.server.name} ended during the run${attempt < attempts ? "; measuring again" : ""})`);
      continue;
    }
    if (!m.disturbed) break;
    console.log(`  (run disturbed: other processes used ${m.cpu.foreign_cores} cores during it${attempt < attempts ? "; measuring again" : ""})`);
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
