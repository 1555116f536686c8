// CPU accounting from /proc: where the CPU time of a measurement went, whether other processes on
// this shared machine were busy, and how fast the CPU was at that moment.
import { spawnSync } from "bun";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { ownPids } from "./processes.ts";

export const CLK_TCK = Number(spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** The scratch database's name, so its PostgreSQL backends count as ours and others' as foreign. */
let ourDatabase: string | null = null;
export const countDatabaseAsOurs = (name: string) => void (ourDatabase = name);

export type CpuClass = "server" | "postgres" | "loadgen" | "own" | "foreign";

export interface CpuSnapshot {
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
export function snapshot(serverPid: number, loadgenPid: number): CpuSnapshot {
  const own = ownPids();
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
    const ticks = Number(fields[11]) + Number(fields[12]);
    const withChildren = ticks + Number(fields[13]) + Number(fields[14]);
    let cls: CpuClass;
    if (pid === serverPid) cls = "server";
    else if (pid === loadgenPid) cls = "loadgen";
    else if (own.has(pid)) cls = "own";
    else if (comm === "postgres") {
      let cmdline = "";
      try {
        cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {}
      const clientBackend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(cmdline);
      cls = !clientBackend || (ourDatabase !== null && cmdline.includes(` ${ourDatabase} `)) ? "postgres" : "foreign";
    } else cls = "foreign";
    processes.set(pid, { cls, ticks: cls === "foreign" ? withChildren : ticks });
  }
  return { processes, machine: machineTicks(), at: performance.now() };
}

/** CPU ticks used between two snapshots, by class; a process born in between counts from zero. */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): Record<CpuClass, number> {
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

/** Waits (up to `maxSeconds`) until processes outside the benchmark have been quiet (< 0.05 core) for 2 s in a row. */
export async function waitForQuiet(maxSeconds: number): Promise<number> {
  const started = Date.now();
  let quiet = 0;
  let announced = false;
  while (Date.now() - started < maxSeconds * 1000) {
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
  console.log(`  (other processes stayed busy for ${maxSeconds} s; measuring anyway)`);
  return (Date.now() - started) / 1000;
}

/**
 * A fixed single-threaded workload (20,000 SHA-256 digests), timed just before a run: the same
 * machine, idle, has been seen to take anywhere from 1x to 2x as long from one second to the next
 * (a virtual machine sharing its host), so this tells how fast the CPU was when a run started.
 */
export function hostCalibrationMs(): number {
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += createHash("sha256").update(`cms_${i}`).digest()[0]!;
  return Math.round((performance.now() - started + (sink < 0 ? 1 : 0)) * 10) / 10;
}

/** Resident memory of a process (VmRSS), in MiB; null once it is gone. */
export const rssMiB = (pid: number): number | null => {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s*(\d+) kB/);
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
};
