// Transcript import benchmark (issue 4): every CRD3 episode into one campaign, through the
// first-party route of a real server process, on PGlite and on PostgreSQL. Records each import's
// time and the server's peak memory (VmHWM) over the whole run.
//
//   bun bench/import.ts      (reads ../shared/datasets/crd3, or BENCH_CRD3_DIR; PostgreSQL at
//                             127.0.0.1:5432 or BENCH_POSTGRES_URL; BENCH_BACKENDS=pglite,postgres)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const ROOT = join(import.meta.dir, "..");
const BUN = process.execPath;
const DATASET = process.env.BENCH_CRD3_DIR ?? join(ROOT, "..", "shared", "datasets", "crd3");
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",");
const ADMIN_KEY = `bench_import_${crypto.randomUUID().replaceAll("-", "")}`;

if (!existsSync(DATASET)) {
  console.error(`no CRD3 dataset at ${DATASET} (set BENCH_CRD3_DIR)`);
  process.exit(2);
}
const episodes = readdirSync(DATASET).filter((name) => /^C\d+E\d+\.json$/.test(name)).sort();

const freePort = () => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
};

const peakKb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

async function run(backend: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "cms-bench-import-"));
  let dbName: string | null = null;
  const env: Record<string, string> = { PORT: String(freePort()), HOST: "127.0.0.1", DATA_DIR: dataDir, CMS_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: "warn" };
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  if (backend === "postgres") {
    dbName = `cms_bench_import_${Date.now().toString(36)}`;
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  const base = `http://127.0.0.1:${env.PORT}`;
  const start = async () => {
    const child = Bun.spawn([BUN, ...(process.env.BENCH_BUN_FLAGS?.split(" ").filter(Boolean) ?? []), join(ROOT, "infra", "main.ts")], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "inherit", stderr: "inherit" });
    for (let i = 0; ; i++) {
      if (i > 300) throw new Error("server did not start");
      try {
        if ((await fetch(`${base}/health`)).ok) return child;
      } catch {}
      await Bun.sleep(100);
    }
  };
  // The first start of an empty embedded database runs initdb, once, with a large transient peak;
  // that is set-up, not import, so the measured process is a second start on the initialized folder.
  let initPeakMb: number | null = null;
  if (backend === "pglite") {
    const first = await start();
    initPeakMb = Math.round(peakKb(first.pid) / 1024);
    first.kill();
    await first.exited;
  }
  const server = await start();
  try {
    const call = async (method: string, path: string, body?: unknown, key = ADMIN_KEY) => {
      const response = await fetch(`${base}${path}`, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await response.json();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const user = await call("POST", "/internal/v1/users", { name: "Bench", email: "bench@example.test" });
    const { key } = await call("POST", `/internal/v1/users/${user.id}/keys`, {});
    const campaign = await call("POST", "/v1/campaigns", { title: "Critical Role, campaign 1" }, key);
    const startRss = rssKb(server.pid);
    const imports: { episode: string; bytes: number; utterances: number; seconds: number; rss_mb: number }[] = [];
    for (const [index, episode] of episodes.entries()) {
      const session = await call("POST", "/internal/v1/sessions", {
        campaign_id: campaign.id,
        type: "chatVoice",
        title: episode.replace(".json", ""),
        session_date: new Date(Date.UTC(2015, 2, 12) + index * 7 * 86_400_000).toISOString(),
      });
      const file = join(DATASET, episode);
      const started = performance.now();
      const response = await fetch(`${base}/internal/v1/sessions/${session.id}/transcript`, { method: "POST", headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" }, body: Bun.file(file) });
      const result = await response.json();
      const seconds = (performance.now() - started) / 1000;
      if (response.status !== 201) throw new Error(`import ${episode}: ${response.status} ${JSON.stringify(result)}`);
      // The stored transcript must give back what was imported.
      const transcript = await call("GET", `/v1/sessions/${session.id}/transcript`, undefined, key);
      if (transcript.utterances.length !== result.utterance_count) throw new Error(`${episode}: stored ${transcript.utterances.length} of ${result.utterance_count} utterances`);
      imports.push({ episode, bytes: statSync(file).size, utterances: result.utterance_count, seconds: Math.round(seconds * 1000) / 1000, rss_mb: Math.round(rssKb(server.pid) / 1024) });
      console.log(`${backend.padEnd(8)} ${episode} ${String(statSync(file).size).padStart(8)} B ${String(result.utterance_count).padStart(5)} utterances ${seconds.toFixed(2).padStart(6)} s  rss ${Math.round(rssKb(server.pid) / 1024)} MB`);
    }
    const peak = Math.round(peakKb(server.pid) / 1024);
    const times = imports.map((i) => i.seconds).sort((a, b) => a - b);
    return {
      backend,
      episodes: imports.length,
      utterances: imports.reduce((sum, i) => sum + i.utterances, 0),
      bytes: imports.reduce((sum, i) => sum + i.bytes, 0),
      seconds: { median: times[Math.floor(times.length / 2)], max: times[times.length - 1], total: Math.round(times.reduce((a, b) => a + b, 0) * 10) / 10 },
      memory_mb: { start_rss: Math.round(startRss / 1024), peak_rss: peak, first_start_initdb_peak: initPeakMb },
      targets: { each_import_under_2s: times[times.length - 1]! < 2, peak_under_300mb: peak < 300 },
      imports,
    };
  } finally {
    server.kill();
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    if (dbName) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

const results = [];
for (const backend of BACKENDS) results.push(await run(backend));
mkdirSync(join(import.meta.dir, "results"), { recursive: true });
writeFileSync(join(import.meta.dir, "results", "import.json"), JSON.stringify({ date: new Date().toISOString(), dataset: DATASET, results }, null, 2));
for (const r of results)
  console.log(`${r.backend}: ${r.episodes} episodes, ${r.utterances} utterances; per import median ${r.seconds.median} s, max ${r.seconds.max} s; server peak RSS ${r.memory_mb.peak_rss} MB; targets ${JSON.stringify(r.targets)}`);
