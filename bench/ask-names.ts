// Ask retrieval on a campaign with many names (issue 15): the search bench's campaign (10k or 100k
// characters, locations, factions, items… per kind, bench/search.ts with BENCH_KEEP_DB) asked
// questions that name its records, misspell a name, name a session, or name nothing. Each question
// is checked to find the record it names among its top passages before it is timed. Reports
// latency alone and at 8 concurrent askers, as bench/ask.ts does.
//
//   ASK_NAMES_DB=postgres://127.0.0.1:5432/<database bench/search.ts kept> bun bench/ask-names.ts
//   ASK_BENCH_ROUNDS (5), ASK_BENCH_ASKERS (8; 0: latency alone only), ASK_BENCH_PACK=off (the SQL statement alone; default: packed first, as the
//   worker would, migration 0037), BENCH_RESULTS (ask-names-<characters>.json)
// This checkout's pending migrations are applied to the database first (as the service would).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { jsonLogger } from "../adapters/system/system.ts";
import { foldAskCounts, PACK_MIN_PASSAGES } from "../application/retrieval.ts";
import { buildDeps, loadMigrations } from "../infra/container.ts";
import type { Passage } from "../ports/retrieval.ts";
import { concurrentAskers } from "./lib/askers.ts";
import { assertLocalPostgres, env, intEnv, RESULTS_DIR } from "./lib/env.ts";
import { runBench } from "./lib/lifecycle.ts";
import { round3, percentile, peakMb } from "./lib/stats.ts";

const URL_ = process.env.ASK_NAMES_DB?.trim() || "";
const ROUNDS = intEnv("ASK_BENCH_ROUNDS", 5, 1, 100);
const CONCURRENCY = intEnv("ASK_BENCH_ASKERS", 8, 0, 64);
const PACK = env("ASK_BENCH_PACK", "on");


/** Two letters of the name's longest word swapped: a misspelling the analysis must see through. */
function misspell(name: string): string {
  const words = name.split(" ");
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  const i = Math.floor(longest.length / 2);
  const swapped = longest.slice(0, i) + longest[i + 1] + longest[i] + longest.slice(i + 2);
  return words.map((w) => (w === longest ? swapped : w)).join(" ");
}

interface Question {
  label: string;
  text: string;
  /** A top passage must be this record's (kind, title), or no check. */
  finds: { kind: Passage["kind"]; title: string } | null;
}

