// Markdown vault benchmark (issue 14): import-markdown of a vault whose notes embed pictures (each
// decoded, re-encoded and stored), then the export.zip of that campaign with include_images=true
// (the zip is built in memory), through a real server process on PostgreSQL; time and the server's
// memory (RSS sampled every 5 ms, and VmHWM).
//
//   bun bench/vault.ts   (PostgreSQL at 127.0.0.1:5432 or BENCH_POSTGRES_URL; BENCH_VAULT_PICTURES=100,
//                         BENCH_VAULT_PICTURE_BYTES=1000000 (noise JPEGs: the worst case to encode);
//                         BENCH_TIME_LIMIT=1800 s)
import { readFileSync } from "node:fs";
import { zipSync } from "fflate";
import sharp from "sharp";
import { assertLocalPostgres, env, intEnv } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { stopChild } from "./lib/processes.ts";
import { describeHost, writeResults } from "./lib/report.ts";
import { createUserWithKey } from "./lib/seed.ts";
import { ADMIN_KEY, startService } from "./lib/servers.ts";

const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
const PICTURES = intEnv("BENCH_VAULT_PICTURES", 100, 1, 2000);
const PICTURE_BYTES = intEnv("BENCH_VAULT_PICTURE_BYTES", 1_000_000, 10_000, 20_000_000);

const statusKb = (pid: number, field: "VmRSS" | "VmHWM") => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

/** A JPEG of random noise of about `bytes` (it does not compress). */
async function noiseJpeg(bytes: number, seed: number): Promise<Buffer> {
  const make = (width: number, height: number) => {
    const raw = Buffer.alloc(width * height * 3);
    for (let i = 0; i < raw.length; i += 65_536) crypto.getRandomValues(raw.subarray(i, Math.min(raw.length, i + 65_536)));
    raw[0] = seed & 0xff;
    return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  };
  const sample = await make(200, 150);
  const width = Math.round(Math.sqrt(((bytes / (sample.length / (200 * 150))) * 4) / 3));
  return make(width, Math.round((width * 3) / 4));
}

/** Runs `work` while sampling the server's RSS: seconds, peak RSS and RSS before, in MB. */
async function measured<T>(pid: number, work: () => Promise<T>) {
  const before = Math.round(statusKb(pid, "VmRSS") / 1024);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, statusKb(pid, "VmRSS"))), 5);
  const started = performance.now();
  const value = await work();
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  clearInterval(sampler);
  return { value, seconds, rss_before_mb: before, rss_peak_mb: Math.round(peak / 1024) };
}

await runBench(async () => {
  const host = await describeHost(ADMIN_URL);
  // A few distinct pictures, reused: making 100 noise JPEGs would take longer than the import.
  const distinct = await Promise.all(Array.from({ length: Math.min(PICTURES, 8) }, (_, i) => noiseJpeg(PICTURE_BYTES, i)));
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {};
  for (let i = 0; i < PICTURES; i++) {
    const name = `Hero ${String(i).padStart(4, "0")}`;
    files[`Bench Vault/Characters/${name}.md`] = new TextEncoder().encode(`A hero of the bench. Friend of [[Hero ${String((i + 1) % PICTURES).padStart(4, "0")}]].\n\n![[${name}.jpg]]\n`);
    files[`Bench Vault/attachments/${name}.jpg`] = [distinct[i % distinct.length]!, { level: 0 }];
  }
  const zip = zipSync(files);
  console.log(`vault: ${PICTURES} notes, ${PICTURES} pictures of ~${PICTURE_BYTES} B, zip ${zip.length} B`);

  const database = await createScratchDatabase(ADMIN_URL, "cms_bench_vault");
  const server = await startService({ name: "service", databaseUrl: database.url, logLevel: "warn" });
  try {
    const pid = server.child.proc.pid;
    const owner = await createUserWithKey(server.url, "Bench", `bench-${crypto.randomUUID()}@example.test`);
    const imported = await measured(pid, async () => {
      const response = await fetch(`${server.url}/internal/v1/campaigns/import-markdown?owner_id=${owner.userId}`, {
        method: "POST",
        headers: { "x-api-key": ADMIN_KEY, "content-type": "application/zip" },
        body: zip as unknown as BodyInit,
      });
      const body = await response.json();
      if (response.status !== 201) throw new Error(`import: ${response.status} ${JSON.stringify(body)}`);
      return body as { id: string; counts: Record<string, number> };
    });
    if (imported.value.counts.image !== PICTURES) throw new Error(`expected ${PICTURES} images, got ${JSON.stringify(imported.value.counts)}`);
    const exported = await measured(pid, async () => {
      const response = await fetch(`${server.url}/v1/campaigns/${imported.value.id}/export.zip?format=markdown&include_images=true`, { headers: { "x-api-key": owner.key } });
      if (response.status !== 200) throw new Error(`export: ${response.status} ${await response.text()}`);
      return (await response.arrayBuffer()).byteLength;
    });
    const result = {
      date: new Date().toISOString(),
      host,
      pictures: PICTURES,
      picture_bytes: distinct[0]!.length,
      zip_bytes: zip.length,
      import: { seconds: imported.seconds, rss_before_mb: imported.rss_before_mb, rss_peak_mb: imported.rss_peak_mb },
      export_with_images: { seconds: exported.seconds, zip_bytes: exported.value, rss_before_mb: exported.rss_before_mb, rss_peak_mb: exported.rss_peak_mb },
      vmhwm_mb: Math.round(statusKb(pid, "VmHWM") / 1024),
    };
    console.log(JSON.stringify(result, null, 2));
    writeResults("vault.json", result);
  } finally {
    await stopChild(server.child);
  }
}, intEnv("BENCH_TIME_LIMIT", 1800, 30, 7200));
