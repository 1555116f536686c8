// Statistics over the runs: medians per scenario, and the per-round ratio the target is about.
import { readFileSync } from "node:fs";
import type { Measurement } from "./measure.ts";

export const fmt = (value: number | null) => (value === null ? "-" : value.toFixed(2));

/** The median; for an even count, the mean of the two middle values; rounded to `digits`. */
export function medianValue(values: number[], digits = 2): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

export interface Summary {
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

/** Groups the runs of each scenario: medians of req/s, p50 and p99; CPU figures of the median-req/s run. */
export function summarize(measurements: Measurement[]): Summary[] {
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

/**
 * The target: on PostgreSQL at the highest connection count, the service's GET /v1/campaigns/{id}
 * reaches at least 70 % of the one-query ceiling's requests/s with p99 under 15 ms. Judged on the
 * median of the per-round ratios (each compares two neighbouring runs); printed; null when either
 * side was not measured.
 */
export function ratioTarget(summaries: Summary[], measurements: Measurement[], connections: number, poolSize: number): Record<string, unknown> | null {
  const find = (scenario: string) => summaries.find((m) => m.scenario === scenario && m.connections === connections);
  const ours = find("service postgres GET /v1/campaigns/{id}");
  const ceiling = find("ceiling one-query postgres");
  if (!ours || !ceiling) return null;
  const runsOf = (scenario: string) => measurements.filter((m) => m.connections === connections && m.scenario === scenario);
  const ceilingRuns = runsOf(ceiling.scenario);
  const perRound = runsOf(ours.scenario).map((m, i) => {
    const other = ceilingRuns[i];
    return other ? Math.round((1000 * m.requests_per_s) / other.requests_per_s) / 1000 : null;
  });
  const ratio = medianValue(perRound.filter((r): r is number => r !== null)) ?? 0;
  const ratioOfMedians = Math.round((1000 * ours.requests_per_s) / ceiling.requests_per_s) / 1000;
  const met = ratio >= 0.7 && ours.p99_ms !== null && ours.p99_ms < 15 && ours.valid && ceiling.valid;
  console.log(
    `\nRatio service/one-query (PostgreSQL, GET /v1/campaigns/{id}, ${connections} connections, pool ${poolSize}): ` +
      `median of per-round ratios ${(ratio * 100).toFixed(1)}% (rounds: ${perRound.map((r) => (r === null ? "-" : `${(r * 100).toFixed(1)}%`)).join(", ")}; ` +
      `ratio of medians ${ours.requests_per_s} / ${ceiling.requests_per_s} = ${(ratioOfMedians * 100).toFixed(1)}%); service p99 (median) ${fmt(ours.p99_ms)} ms`,
  );
  console.log(`Target (>= 70% and p99 < 15 ms): ${met ? "MET" : "NOT MET"}`);
  return {
    statement: `on Postgres at ${connections} connections, our GET /v1/campaigns/{id} reaches at least 70% of the one-query handler's requests/s with p99 under 15 ms`,
    database_pool_size: poolSize,
    service_requests_per_s: ours.requests_per_s,
    one_query_requests_per_s: ceiling.requests_per_s,
    ratio,
    ratio_per_round: perRound,
    ratio_of_medians: ratioOfMedians,
    service_p99_ms: ours.p99_ms,
    met,
  };
}

// The Ask benchmarks' figures (bench/ask*.ts).
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The p-th percentile of ascending `sorted` (nearest rank). */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** This process's peak resident memory, MB. */
export const peakMb = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024);