async function main() {
  if (!URL_) throw new Error("set ASK_NAMES_DB to a database bench/search.ts kept (BENCH_KEEP_DB=1)");
  assertLocalPostgres("ASK_NAMES_DB", URL_);
  const db = openPostgres(URL_, { maxConnections: 10 });
  const applied = await applyMigrations(db, loadMigrations());
  if (applied.length) {
    console.log(`applied ${applied.join(", ")}; vacuum analyze`);
    await db.exec(`vacuum analyze`);
  }
  const deps = buildDeps(db, jsonLogger("warn"));
  const [campaign] = await db.query(`select id from campaigns where title = 'Search bench'`);
  if (!campaign) throw new Error("no 'Search bench' campaign in ASK_NAMES_DB");
  const campaignId = String(campaign.id);
  const [counts] = await db.query(
    `select (select count(*) from characters where campaign_id = $1)::int as characters, (select count(*) from entities where campaign_id = $1)::int as entities,
            (select count(*) from ask_passages where campaign_id = $1)::int as passages`,
    [campaignId],
  );
  // Names of the campaign's newest character and location: at 100k the generated names repeat, so the check is by title.
  const [character] = await db.query(`select character_name from characters where campaign_id = $1 order by created_at desc, id desc limit 1`, [campaignId]);
  const [place] = await db.query(`select name from entities where campaign_id = $1 and kind = 'location' order by created_at desc, id desc limit 1`, [campaignId]);
  const who = String(character!.character_name);
  const where = String(place!.name);
  const questions: Question[] = [
    { label: "names a character", text: `What did ${who} say to the others?`, finds: { kind: "character", title: who } },
    { label: "names a place", text: `What happened at ${where}?`, finds: { kind: "location", title: where } },
    { label: "names both", text: `Did ${who} ever travel to ${where}?`, finds: { kind: "character", title: who } },
    { label: "misspells a character", text: `Where is ${misspell(who)} now?`, finds: null },
    { label: "names a session", text: "What happened in session 3 and last session?", finds: null },
    { label: "names nothing", text: "Who betrayed the party and why did they do it?", finds: null },
  ];

  // What the worker's first passes do: fold the running counts, then pack.
  const folded = await foldAskCounts(deps);
  if (folded) console.log(`folded the running counts of ${folded} campaign(s)`);
  const packing = performance.now();
  const packed = PACK === "off" ? [] : await deps.records.askIndex.pack(PACK_MIN_PASSAGES, 10);
  const packSeconds = round3((performance.now() - packing) / 1000);
  if (packed.length) console.log(`packed posting lists of ${packed.length} campaign(s) in ${packSeconds} s`);
  const retrieve = (q: Question) => deps.retriever.retrieve({ campaignId, text: q.text, journals: { all: true }, limit: 5 });

  // Each question is checked to find what it names before it is timed; a miss is reported (and
  // fails the run at the end), so a baseline that misses is still timed.
  const misses: string[] = [];
  for (const q of questions) {
    const found = await retrieve(q);
    if (q.finds && !found.some((p) => p.kind === q.finds!.kind && p.title === q.finds!.title))
      misses.push(`"${q.text}" did not find ${q.finds.kind} ${q.finds.title} in its top 5: ${found.map((p) => `${p.kind}:${p.title}`).join(", ")}`);
  }
  for (const miss of misses) console.log(`MISS ${miss}`);

  const alone: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const q of questions) {
      const t = performance.now();
      await retrieve(q);
      (alone[q.label] ??= []).push(performance.now() - t);
    }
  const timings: number[] = [];
  const wall = await concurrentAskers(questions, CONCURRENCY, CONCURRENCY ? ROUNDS : 0, async (q) => {
    const t = performance.now();
    await retrieve(q);
    timings.push(performance.now() - t);
  });
  const sorted = [...timings].sort((a, b) => a - b);
  const aloneAll = Object.values(alone).flat().sort((a, b) => a - b);
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30) },
    campaign: counts,
    packed: PACK === "off" ? "off" : { campaigns: packed.length, seconds: packSeconds },
    questions: questions.map((q) => ({ label: q.label, text: q.text, alone_median_ms: round3([...alone[q.label]!].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!) })),
    latency_ms: {
      alone: { p50: round3(percentile(aloneAll, 50)), p99: round3(percentile(aloneAll, 99)) },
      concurrent: timings.length
        ? { askers: CONCURRENCY, requests: timings.length, per_second: round3(timings.length / wall), p50: round3(percentile(sorted, 50)), p99: round3(percentile(sorted, 99)), max: round3(sorted.at(-1)!) }
        : null,
    },
    peak_rss_mb: peakMb(),
    misses,
  };
  console.log(`Ask on the search bench's campaign: ${counts!.characters} characters, ${counts!.entities} entities, ${counts!.passages} passages`);
  console.table(Object.fromEntries(report.questions.map((q) => [q.label, { "alone, median ms": q.alone_median_ms }])));
  const at = report.latency_ms.concurrent;
  console.log(`latency alone p50 ${report.latency_ms.alone.p50} ms p99 ${report.latency_ms.alone.p99} ms${at ? `; at ${at.askers} askers p50 ${at.p50} ms p99 ${at.p99} ms (${at.per_second}/s)` : ""}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const out = join(RESULTS_DIR, env("BENCH_RESULTS", `ask-names-${counts!.characters}.json`));
  writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
  console.log(`results: ${out}`);
  await db.close();
  if (misses.length) throw new Error(`${misses.length} question(s) did not find what they name (MISS lines above)`);
}

await runBench(main, 3600);
