// Where an import's memory goes on PGlite (issue 11), a diagnostic: CRD3 episodes imported in
// process into an on-disk PGlite; after every statement the WebAssembly heap size and the process
// RSS are read, and a statement that grew either (or moved that much through the file system) is
// printed. Tokens are estimated (no o200k thread), so the figures are the database's and the
// service's own. Findings are in docs/benchmarks.md (issue 11, PGlite import memory).
//
//   bun bench/pglite-import-memory.ts   BENCH_CRD3_DIR, BENCH_EPISODES (all), BENCH_SHOW_GROWTH_MB (1),
//                                       BENCH_COUNT_IO=1 (file-system calls, bytes and failed paths),
//                                       BENCH_GC_EACH=1 (a full collection after every statement),
//                                       BENCH_STATS=1 (WAL bytes and Ask table sizes after each import)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { openPglite } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { createDatabaseFolder } from "../infra/pglite-image.ts";
import { loadMigrations } from "../infra/schema.ts";
import { inProcessService } from "../tests/support/inprocess.ts";
import { ROOT } from "./lib/env.ts";
import { tempDir } from "./lib/servers.ts";

const DATASET = process.env.BENCH_CRD3_DIR ?? join(ROOT, "..", "shared", "datasets", "crd3");
const episodes = readdirSync(DATASET).filter((name) => /^C\d+E\d+\.json$/.test(name)).sort().slice(0, Number(process.env.BENCH_EPISODES ?? 1000));
const SHOW = Number(process.env.BENCH_SHOW_GROWTH_MB ?? 1) * 2 ** 20;

// The instance openPglite makes, caught to read its heap.
let instance: PGlite | null = null;
const create = PGlite.create.bind(PGlite);
(PGlite as unknown as { create: typeof create }).create = (async (...args: Parameters<typeof create>) => (instance = await create(...args))) as typeof create;
const heap = () => (instance as unknown as { Module: { HEAPU8: Uint8Array } }).Module.HEAPU8.length;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
// The largest resident mappings (size / resident, MB): which is WebAssembly, which the JS heap.
const topMappings = () => {
  const maps: { size: number; rss: number; name: string }[] = [];
  let current: { size: number; rss: number; name: string } | null = null;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) maps.push((current = { size: parseInt(range[2]!, 16) - parseInt(range[1]!, 16), rss: 0, name: range[3] ?? "" }));
    const rssLine = /^Rss:\s+(\d+) kB/.exec(line);
    if (rssLine && current) current.rss = Number(rssLine[1]) * 1024;
  }
  return maps.sort((a, b) => b.rss - a.rss).slice(0, 6).map((m) => `${mb(m.size)}/${mb(m.rss)}${m.name ? " " + m.name.split("/").pop() : ""}`).join(", ");
};
const rss = () => {
  const m = process.memoryUsage();
  return `${mb(m.rss)} MB (${topMappings()}; js heap ${mb(m.heapUsed)}/${mb(m.heapTotal)}, external ${mb(m.external)}, arrayBuffers ${mb(m.arrayBuffers)})`;
};

