// Paths every bench script uses, and the readers of its BENCH_* settings (bad values stop the run).
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const BENCH_DIR = join(ROOT, "bench");
export const RESULTS_DIR = join(BENCH_DIR, "results");
export const BUN = process.execPath;

export const env = (name: string, fallback: string) => process.env[name]?.trim() || fallback;

export const intEnv = (name: string, fallback: number, min: number, max: number): number => {
  const value = Number(env(name, String(fallback)));
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return value;
};

export const intList = (name: string, fallback: string, min: number, max: number): number[] =>
  env(name, fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const value = Number(s);
      if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name}: ${s} is not a whole number from ${min} to ${max}`);
      return value;
    });

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The bench only ever creates databases on this machine. */
export function assertLocalPostgres(name: string, url: string) {
  const host = new URL(url).hostname;
  if (!LOCAL_HOSTS.has(host)) throw new Error(`${name} must point at this machine (got ${host})`);
}
