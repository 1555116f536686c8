// What a run records: the machine and code measured, the summary table, and the JSON file in
// bench/results/ (git-ignored; the numbers worth keeping are copied into docs/benchmarks.md by hand).
import { spawnSync } from "bun";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR, ROOT } from "./env.ts";
import { measurements } from "./measure.ts";
import { postgresInfo } from "./postgres.ts";
import { incidents } from "./processes.ts";
import { revocationChecks } from "./revocation.ts";
import { fmt, ratioTarget, summarize, type Summary } from "./stats.ts";

export interface Host {
  machine: { nproc: string; cpu: string; memory: string; bun: string; node: string; autocannon: string; postgres: Record<string, string> | null };
  git: { commit: string; changed_outside_bench: number };
}

/** The machine, the tool versions and the commit measured; PostgreSQL's when `postgresUrl` is given. */
export async function describeHost(postgresUrl: string | null): Promise<Host> {
  const nodeVersion = spawnSync(["node", "--version"]).stdout.toString().trim();
  const autocannonVersion = JSON.parse(readFileSync(join(ROOT, "node_modules", "autocannon", "package.json"), "utf8")).version as string;
  const pgInfo = postgresUrl ? await postgresInfo(postgresUrl) : null;
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
  const host = { machine: { ...machine, bun: Bun.version, node: nodeVersion, autocannon: autocannonVersion, postgres: pgInfo }, git };
  console.log(`  machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memory}; bun ${Bun.version}; node ${nodeVersion}; autocannon ${autocannonVersion}`);
  console.log(`  code: commit ${git.commit.slice(0, 12)}, ${git.changed_outside_bench} file(s) outside bench/ changed in the working tree`);
  if (pgInfo) console.log(`  postgres: ${pgInfo.version} (max_connections=${pgInfo.max_connections}, shared_buffers=${pgInfo.shared_buffers})`);
  return host;
}

/** The summaries as a Markdown table (the form docs/benchmarks.md keeps). */
export function printTable(summaries: Summary[]) {
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

/** Writes bench/results/<file> (pretty JSON) and returns its path. */
export function writeResults(file: string, data: unknown, trailingNewline = true): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, file);
  writeFileSync(path, JSON.stringify(data, null, 2) + (trailingNewline ? "\n" : ""));
  return path;
}

/**
 * The end of an HTTP benchmark run: the summary table, the ratio target, and bench/results/latest.json
 * with every run; fails if any run had failed requests.
 */
export function recordHttpRun(run: { startedAt: Date; host: Host; rounds: number; maxConnections: number; poolSize: number; settings: Record<string, unknown> }) {
  const summaries = summarize(measurements);
  console.log(`\nResults: medians over ${run.rounds} round(s) of req/s, p50 and p99 (latency from exact response times); CPU µs per successful request, by process, from the median-req/s run\n`);
  printTable(summaries);
  const target = ratioTarget(summaries, measurements, run.maxConnections, run.poolSize);
  const path = writeResults("latest.json", {
    started_at: run.startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    ...run.host,
    settings: run.settings,
    summary: summaries,
    ratio_postgres_get_by_id: target,
    revocation: revocationChecks,
    incidents,
    runs: measurements,
  });
  console.log(`\nwrote ${path}`);
  if (incidents.length)
    console.log(`\n${incidents.length} server process(es) ended without being asked to during the run (see "incidents" in latest.json); runs they spoilt were repeated.`);
  const invalid = measurements.filter((m) => !m.valid);
  if (invalid.length) throw new Error(`${invalid.length} run(s) had failed requests: ${invalid.map((m) => m.scenario).join(", ")}`);
}
