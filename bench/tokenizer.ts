// Token counter benchmark (issues 11 and 14): memory of this process before and after counting the
// CRD3 fixture transcripts one utterance at a time (as a transcript import does) and as whole
// texts, the time it takes, and the longest the event loop was held meanwhile (a 5 ms ticker's
// worst lateness).
//
//   bun bench/tokenizer.ts                      (the service's counter)
//   TOKENIZER_MODULE=/path/to/tokenizer.ts bun bench/tokenizer.ts   (another build, e.g. an older commit's)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TokenCounter } from "../ports/tokens.ts";

const FIXTURES = join(import.meta.dir, "..", "tests", "fixtures", "crd3");
const module = process.env.TOKENIZER_MODULE ?? join(import.meta.dir, "..", "adapters", "ai", "tokenizer.ts");
const { o200kTokenCounter: counter } = (await import(module)) as { o200kTokenCounter: TokenCounter };

const status = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024);
const episodes = ["C1E001.json", "C1E002.json"].map((file) =>
  (JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as { TURNS: { NAMES: string[]; UTTERANCES: string[] }[] }).TURNS.flatMap((turn) => turn.UTTERANCES),
);
Bun.gc(true);
const before = status("VmRSS");

let worstLag = 0;
let expected = performance.now() + 5;
const ticker = setInterval(() => {
  const now = performance.now();
  worstLag = Math.max(worstLag, now - expected);
  expected = now + 5;
}, 5);

let started = performance.now();
const first = await counter.count("Hello, Vox Machina.");
const firstMs = performance.now() - started;
started = performance.now();
let utterances = 0;
let tokens = 0;
for (const lines of episodes) {
  for (const counted of await Promise.all(lines.map((line) => counter.count(line)))) tokens += counted;
  utterances += lines.length;
}
const perUtteranceMs = performance.now() - started;
started = performance.now();
let whole = 0;
for (const lines of episodes) whole += await counter.count(lines.join("\n"));
const wholeMs = performance.now() - started;
clearInterval(ticker);
Bun.gc(true);
await Bun.sleep(100);

const report = {
  module,
  first_count: { tokens: first, ms: +firstMs.toFixed(0) },
  utterances: { count: utterances, tokens, ms: +perUtteranceMs.toFixed(0) },
  whole_transcripts: { tokens: whole, ms: +wholeMs.toFixed(0) },
  worst_event_loop_lag_ms: +worstLag.toFixed(0),
  rss_mb: { before, after: status("VmRSS"), peak: status("VmHWM") },
};
console.log(JSON.stringify(report, null, 2));
process.exit(0);
