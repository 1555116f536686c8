// PGlite is one process's database: a lock file in DATA_DIR keeps a second server or CLI out.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface LockHolder {
  pid: number;
  port: number | null;
  started_at: string;
}

export const lockPath = (dataDir: string) => join(dataDir, "cms.lock");

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The live process holding the data folder, if any. */
export function lockHolder(dataDir: string): LockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as LockHolder;
    return holder.pid !== process.pid && alive(holder.pid) ? holder : null;
  } catch {
    return null;
  }
}

export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`DATA_DIR ${dataDir} is in use by process ${holder.pid}${holder.port ? ` (serving on port ${holder.port})` : ""}`);
  }
}

/** Takes the data folder for this process; returns the release function. */
export function acquireDataDir(dataDir: string, port: number | null): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, port, started_at: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = lockHolder(dataDir);
      if (holder) throw new DataDirBusy(dataDir, holder);
      rmSync(path, { force: true }); // left behind by a process that is gone
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
