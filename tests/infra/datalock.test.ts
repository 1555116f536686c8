// The data-folder lock: a lock file left by a dead, zombie or unrelated process never blocks
// start-up; one naming a live holder does.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireDataDir, holderAlive, holdMigrationGuard, type LockHolder } from "../../infra/datalock.ts";
import { freePort, PROJECT_ROOT, startServer } from "../support/server.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "cms-lock-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// Read here, independently of the module under test: field 22 of /proc/<pid>/stat, and the state.
const statFields = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};
const startTicks = (pid: number) => Number(statFields(pid)[19]);
const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
const stateLine = (pid: number) => /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];

/** A zombie: a child of `sleep`, which never reaps it. Resolves once the kernel shows state Z. */
async function zombie(): Promise<{ pid: number; parent: ReturnType<typeof Bun.spawn> }> {
  const parent = Bun.spawn(["sh", "-c", "sleep 0.1 & echo $!; exec sleep 30"], { stdout: "pipe" });
  const reader = (parent.stdout as ReadableStream<Uint8Array>).getReader();
  const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
  for (let i = 0; i < 100 && stateLine(pid) !== "Z"; i++) await Bun.sleep(20);
  expect(stateLine(pid)).toBe("Z");
  return { pid, parent };
}

/** A pid that ran and is gone. */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

const holder = (fields: Partial<LockHolder>): LockHolder => ({ pid: process.pid, port: 8000, started_at: new Date().toISOString(), start_ticks: startTicks(process.pid), boot_id: bootId, ...fields });

describe.skipIf(process.platform !== "linux")("who holds a lock file (Linux)", () => {
  test("a running process with the recorded start time holds it; the same pid with another start time does not", () => {
    expect(holderAlive(holder({}))).toBe(true);
    expect(holderAlive(holder({ start_ticks: startTicks(process.pid) + 1 }))).toBe(false);
  });

  test("a process of an earlier boot, a dead process and a zombie do not", async () => {
    expect(holderAlive(holder({ boot_id: "00000000-0000-0000-0000-000000000000" }))).toBe(false);
    expect(holderAlive(holder({ pid: await deadPid(), start_ticks: null }))).toBe(false);
    const { pid, parent } = await zombie();
    try {
      expect(holderAlive(holder({ pid, start_ticks: startTicks(pid) }))).toBe(false);
    } finally {
      parent.kill();
    }
  });

  test("a lock file without start time (older versions): held only by a process that started before it was written", () => {
    expect(holderAlive(holder({ start_ticks: undefined, boot_id: undefined, started_at: new Date().toISOString() }))).toBe(true);
    expect(holderAlive(holder({ start_ticks: undefined, boot_id: undefined, started_at: "2000-01-01T00:00:00Z" }))).toBe(false);
  });

  test("the lock is taken once per folder (a second take by the same process included), and again after release", () => {
    const dir = tempDir();
    const release = acquireDataDir(dir, 1234);
    const written = JSON.parse(readFileSync(join(dir, "cms.lock"), "utf8"));
    expect(written).toMatchObject({ pid: process.pid, port: 1234, start_ticks: startTicks(process.pid), boot_id: bootId });
    // The socket is held: a second take, even by the same process, is refused.
    expect(() => acquireDataDir(dir, 1235)).toThrow(`DATA_DIR ${dir} is in use by process ${process.pid} (serving on port 1234)`);
    release();
    acquireDataDir(dir, 1236)();
  });

  test("while a migration process holds its guard, nobody takes the folder (its holder gone or not); one not started by the holder gives up", async () => {
    const dir = tempDir();
    // A migration process of this test runner (infra/migrate-pglite.ts takes the guard so), here without the database.
    const migrating = Bun.spawn(
      [process.execPath, "-e", `const { holdMigrationGuard } = await import(${JSON.stringify(join(PROJECT_ROOT, "infra", "datalock.ts"))}); holdMigrationGuard(${JSON.stringify(dir)}, ${process.pid}); console.log("held"); await Bun.sleep(30000);`],
      { stdout: "pipe", stderr: "pipe" },
    );
    try {
      const reader = (migrating.stdout as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value).trim()).toBe("held");
      expect(() => acquireDataDir(dir, 1234)).toThrow(`DATA_DIR ${dir} is in use by another process (it is starting or stopping)`);
    } finally {
      migrating.kill(9);
      await migrating.exited;
    }
    acquireDataDir(dir, 1234)();
    // Process 1 is not this runner's parent: the guard is refused and left free.
    expect(() => holdMigrationGuard(dir, 1)).toThrow(`DATA_DIR ${dir} is in use by another process`);
    acquireDataDir(dir, 1234)();
  });
});

describe.skipIf(process.platform !== "linux")("start-up with a lock file left behind", () => {
  const writeLock = (dataDir: string, content: Partial<LockHolder>) => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "cms.lock"), JSON.stringify({ port: 9, started_at: new Date().toISOString(), ...content }));
  };

  test("naming a reused pid (this live test runner, another start time), a zombie or a dead process: the server starts", async () => {
    const { pid: zombiePid, parent } = await zombie();
    try {
      const cases: Partial<LockHolder>[] = [
        { pid: process.pid, start_ticks: startTicks(process.pid) - 1, boot_id: bootId },
        { pid: zombiePid, start_ticks: startTicks(zombiePid), boot_id: bootId },
        { pid: await deadPid() },
      ];
      for (const content of cases) {
        const dataDir = tempDir();
        writeLock(dataDir, content);
        const server = await startServer({}, { keepDataDir: dataDir });
        try {
          expect((await fetch(`${server.url}/health/database`)).status).toBe(200);
          expect(JSON.parse(readFileSync(join(dataDir, "cms.lock"), "utf8")).pid).toBe(server.process.pid);
        } finally {
          await server.stop();
        }
      }
    } finally {
      parent.kill();
    }
  });

  test("naming a live holder (this test runner with its own start time): refused with one line naming it", () => {
    const dataDir = tempDir();
    writeLock(dataDir, { pid: process.pid, start_ticks: startTicks(process.pid), boot_id: bootId });
    const result = Bun.spawnSync([process.execPath, "infra/main.ts"], { cwd: PROJECT_ROOT, env: { ...process.env, PORT: String(freePort()), DATA_DIR: dataDir, LOG_LEVEL: "warn" } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.toString().trim()).toBe(`campaign-memory-service: DATA_DIR ${dataDir} is in use by process ${process.pid} (serving on port 9)`);
  });
});