// Calls of the file system functions PGlite's NODEFS uses, and their bytes.
const io: Record<string, { calls: number; bytes: number }> = {};
const failures = new Map<string, number>();
if (process.env.BENCH_COUNT_IO) {
  const fs = require("node:fs") as Record<string, unknown>;
  for (const name of ["readSync", "writeSync", "fsyncSync", "openSync", "closeSync", "fstatSync", "statSync", "lstatSync", "ftruncateSync", "readdirSync", "existsSync"]) {
    const original = fs[name] as (...a: unknown[]) => unknown;
    io[name] = { calls: 0, bytes: 0 };
    fs[name] = (...args: unknown[]) => {
      io[name]!.calls++;
      if (typeof args[3] === "number") io[name]!.bytes += args[3];
      try {
        return original(...args);
      } catch (error) {
        const key = `${name} ${String(args[0]).replace(/.*pglite\//, "").replace(/\d+\/(?=\d)/g, "N/")}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
        throw error;
      }
    };
  }
}
const ioSummary = () => Object.entries(io).filter(([, v]) => v.calls).map(([k, v]) => `${k} ${v.calls}${v.bytes ? `/${mb(v.bytes)}MB` : ""}`).join(" ");
const dir = tempDir("cms-pglite-mem-");
await createDatabaseFolder(join(dir, "pglite"), { scratchDir: dir });
const db = await openPglite(join(dir, "pglite"));
await applyMigrations(db, loadMigrations());
let last = heap();
let lastRss = process.memoryUsage().rss;
console.log(`after migrations: wasm heap ${mb(last)} MB, rss ${rss()}`);
// Every statement's growth, named by its first words.
const watch = <T extends { query: (...a: never[]) => Promise<unknown> }>(target: T) => {
  const query = target.query.bind(target);
  (target as { query: unknown }).query = async (...args: unknown[]) => {
    const result = await (query as (...a: unknown[]) => Promise<unknown>)(...args);
    if (process.env.BENCH_GC_EACH) Bun.gc(true);
    const now = heap();
    const resident = process.memoryUsage().rss;
    const written = Object.values(io).reduce((sum, v) => sum + v.bytes, 0);
    if (now - last >= SHOW || resident - lastRss >= SHOW || written >= SHOW)
      console.log(`  heap +${mb(now - last)}, rss ${resident >= lastRss ? "+" : ""}${mb(resident - lastRss)} -> ${mb(resident)} MB: ${String(args[0]).replace(/\s+/g, " ").slice(0, 110)} [${args[1] ? JSON.stringify(args[1]).length : 0} B params] ${ioSummary()}`);
    for (const v of Object.values(io)) (v.calls = 0), (v.bytes = 0);
    last = now;
    lastRss = resident;
    return result;
  };
};
watch(instance!);
const transaction = instance!.transaction.bind(instance!);
(instance as unknown as { transaction: unknown }).transaction = (work: (tx: never) => Promise<unknown>) =>
  transaction(async (tx) => {
    watch(tx);
    return work(tx as never);
  });

const estimate = { name: "estimate", count: async (text: string) => Math.ceil(text.length / 4) };
const service = await inProcessService(db, { deps: (built) => ({ ask: { ...built.ask, tokens: estimate } }) });
const { id: userId } = await service.post("/internal/v1/users", { name: "Bench", email: "bench@example.test" }, service.adminKey);
const { key } = await service.post(`/internal/v1/users/${userId}/keys`, {}, service.adminKey);
const { id: campaignId } = await service.post("/v1/campaigns", { title: "Critical Role, campaign 1" }, key);
for (const [index, episode] of episodes.entries()) {
  const session = await service.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: episode, session_date: new Date(Date.UTC(2015, 2, 12) + index * 7 * 86_400_000).toISOString() }, service.adminKey);
  const started = performance.now();
  const reply = await service.app.handle(new Request(`http://localhost/internal/v1/sessions/${session.id}/transcript`, { method: "POST", headers: { "x-api-key": service.adminKey, "content-type": "application/json" }, body: Bun.file(join(DATASET, episode)) }));
  if (reply.status !== 201) throw new Error(`${episode}: ${reply.status} ${await reply.text()}`);
  if (process.env.BENCH_STATS) {
    const [stats] = await db.query(`select (select wal_bytes from pg_stat_wal) as wal, (select temp_bytes from pg_stat_database where datname = current_database()) as temp,
      pg_total_relation_size('ask_terms') as terms, pg_total_relation_size('ask_passages') as passages, pg_total_relation_size('ask_counts') as counts, pg_relation_size('ask_passages_fts') as fts`);
    console.log(Object.entries(stats!).map(([k, v]) => `${k} ${mb(Number(v))}`).join(", "));
  }
  console.log(`${episode} ${((performance.now() - started) / 1000).toFixed(2)} s: wasm heap ${mb(heap())} MB, rss ${rss()}`);
}
const names = new Map((await db.query(`select pg_relation_filenode(oid)::text as node, relname from pg_class where pg_relation_filenode(oid) is not null`)).map((r) => [String(r.node), String(r.relname)]));
console.log([...failures].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${k.replace(/N\/(\d+)/, (_, node) => names.get(node) ?? node)} ${v}`));
const settings = await db.query(`select name, setting, unit from pg_settings where name in ('work_mem', 'maintenance_work_mem', 'shared_buffers', 'temp_buffers', 'wal_buffers')`);
console.log(settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ""}`).join(" "));
await db.close();
