// A real service process on a free port: what a user runs, tested from outside.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const PROJECT_ROOT = join(import.meta.dir, "..", "..");

export const freePort = (): number => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
};

/** Suites make hundreds of requests a second with one key: test servers get limits they never reach (the rate-limit suite sets its own). */
export const HIGH_LIMITS = { RATE_LIMIT_PER_MINUTE: "1000000", RATE_LIMIT_BURST: "1000000", OAUTH_RATE_LIMIT_PER_MINUTE: "1000000", OAUTH_RATE_LIMIT_BURST: "1000000" };

export const randomAdminKey = () => `test_admin_${crypto.randomUUID().replaceAll("-", "")}`;

export interface TestServer {
  url: string;
  port: number;
  adminKey: string;
  dataDir: string;
  process: Subprocess;
  output(): string;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}, options: { keepDataDir?: string } = {}): Promise<TestServer> {
  // freePort's port is free only until another process binds it (test files run in parallel workers,
  // beside other checkouts' suites): a server that finds it taken is started again on another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(env, options);
    } catch (error) {
      if (attempt === 3 || !(error as Error).message.includes("the port is already in use")) throw error;
    }
  }
}

async function startServerOnce(env: Record<string, string>, options: { keepDataDir?: string }): Promise<TestServer> {
  const dataDir = options.keepDataDir ?? mkdtempSync(join(tmpdir(), "cms-test-"));
  const port = freePort();
  const adminKey = env.CMS_ADMIN_KEY ?? randomAdminKey();
  let output = "";
  const child = Bun.spawn([process.execPath, join(PROJECT_ROOT, "infra", "main.ts")], {
    cwd: PROJECT_ROOT,
    // The address tests reach it at, so OAuth discovery names it (clients compare origins).
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, CMS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn", PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...HIGH_LIMITS, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      output += decoder.decode(value);
    }
  };
  const drained = Promise.all([drain(child.stdout as ReadableStream<Uint8Array>), drain(child.stderr as ReadableStream<Uint8Array>)]);
  const url = `http://127.0.0.1:${port}`;
  // A fresh embedded database is the prepared image unpacked (infra/pglite-image.ts); only the first start after the
  // migrations change builds that image (initdb, every migration), which on a loaded two-core machine has taken over 30 s.
  const deadline = Date.now() + 90_000;
  while (true) {
    if (child.exitCode !== null) {
      await Promise.race([drained, Bun.sleep(1000)]); // its last words name the cause
      if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server exited with ${child.exitCode}: ${output}`);
    }
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`server did not answer /health within 90 s: ${output}`);
    }
    await Bun.sleep(50);
  }
  return {
    url,
    port,
    adminKey,
    dataDir,
    process: child,
    output: () => output,
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
      if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
