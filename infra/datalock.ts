// PGlite is one process's database: a lock in DATA_DIR keeps a second server or CLI out.
//
// Two parts. On Linux the lock proper is an abstract-namespace socket named after the folder: the
// kernel gives it to one process only and takes it back the moment that process dies (kill -9,
// zombie or not), so taking it is atomic and a crash never leaves it behind. The lock file says
// who holds the folder (pid, port: the CLI forwards to that server) and is the lock where the
// socket is unavailable; its holder counts as alive only if a process with that pid exists, is not
// a zombie, and started when the holder did (a reused pid is another process).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface LockHolder {
  pid: number;
  port: number | null;
  started_at: string;
  /** Field 22 of /proc/<pid>/stat: the process start time in clock ticks since boot (Linux). */
  start_ticks?: number | null;
  /** /proc/sys/kernel/random/boot_id: start ticks only compare within one boot. */
  boot_id?: string | null;
}

export const lockPath = (dataDir: string) => join(dataDir, "cms.lock");

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

const HAS_PROC = existsSync("/proc/self/stat");

/** State and start ticks of a process; null when there is no such process. */
export function processFacts(pid: number): { state: string; startTicks: number } | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0]!, startTicks: Number(fields[19]) };
}

const currentBootId = () => readText("/proc/sys/kernel/random/boot_id")?.trim() ?? null;

/** Wall-clock time the system booted, for lock files written before start ticks were recorded. */
const bootTimeMs = () => Number(/^btime (\d+)$/m.exec(readText("/proc/stat") ?? "")?.[1] ?? NaN) * 1000;
/** USER_HZ, the unit of start ticks: 100 on every Linux architecture that matters. */
const TICKS_PER_SECOND = 100;

/** Whether the process a lock file names still runs. */
export function holderAlive(holder: LockHolder): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(holder.pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  const facts = processFacts(holder.pid);
  if (!facts || facts.state === "Z" || facts.state === "X") return false;
  const boot = currentBootId();
  if (holder.boot_id && boot && holder.boot_id !== boot) return false;
  if (holder.start_ticks != null) return facts.startTicks === holder.start_ticks;
  // An older lock file: a process that started after the lock was written only reused the pid.
  const startedMs = bootTimeMs() + (facts.startTicks / TICKS_PER_SECOND) * 1000;
  return !(startedMs > Date.parse(holder.started_at) + 2000);
}

const readHolder = (dataDir: string): LockHolder | null => {
  try {
    return JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as LockHolder;
  } catch {
    return null;
  }
};

/** The live process holding the data folder, if any. */
export function lockHolder(dataDir: string): LockHolder | null {
  const holder = readHolder(dataDir);
  return holder && typeof holder.pid === "number" && holder.pid !== process.pid && holderAlive(holder) ? holder : null;
}

export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(
      holder
        ? `DATA_DIR ${dataDir} is in use by process ${holder.pid}${holder.port ? ` (serving on port ${holder.port})` : ""}`
        : `DATA_DIR ${dataDir} is in use by another process (it is starting or stopping)`,
    );
  }
}

/** The folder's socket lock (or `part` of it): held, "busy", or null where abstract sockets are not available. */
function holdFolderSocket(dataDir: string, part = ""): { stop(): void } | "busy" | null {
  if (process.platform !== "linux" || typeof Bun === "undefined") return null;
  const { dev, ino } = statSync(dataDir);
  try {
    const listener = Bun.listen({ unix: `\0campaign-memory-service/${dev}/${ino}${part}`, socket: { open: (socket) => void socket.end(), data() {} } });
    listener.unref(); // a lock must not keep the process running
    return listener;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EADDRINUSE" ? "busy" : null;
  }
}

/** Takes the data folder for this process; returns the release function. */
export function acquireDataDir(dataDir: string, port: number | null): () => void {
  mkdirSync(dataDir, { recursive: true });
  const socket = holdFolderSocket(dataDir);
  if (socket === "busy") throw new DataDirBusy(dataDir, readHolder(dataDir));
  // A migration process of a holder that died may still be finishing (it exits when it notices).
  const migrating = holdFolderSocket(dataDir, MIGRATING);
  if (migrating === "busy") {
    socket?.stop();
    throw new DataDirBusy(dataDir, null);
  }
  migrating?.stop();
  const path = lockPath(dataDir);
  const self = processFacts(process.pid);
  const record: LockHolder = { pid: process.pid, port, started_at: new Date().toISOString(), start_ticks: self?.startTicks ?? null, boot_id: currentBootId() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify(record));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
        socket?.stop();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        socket?.stop();
        throw error;
      }
      // Also the lock of a process that does not use the socket (an older version of the service).
      const holder = lockHolder(dataDir);
      if (holder) {
        socket?.stop();
        throw new DataDirBusy(dataDir, holder);
      }
      rmSync(path, { force: true }); // left behind by a process that is gone
    }
  }
  socket?.stop();
  throw new Error(`could not take the lock ${path}`);
}

const MIGRATING = "/migrating";

/**
 * Held by the process that migrates the folder on its holder's behalf (infra/migrate-pglite.ts)
 * for its whole life, and refused while the holder is gone: whoever takes the folder after the
 * holder died waits until that process has exited too. Null where abstract sockets are not available.
 */
export function holdMigrationGuard(dataDir: string, holderPid: number): { stop(): void } | null {
  const guard = holdFolderSocket(dataDir, MIGRATING);
  if (guard === "busy") throw new DataDirBusy(dataDir, null);
  // Taken first, then the holder checked: a process that takes the folder after this check finds the guard held.
  if (parentPid() !== holderPid) {
    guard?.stop();
    throw new DataDirBusy(dataDir, null);
  }
  return guard;
}

/** This process's parent, as the kernel has it now (an orphan's is another process). */
export function parentPid(): number {
  const stat = readText("/proc/self/stat");
  if (!stat) return process.ppid;
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}
