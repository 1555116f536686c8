// One load run: autocannon on Node in its own process (bench/loadgen.mjs), never inside the server,
// bounded in time.
import { join } from "node:path";
import { BENCH_DIR } from "./env.ts";
import { spawnChild, stopChild } from "./processes.ts";

/** What bench/loadgen.mjs prints on its "result" line (the fields the bench reads). */
export interface LoadSummary {
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

export interface LoadConfig {
  url: string;
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Seconds of the same load before, discarded. */
  warmup: number;
  headers: Record<string, string>;
}

export interface LoadHooks {
  /** The warm-up is over; the measured part starts now. */
  onMeasureStart?(loadgenPid: number): void;
  /** The measured part is over. */
  onResult?(loadgenPid: number): void;
}

/** Runs the load generator; it is killed if it overruns its duration and warm-up by 45 s. */
export async function runLoadgen(config: LoadConfig, hooks: LoadHooks = {}): Promise<LoadSummary> {
  let resultLine: string | null = null;
  const loadgen = spawnChild("loadgen", ["node", join(BENCH_DIR, "loadgen.mjs"), JSON.stringify(config)], {}, {
    onStdoutLine: (line) => {
      if (line === "phase measure") hooks.onMeasureStart?.(loadgen.proc.pid);
      else if (line.startsWith("result ")) {
        resultLine = line.slice("result ".length);
        hooks.onResult?.(loadgen.proc.pid);
      }
    },
  });
  const limit = (config.duration + config.warmup + 45) * 1000;
  const finished = await Promise.race([loadgen.proc.exited.then(() => true), Bun.sleep(limit).then(() => false)]);
  if (!finished) {
    await stopChild(loadgen);
    throw new Error(`load generator did not finish within ${limit / 1000} s: ${loadgen.output()}`);
  }
  // Let the stdout reader deliver the last lines.
  for (let i = 0; i < 50 && resultLine === null; i++) await Bun.sleep(20);
  if (loadgen.proc.exitCode !== 0 || resultLine === null) throw new Error(`load generator failed (exit ${loadgen.proc.exitCode}): ${loadgen.output()}`);
  return JSON.parse(resultLine) as LoadSummary;
}
