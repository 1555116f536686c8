// Ask answering benchmark (issue 11): the CRD3 campaign-1 episodes imported into one campaign on
// PostgreSQL, then the service (a real `bun infra/main.ts` process, offline answers) asked the
// questions of bench/ask/questions.json over HTTP by 8 concurrent askers, streamed. Reports the time
// to the first byte of the SSE body (target: p50 ≤ 200 ms), to the `done` chunk, and the same
// questions unstreamed.
//
//   bun bench/ask-answer.ts   CRD3_DIR (default ../shared/datasets/crd3), BENCH_POSTGRES_URL (local),
//                             ASK_BENCH_DB=<postgres url of a database bench/ask.ts or this bench filled,
//                             kept with BENCH_KEEP_DB=1> to skip the import, ASK_ANSWER_ROUNDS=2,
//                             ASK_ANSWER_ASKERS=8 (concurrent askers)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { loadMigrations } from "../infra/container.ts";
import { datasetDir, loadQuestions } from "./ask/baseline.ts";
import { concurrentAskers } from "./lib/askers.ts";
import { assertLocalPostgres, BUN, env, intEnv, ROOT } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { writeResults } from "./lib/report.ts";
import { ADMIN_KEY, launch, tempDir } from "./lib/servers.ts";
import { localSend, mustCaller } from "./lib/local-http.ts";
import { percentile } from "./lib/stats.ts";

const DATASET = datasetDir();
const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
const REUSE = process.env.ASK_BENCH_DB?.trim() || null;
const ROUNDS = intEnv("ASK_ANSWER_ROUNDS", 2, 1, 50);
const CONCURRENCY = intEnv("ASK_ANSWER_ASKERS", 8, 1, 64);
/** The title bench/ask.ts gives its campaign, so either bench can reuse the other's database. */
const CAMPAIGN_TITLE = "Critical Role, campaign 1 (Ask bench)";

const round1 = (n: number) => Math.round(n * 10) / 10;
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: round1(percentile(sorted, 50)), p95: round1(percentile(sorted, 95)), p99: round1(percentile(sorted, 99)), max: round1(sorted.at(-1)!) };
};

async function main() {
  if (!existsSync(DATASET)) {
    console.error(`no CRD3 dataset at ${DATASET}: set CRD3_DIR to the folder holding C1E001.json… (the bench needs it)`);
    process.exit(2);
  }
  assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
  const url = REUSE ?? (await createScratchDatabase(ADMIN_URL, "cms_bench_ask_answer", process.env.BENCH_KEEP_DB === "1")).url;
  const db = openPostgres(url, { maxConnections: 2 });
  await applyMigrations(db, loadMigrations());
  const server = await launch(
    "service",
    [BUN, join(ROOT, "infra", "main.ts")],
    { HOST: "127.0.0.1", DATA_DIR: tempDir("cms-bench-"), CMS_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: "warn", CMS_ENV: "bench", DATABASE_URL: url, ASK_MONTHLY_TOKENS: "1000000000", ASK_HOURLY_TOKENS: "1000000000", GEMINI_API_KEY: "",
      // The rate limiter (issue 12) stays on but out of reach: one key asks hundreds of questions a minute here.
      RATE_LIMIT_PER_MINUTE: "1000000", RATE_LIMIT_BURST: "1000000" },
    { backend: "postgres", answers: "offline (extractive)" },
  );
  // No time bound: transcripts are imported through it.
  const call = mustCaller(localSend(null), server.url, ADMIN_KEY);

  // The asker: a new user, game master of the campaign (added as admin).
  const user = await call("POST", "/internal/v1/users", { name: "Bench asker", email: `asker.${Date.now()}@example.test` });
  const key = (await call("POST", `/internal/v1/users/${user.id}/keys`, {})).key as string;
  const [existing] = await db.query(`select id from campaigns where title = $1`, [CAMPAIGN_TITLE]);
  let campaignId = existing ? String(existing.id) : "";
  const episodes = readdirSync(DATASET).filter((name) => /^C1E\d+\.json$/.test(name)).sort();
  if (!campaignId) {
    campaignId = (await call("POST", "/v1/campaigns", { title: CAMPAIGN_TITLE }, key)).id;
    for (const [index, file] of episodes.entries()) {
      const session = await call("POST", "/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: file.replace(".json", ""), session_date: new Date(Date.UTC(2015, 2, 12) + index * 7 * 86_400_000).toISOString() });
      await call("POST", `/internal/v1/sessions/${session.id}/transcript?format=crd3`, readFileSync(join(DATASET, file), "utf8"));
      process.stdout.write(`\rimported ${index + 1}/${episodes.length}   `);
    }
    console.log();
  } else await call("POST", `/internal/v1/campaigns/${campaignId}/members`, { user_id: user.id, role: "admin" });
  const [size] = await db.query(`select count(*)::int as sessions, (select count(*)::int from ask_passages where campaign_id = $1) as passages from sessions where campaign_id = $1`, [campaignId]);
  await db.close();

  const questions = loadQuestions();
  const ask = async (question: string, stream: boolean) => {
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/ask`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ campaign_id: campaignId, messages: [{ role: "user", content: question }], stream }),
    });
    if (response.status !== 200) throw new Error(`POST /v1/ask: ${response.status} ${await response.text()}`);
    const reader = response.body!.getReader();
    let first: number | null = null;
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      first ??= performance.now() - started;
      text += decoder.decode(value, { stream: true });
    }
    if (stream && !text.includes('"type":"done"')) throw new Error("a stream ended without its done chunk");
    return { firstByte: first ?? performance.now() - started, total: performance.now() - started };
  };

  // Warm-up, not counted: every question once (loads the tokenizer, brings each question's index
  // pages into PostgreSQL's cache), so the first measured mode does not pay for the second.
  for (const q of questions) await ask(q.question, false);

  const measure = async (stream: boolean) => {
    const firstBytes: number[] = [];
    const totals: number[] = [];
    const seconds = await concurrentAskers(questions, CONCURRENCY, ROUNDS, async (q) => {
      const timing = await ask(q.question, stream);
      firstBytes.push(timing.firstByte);
      totals.push(timing.total);
    });
    return { per_second: round1(totals.length / seconds), first_byte_ms: summary(firstBytes), complete_ms: summary(totals) };
  };
  const plain = await measure(false);
  const streamed = await measure(true);

  const report = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), load_average_at_end: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ") },
    backend: "postgres",
    answers: "offline (extractive)",
    dataset: { episodes: episodes.length, ...size },
    askers: CONCURRENCY,
    questions: questions.length,
    rounds: ROUNDS,
    streamed,
    unstreamed: plain,
  };
  console.log(`Ask answers, offline, at ${CONCURRENCY} askers over ${size!.sessions} sessions (${size!.passages} passages):`);
  console.log(`  streamed:   first SSE byte p50 ${streamed.first_byte_ms.p50} ms, p95 ${streamed.first_byte_ms.p95} ms, p99 ${streamed.first_byte_ms.p99} ms; done p50 ${streamed.complete_ms.p50} ms (${streamed.per_second}/s)`);
  console.log(`  unstreamed: answer p50 ${plain.complete_ms.p50} ms, p95 ${plain.complete_ms.p95} ms, p99 ${plain.complete_ms.p99} ms (${plain.per_second}/s)`);
  console.log(`results: ${writeResults(`ask-answer-postgres-${CONCURRENCY}.json`, report)}`);
}

await runBench(main, 3600);
