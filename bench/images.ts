// Image upload benchmark (issue 13): init + PUT + complete of a 5 MB JPEG through a real server
// process, on the local store and on S3 (s3rver in this process), and the server's memory while 8
// uploads of 20 MB run at once (local store). The server runs on PostgreSQL.
//
//   bun bench/images.ts      (PostgreSQL at 127.0.0.1:5432 or BENCH_POSTGRES_URL; BENCH_IMAGE_RUNS=20;
//                             BENCH_STORES=local,s3; BENCH_TIME_LIMIT=1800 s; MALLOC_ARENA_MAX, as
//                             `npm start` sets it, reaches the server when given)
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import sharp from "sharp";
import { assertLocalPostgres, env, intEnv } from "./lib/env.ts";
import { atCleanup, runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { stopChild } from "./lib/processes.ts";
import { describeHost, writeResults } from "./lib/report.ts";
import { createCampaign, createUserWithKey } from "./lib/seed.ts";
import { startService } from "./lib/servers.ts";
import { localSend, mustCaller } from "./lib/local-http.ts";

const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
const RUNS = intEnv("BENCH_IMAGE_RUNS", 20, 3, 500);
const STORES = (process.env.BENCH_STORES ?? "local,s3").split(",");

const statusKb = (pid: number, field: "VmRSS" | "VmHWM") => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

/** A JPEG of random noise (it does not compress) of about `bytes`: a large phone photo's worst case. */
async function noiseJpeg(bytes: number): Promise<Buffer> {
  const make = (width: number, height: number) => {
    const raw = Buffer.alloc(width * height * 3);
    for (let i = 0; i < raw.length; i += 65_536) crypto.getRandomValues(raw.subarray(i, Math.min(raw.length, i + 65_536)));
    return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  };
  const sample = await make(400, 300);
  const perPixel = sample.length / (400 * 300);
  const pixels = bytes / perPixel;
  const width = Math.round(Math.sqrt((pixels * 4) / 3));
  return make(width, Math.round((width * 3) / 4));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;

async function startS3(): Promise<Record<string, string>> {
  const directory = mkdtempSync(join(tmpdir(), "cms-bench-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "images", configs: [] }] });
  const { port } = await server.run();
  atCleanup(() => server.close());
  return { S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_BUCKET: "images", S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER" };
}

async function serverFor(store: string) {
  const database = await createScratchDatabase(ADMIN_URL, "cms_bench_images");
  const s3env = store === "s3" ? await startS3() : {};
  const server = await startService({ name: `service-${store}`, databaseUrl: database.url, logLevel: "warn", env: s3env });
  const { key } = await createUserWithKey(server.url, "Bench", `bench-${crypto.randomUUID()}@example.test`);
  const campaignId = await createCampaign(server.url, key, { title: "Image bench" });
  // Unbounded, as before: completing a large image re-encodes it.
  const must = mustCaller(localSend(null), server.url, key);
  const call = (path: string, body: unknown) => must("POST", path, body);
  const character = await call("/v1/characters", { campaign_id: campaignId, character_name: "Subject" });
  /** One whole upload as a client does it; answers its milliseconds, split by step. */
  const upload = async (bytes: Buffer) => {
    const started = performance.now();
    const grant = await call(`/v1/campaigns/${campaignId}/images/init`, { entity_type: "character", entity_id: character.id, file_name: "photo.jpg", content_type: "image/jpeg" });
    const initialized = performance.now();
    const put = await fetch(grant.upload_url, { method: "PUT", body: bytes as unknown as BodyInit, headers: { "content-type": "image/jpeg" } });
    if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
    const uploaded = performance.now();
    const done = await call(`/v1/campaigns/${campaignId}/images/complete`, { object_key: grant.object_key, entity_type: "character", entity_id: character.id });
    if (!done.attached) throw new Error("not attached");
    const completed = performance.now();
    return { total: completed - started, init: initialized - started, put: uploaded - initialized, complete: completed - uploaded };
  };
  return { server, upload };
}

await runBench(async () => {
  const host = await describeHost(ADMIN_URL);
  const five = await noiseJpeg(5_000_000);
  const twenty = await noiseJpeg(19_500_000);
  const meta5 = await sharp(five).metadata();
  const meta20 = await sharp(twenty).metadata();
  console.log(`fixtures: ${five.length} B (${meta5.width}×${meta5.height}), ${twenty.length} B (${meta20.width}×${meta20.height})`);
  const latency: Record<string, unknown>[] = [];
  for (const store of STORES) {
    const { server, upload } = await serverFor(store);
    try {
      await upload(five); // warm-up, not counted
      const runs: Awaited<ReturnType<typeof upload>>[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await upload(five));
      const summary = (pick: (r: (typeof runs)[number]) => number) => {
        const sorted = runs.map(pick).sort((a, b) => a - b);
        return { p50: Math.round(percentile(sorted, 0.5)), p95: Math.round(percentile(sorted, 0.95)), max: Math.round(sorted[sorted.length - 1]!) };
      };
      const row = { store, runs: RUNS, bytes: five.length, total_ms: summary((r) => r.total), init_ms: summary((r) => r.init), put_ms: summary((r) => r.put), complete_ms: summary((r) => r.complete) };
      console.log(JSON.stringify(row));
      latency.push(row);
    } finally {
      await stopChild(server.child);
    }
  }
  // Memory: a fresh server on the local store, one warm-up, then 8 uploads of 20 MB at once.
  const { server, upload } = await serverFor("local");
  let memory: Record<string, unknown>;
  try {
    const pid = server.child.proc.pid;
    await upload(five);
    const before = Math.round(statusKb(pid, "VmRSS") / 1024);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, statusKb(pid, "VmRSS"))), 5);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 8 }, () => upload(twenty)));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    memory = {
      store: "local",
      // npm start sets 2; the bench starts `bun infra/main.ts` itself, so this is whatever the bench was given.
      malloc_arena_max: process.env.MALLOC_ARENA_MAX ?? "unset",
      concurrent: 8,
      bytes_each: twenty.length,
      rss_before_mb: before,
      rss_peak_during_mb: Math.round(peak / 1024),
      vmhwm_mb: Math.round(statusKb(pid, "VmHWM") / 1024),
      wall_seconds: Math.round(seconds * 10) / 10,
      slowest_upload_ms: Math.round(Math.max(...results.map((r) => r.total))),
    };
    console.log(JSON.stringify(memory));
  } finally {
    await stopChild(server.child);
  }
  const local = latency.find((row) => row.store === "local") as { total_ms: { p50: number } } | undefined;
  const targets = { local_p50_at_most_300ms: local ? local.total_ms.p50 <= 300 : null, peak_under_250mb: (memory.rss_peak_during_mb as number) < 250 };
  writeResults("images.json", { date: new Date().toISOString(), host, latency, memory, targets }, false);
  console.log(`targets: ${JSON.stringify(targets)}`);
}, intEnv("BENCH_TIME_LIMIT", 1800, 30, 7200));
