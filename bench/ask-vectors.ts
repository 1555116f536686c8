// Ask's dense ranking, pgvector against the application, on the same data (issue 11). A campaign of
// ASK_VECTORS_PASSAGES passages (default 12,000: the CRD3 bench campaign has 9,547–11,917) with
// 768-dimension unit vectors like the Gemini embedder's, a tenth of them private journal chunks of
// another user; ASK_VECTORS_QUESTIONS question vectors. No embedding service is reachable here, so
// the vectors are synthetic: clusters (a question's cluster holds its true neighbours) with noise.
// Both rankings answer every question as that other user (the journals filtered before ranking);
// the truth is the cosine computed here in float64. Reports agreement (top 1, top 10, top 30: the
// retriever's dense candidates) and sequential latency of each.
//
//   bun bench/ask-vectors.ts   BENCH_POSTGRES_URL (local), ASK_VECTORS_PASSAGES, ASK_VECTORS_QUESTIONS
//
// Needs the `vector` extension on the server (it says so and stops otherwise). The passages are
// written by SQL straight into ask_passages (the write path is not what is measured here).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { applicationIndex, detectPgvector, pgvectorIndex, type NearestQuery } from "../adapters/sql/vectors.ts";
import { loadMigrations } from "../infra/container.ts";
import { assertLocalPostgres, env, intEnv, RESULTS_DIR } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { round3, percentile } from "./lib/stats.ts";

const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
const PASSAGES = intEnv("ASK_VECTORS_PASSAGES", 12_000, 100, 200_000);
const QUESTIONS = intEnv("ASK_VECTORS_QUESTIONS", 100, 10, 10_000);
const DIMENSIONS = 768;
const CLUSTERS = 400;
const LIMIT = 30; // the retriever's dense candidates
const MODEL = "gemini-embedding-001";

// Seeded, so every run ranks the same data.
let seed = 20261125;
const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const unit = (v: number[]) => {
  const length = Math.hypot(...v);
  return v.map((x) => x / length);
};
const near = (center: number[], noise: number) => unit(center.map((x) => x + noise * gaussian()));

