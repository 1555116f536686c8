// Transcript import benchmark (issue 4): every CRD3 episode into one campaign, through the
// first-party route of a real server process, on PGlite and on PostgreSQL. Records each import's
// time and the server's peak memory (VmHWM) over the whole run.
//
//   bun bench/import.ts      (reads ../shared/datasets/crd3, or BENCH_CRD3_DIR; PostgreSQL at
//                             127.0.0.1:5432 or BENCH_POSTGRES_URL; BENCH_BACKENDS=pglite,postgres;
//                             BENCH_BUN_FLAGS for the server's bun; BENCH_TIME_LIMIT=3600 s)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { assertLocalPostgres, env, intEnv, ROOT } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { stopChild } from "./lib/processes.ts";
import { writeResults } from "./lib/report.ts";
import { createCampaign, createUserWithKey } from "./lib/seed.ts";
import { ADMIN_KEY, startService, tempDir } from "./lib/servers.ts";
import { medianValue } from "./lib/stats.ts";
import { localSend, mustCaller } from "./lib/local-http.ts";

const DATASET = process.env.BENCH_CRD3_DIR ?? join(ROOT, "..", "shared", "datasets", "crd3");
const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",");
const BUN_FLAGS = process.env.BENCH_BUN_FLAGS?.split(" ").filter(Boolean) ?? [];
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);

if (!existsSync(DATASET)) {
  console.error(`no CRD3 dataset at ${DATASET} (set BENCH_CRD3_DIR)`);
  process.exit(2);
}
const episodes = readdirSync(DATASET).filter((name) => /^C\d+E\d+\.json$/.test(name)).sort();

const peakKb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

async function run(backend: string) {
  const dataDir = tempDir("cms-bench-import-");
  const databaseUrl = backend === "postgres" ? (await createScratchDatabase(ADMIN_URL, "cms_bench_import")).url : null;
  const start = () => startService({ name: `service-${backend}`, databaseUrl, logLevel: "warn", dataDir, bunFlags: BUN_FLAGS, echo: true });
  // The first start of an empty embedded database runs initdb, once, with a large transient peak;
  // that is set-up, not import, so the measured process is a second start on the initialized folder.
  let initPeakMb: number | null = null;
  if (backend === "pglite") {
    const first = await start();
    initPeakMb = Math.round(peakKb(first.child.proc.pid) / 1024);
    await stopChild(first.child);
  }
  const server = await start();
  const base = server.url;
  const pid = server.child.proc.pid;
  try {
    // No time bound here: a large transcript may take a while on a slow machine.
    const call = mustCaller(localSend(null), base, ADMIN_KEY);
    const { key } = await createUserWithKey(base, "Bench", "bench@example.test");
    const campaignId = await createCampaign(base, key, { title: "Critical Role, campaign 1" });
    const startRss = rssKb(pid);
    const imports: { episode: string; bytes: number; utterances: number; seconds: number; rss_mb: number }[] = [];
    for (const [index, episode] of episodes.entries()) {
      const session = await call("POST", "/internal/v1/sessions", {
        campaign_id: campaignId,
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
      imports.push({ episode, bytes: statSync(file).size, utterances: result.utterance_count, seconds: Math.round(seconds * 1000) / 1000, rss_mb: Math.round(rssKb(pid) / 1024) });
      console.log(`${backend.padEnd(8)} ${episode} ${String(statSync(file).size).padStart(8)} B ${String(result.utterance_count).padStart(5)} utterances ${seconds.toFixed(2).padStart(6)} s  rss ${Math.round(rssKb(pid) / 1024)} MB`);
    }
    const peak = Math.round(peakKb(pid) / 1024);
    const times = imports.map((i) => i.seconds).sort((a, b) => a - b);
    return {
      backend,
      episodes: imports.length,
      utterances: imports.reduce((sum, i) => sum + i.utterances, 0),
      bytes: imports.reduce((sum, i) => sum + i.bytes, 0),
      seconds: { median: medianValue(times, 3), max: times[times.length - 1], total: Math.round(times.reduce((a, b) => a + b, 0) * 10) / 10 },
      memory_mb: { start_rss: Math.round(startRss / 1024), peak_rss: peak, first_start_initdb_peak: initPeakMb },
      targets: { each_import_under_2s: times[times.length - 1]! < 2, peak_under_300mb: peak < 300 },
      imports,
    };
  } finally {
    await stopChild(server.child);
  }
}

await runBench(async () => {
  const results = [];
  for (const backend of BACKENDS) results.push(await run(backend));
  writeResults("import.json", { date: new Date().toISOString(), dataset: DATASET, results }, false);
  for (const r of results)
    console.log(`${r.backend}: ${r.episodes} episodes, ${r.utterances} utterances; per import median ${r.seconds.median} s, max ${r.seconds.max} s; server peak RSS ${r.memory_mb.peak_rss} MB; targets ${JSON.stringify(r.targets)}`);
}, intEnv("BENCH_TIME_LIMIT", 3600, 30, 7200));
