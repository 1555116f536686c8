// Export / import / webhook benchmark (issue 14), on PostgreSQL through a real server process:
// a campaign with the CRD3 episodes imported and 5,000 more records; then the whole-campaign export
// (time, server peak RSS while it streams), the import of that file, and webhook latency (write
// answered → signed delivery received on 127.0.0.1) under 50 writes/s.
//
//   bun bench/export.ts    (CRD3 at ../shared/datasets/crd3 or BENCH_CRD3_DIR; BENCH_POSTGRES_URL;
//                           BENCH_EPISODES=39, BENCH_RECORDS=5000, BENCH_WEBHOOK_SECONDS=20)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assertLocalPostgres, env, intEnv, ROOT } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { writeResults } from "./lib/report.ts";
import { createCampaign, createUserWithKey } from "./lib/seed.ts";
import { ADMIN_KEY, startService } from "./lib/servers.ts";
import { localSend, mustCaller } from "./lib/local-http.ts";

const DATASET = process.env.BENCH_CRD3_DIR ?? join(ROOT, "..", "shared", "datasets", "crd3");
const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
const EPISODES = intEnv("BENCH_EPISODES", 39, 1, 1000);
const RECORDS = intEnv("BENCH_RECORDS", 5000, 0, 1_000_000);
const WEBHOOK_SECONDS = intEnv("BENCH_WEBHOOK_SECONDS", 20, 1, 3600);
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = "true";

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

// runBench stops the server and drops the scratch database (each run's is several hundred MB).
await runBench(async () => {
const scratch = await createScratchDatabase(ADMIN_URL, "cms_bench_export", process.env.BENCH_KEEP_DB === "1");
const server = await startService({ name: "service-postgres", databaseUrl: scratch.url, logLevel: "warn" });
const pid = server.child.proc.pid;
  const { key } = await createUserWithKey(server.url);
  const campaignId = await createCampaign(server.url, key, { title: "Vox Machina (bench)" });
  const as = (k: string) => ({ "x-api-key": k, "content-type": "application/json" });
  const must = mustCaller(localSend(null), server.url, key);
  const post = (path: string, body: unknown, k = key) => must("POST", path, body, k);

  const episodes = readdirSync(DATASET).filter((name) => /^C\d+E\d+\.json$/.test(name)).sort().slice(0, EPISODES);
  let started = performance.now();
  for (const [i, episode] of episodes.entries()) {
    const session = await post("/internal/v1/sessions", { campaign_id: campaignId, type: "audioUpload", title: episode, session_date: new Date(Date.UTC(2015, 2, 12 + 7 * i)).toISOString() }, ADMIN_KEY);
    const response = await fetch(`${server.url}/internal/v1/sessions/${session.id}/transcript?format=crd3`, { method: "POST", headers: as(ADMIN_KEY), body: Bun.file(join(DATASET, episode)) });
    if (response.status !== 201) throw new Error(`${episode}: ${response.status}`);
  }
  const seedEpisodesS = (performance.now() - started) / 1000;
  started = performance.now();
  const kinds = ["characters", "factions", "locations", "items", "moments", "quests"] as const;
  let made = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (made < RECORDS) {
        const n = made++;
        const kind = kinds[n % kinds.length]!;
        const name = `${kind} ${n}`;
        const body =
          kind === "characters" ? { campaign_id: campaignId, character_name: name, description: `Seen with [[factions ${n - (n % 6) + 1}]]` }
          : kind === "moments" ? { campaign_id: campaignId, label: name, content: "A moment" }
          : kind === "quests" ? { campaign_id: campaignId, quest_name: name, objectives: ["One", "Two"] }
          : { campaign_id: campaignId, name, description: `The ${name}` };
        await post(`/v1/${kind}`, body);
      }
    }),
  );
  const seedRecordsS = (performance.now() - started) / 1000;

  // Export: streamed to memory-less counting; server RSS sampled every 20 ms.
  const baseRssMb = rssKb(pid) / 1024;
  let peakKb = 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, rssKb(pid))), 20);
  started = performance.now();
  const exported = await fetch(`${server.url}/v1/campaigns/${campaignId}/export`, { headers: as(key) });
  const file = join(ROOT, ".tmp", `bench-export-${Date.now()}.json`);
  await Bun.write(file, exported);
  const exportS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const exportBytes = Bun.file(file).size;
  const counts = JSON.parse(await Bun.file(file).text()).trailer.counts;
  const owner = await createUserWithKey(server.url, "Importer");
  started = performance.now();
  const imported = await fetch(`${server.url}/internal/v1/campaigns/import?owner_id=${owner.userId}`, { method: "POST", headers: as(ADMIN_KEY), body: Bun.file(file) });
  const importS = (performance.now() - started) / 1000;
  if (imported.status !== 201) throw new Error(`import: ${imported.status} ${await imported.text()}`);

  // Webhook latency at 50 writes/s: answered write → delivery received.
  const answeredAt = new Map<string, number>();
  // Kept by id: a delivery may arrive before its write's answer does (then its latency counts as 0).
  const receivedAt = new Map<string, number>();
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const message = JSON.parse(await request.text());
      if (message.data.op === "create" && !receivedAt.has(message.data.id)) receivedAt.set(message.data.id, performance.now());
      return new Response(null, { status: 204 });
    },
  });
  await post(`/v1/campaigns/${campaignId}/webhooks`, { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["character.create"] });
  const writes = 50 * WEBHOOK_SECONDS;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < writes; i++) {
    await Bun.sleep(Math.max(0, t0 + i * 20 - performance.now()));
    pending.push(post("/v1/characters", { campaign_id: campaignId, character_name: `Webhook ${i}` }).then((c) => void answeredAt.set(c.id, performance.now())));
  }
  await Promise.all(pending);
  const deadline = performance.now() + 30_000;
  while (receivedAt.size < writes && performance.now() < deadline) await Bun.sleep(50);
  receiver.stop(true);
  const latencies = [...answeredAt].filter(([id]) => receivedAt.has(id)).map(([id, at]) => Math.max(0, receivedAt.get(id)! - at));

  const results = {
    date: new Date().toISOString(),
    backend: "postgres",
    episodes: episodes.length,
    records_added: RECORDS,
    counts,
    seed_episodes_s: +seedEpisodesS.toFixed(1),
    seed_records_s: +seedRecordsS.toFixed(1),
    export_s: +exportS.toFixed(2),
    export_mb: +(exportBytes / 1048576).toFixed(1),
    server_rss_before_export_mb: +baseRssMb.toFixed(0),
    server_peak_rss_during_export_mb: +(peakKb / 1024).toFixed(0),
    import_s: +importS.toFixed(2),
    webhook: { writes, delivered: latencies.length, p50_ms: +pct(latencies, 50).toFixed(1), p99_ms: +pct(latencies, 99).toFixed(1), max_ms: +Math.max(...latencies).toFixed(1) },
  };
  console.log(JSON.stringify(results, null, 2));
  writeResults("export.json", results);
}, intEnv("BENCH_TIME_LIMIT", 3600, 60, 86_400));