async function main() {
  assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
  const scratch = await createScratchDatabase(ADMIN_URL, "cms_bench_vectors");
  const db = openPostgres(scratch.url, { maxConnections: 4 });
  try {
    await applyMigrations(db, loadMigrations());
    if (!(await detectPgvector(db, db.backend))) {
      console.error("the server has no usable vector extension (pgvector): nothing to compare");
      process.exitCode = 2;
      return;
    }
    const [version] = await db.query(`select extversion from pg_extension where extname = 'vector'`);
    const now = new Date().toISOString();
    await db.query(`insert into users (id, name, email, created_at) values ('u-owner', 'Owner', 'owner@example.test', $1), ('u-other', 'Other', 'other@example.test', $1)`, [now]);
    await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c-bench', 'Vectors', 'u-owner', $1)`, [now]);

    // Each cluster center a random direction; a passage is its center plus noise (cosine to the
    // center about 0.6), a question its center plus less (about 0.8).
    const centers = Array.from({ length: CLUSTERS }, () => unit(Array.from({ length: DIMENSIONS }, gaussian)));
    const vectors: number[][] = [];
    const privateIds = new Set<number>();
    const started = performance.now();
    for (let start = 0; start < PASSAGES; start += 500) {
      const batch = Array.from({ length: Math.min(500, PASSAGES - start) }, (_, i) => near(centers[Math.floor(random() * CLUSTERS)]!, 0.045));
      const journal = batch.map(() => random() < 0.1);
      const rows = await db.query(
        `insert into ask_passages (campaign_id, kind, source_id, title, body, author_id, is_public, readers, embedding, embedding_model, embedded_seq)
         select 'c-bench', case when j = 1 then 'journal' else 'character' end, 's' || n, 'Passage ' || n, 'text', case when j = 1 then 'u-owner' end,
                case when j = 1 then false end, case when j = 1 then '{}'::text[] end, array(select jsonb_array_elements_text(v)::real), $4, nextval('ask_embedding_seq')
         from unnest($1::int[], $2::int[]) with ordinality as x(n, j, o) join jsonb_array_elements($3::text::jsonb) with ordinality as e(v, o) using (o)
         order by o returning id`,
        [batch.map((_, i) => start + i), journal.map(Number), JSON.stringify(batch), MODEL],
      );
      rows.forEach((row, i) => {
        vectors[Number(row.id)] = batch[i]!;
        if (journal[i]) privateIds.add(Number(row.id));
      });
    }
    const loadSeconds = (performance.now() - started) / 1000;
    // What is stored is float32: the truth is computed on those numbers.
    for (const id of vectors.keys()) if (vectors[id]) vectors[id] = Array.from(Float32Array.from(vectors[id]!));
    await db.query(`analyze ask_passages`);
    const [sizes] = await db.query(
      `select pg_total_relation_size('ask_passages')::bigint as table_bytes, sum(pg_column_size(embedding))::bigint as embedding_bytes, sum(pg_column_size(embedding_v))::bigint as embedding_v_bytes from ask_passages`,
    );

    const questions = Array.from({ length: QUESTIONS }, () => near(centers[Math.floor(random() * CLUSTERS)]!, 0.025));
    const byPgvector = pgvectorIndex(db);
    const inApp = applicationIndex(db);
    const query = (vector: number[]): NearestQuery => ({ campaignId: "c-bench", viewer: "u-other", blockedSessions: null, model: MODEL, vector, limit: LIMIT });

    // The application reads every vector on its first question: timed apart.
    let t = performance.now();
    await inApp.nearest(query(questions[0]!));
    const appColdMs = performance.now() - t;

    const agree = { top1: 0, overlap10: 0, overlap30: 0, pgExact10: 0, appExact10: 0, pgExact30: 0, appExact30: 0, privateReturned: 0 };
    let worstSwap = 0;
    const pgMs: number[] = [];
    const appMs: number[] = [];
    for (const vector of questions) {
      t = performance.now();
      const pg = await byPgvector.nearest(query(vector));
      pgMs.push(performance.now() - t);
      t = performance.now();
      const app = await inApp.nearest(query(vector));
      appMs.push(performance.now() - t);
      const scores = new Map<number, number>();
      vectors.forEach((v, id) => {
        if (!v || privateIds.has(id)) return;
        let dot = 0;
        for (let i = 0; i < DIMENSIONS; i++) dot += v[i]! * vector[i]!;
        scores.set(id, dot); // both unit length: the cosine
      });
      const exact = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => String(id));
      const overlap = (a: string[], b: string[], k: number) => a.slice(0, k).filter((id) => b.slice(0, k).includes(id)).length / k;
      agree.top1 += pg[0] === app[0] ? 1 : 0;
      agree.overlap10 += overlap(pg, app, 10);
      agree.overlap30 += overlap(pg, app, 30);
      agree.pgExact10 += overlap(pg, exact, 10);
      agree.appExact10 += overlap(app, exact, 10);
      agree.pgExact30 += overlap(pg, exact, 30);
      agree.appExact30 += overlap(app, exact, 30);
      agree.privateReturned += [...pg, ...app].filter((id) => privateIds.has(Number(id))).length;
      // How far apart, in true cosine, are passages the application put in the other order.
      for (let i = 1; i < app.length; i++) worstSwap = Math.max(worstSwap, scores.get(Number(app[i]))! - scores.get(Number(app[i - 1]))!);
    }
    const share = (n: number) => round3(n / QUESTIONS);
    const stats = (ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return { p50: round3(percentile(sorted, 50)), p95: round3(percentile(sorted, 95)), p99: round3(percentile(sorted, 99)) };
    };
    const report = {
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? "?"} (shared: loaded machine numbers)`,
      vector_extension: version?.extversion,
      passages: PASSAGES,
      private_journal_passages: privateIds.size,
      questions: QUESTIONS,
      dimensions: DIMENSIONS,
      load_seconds: round3(loadSeconds),
      bytes: { table: Number(sizes!.table_bytes), embedding: Number(sizes!.embedding_bytes), embedding_v: Number(sizes!.embedding_v_bytes) },
      agreement: {
        "top1 pgvector = application": share(agree.top1),
        "overlap@10 pgvector/application": share(agree.overlap10),
        "overlap@30 pgvector/application": share(agree.overlap30),
        "recall@10 pgvector vs exact": share(agree.pgExact10),
        "recall@10 application vs exact": share(agree.appExact10),
        "recall@30 pgvector vs exact": share(agree.pgExact30),
        "recall@30 application vs exact": share(agree.appExact30),
        "largest cosine gap the application put out of order": round3(worstSwap),
        "private passages returned to the other user": agree.privateReturned,
      },
      latency_ms: { pgvector: stats(pgMs), application: stats(appMs), application_first_question: round3(appColdMs) },
    };
    console.log(JSON.stringify(report, null, 1));
    mkdirSync(RESULTS_DIR, { recursive: true });
    const out = join(RESULTS_DIR, "ask-vectors.json");
    writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
    console.log(`results: ${out}`);
  } finally {
    await db.close();
  }
}

await runBench(main, intEnv("BENCH_TIME_LIMIT", 900, 60, 86_400));
