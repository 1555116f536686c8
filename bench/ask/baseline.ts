// Plain keyword-search baseline for the Ask benchmark: BM25 over windows of consecutive turns of
// the CRD3 campaign-1 transcripts, scored on bench/ask/questions.json. Importable, so bench/ask.ts
// can measure it in the same run as POST /v1/ask.
//
//   bun bench/ask/baseline.ts      (reads CRD3_DIR, default ../shared/datasets/crd3 beside the
//                                   project root; writes bench/results/ask-baseline.json)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR, ROOT } from "../lib/env.ts";

export interface AskQuestion {
  id: string;
  question: string;
  gold_episodes: string[];
  answer_keywords: string[];
  kind: string;
}

export interface Window {
  episode: string;
  firstTurn: number;
  lastTurn: number;
  text: string;
}

export interface Hit extends Window {
  score: number;
  /** score / the best score the query could reach (every term once in a window of average length); comparable across queries. */
  normalized: number;
}

export interface BaselineIndex {
  windows: Window[];
  terms: Map<string, number>[];
  lengths: number[];
  averageLength: number;
  documentFrequency: Map<string, number>;
}

export const WINDOW_TURNS = 20;
/** Windows overlap by half so an answer near a boundary is whole in one of them. */
export const WINDOW_STRIDE = 10;
/** Below this normalized top score the baseline answers "not in the campaign". Fixed by hand, not fitted to the questions. */
export const ABSENT_THRESHOLD = 0.5;
const K1 = 1.2;
const B = 0.75;

// A short English stop list plus table talk that carries no topic.
const STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each " +
    "few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only " +
    "or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up " +
    "very was we were what when where which while who whom whose why will with would you your yours yourself yourselves us got get go going gonna okay ok yeah yes oh like know " +
    "one two also back right well really thing say said tell told let happened happen last time session episode"
  ).split(" "),
);

/** Lower-case words of two or more letters or digits (inner apostrophes kept: "k'varn", "vex'ahlia"), without stop words. */
export function tokenize(text: string): string[] {
  const words = text.toLowerCase().replace(/[’‘]/g, "'").match(/[a-z0-9]+(?:'[a-z0-9]+)*/g) ?? [];
  return words.map((w) => w.replace(/'s$/, "")).filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

interface Turn {
  NAMES: string[];
  UTTERANCES: string[];
  NUMBER: number;
}

/** The episode files (C1E001.json…) of a CRD3 folder, as windows of consecutive turns ("SPEAKER: text" lines). */
export function loadWindows(dir: string): Window[] {
  const files = readdirSync(dir).filter((name) => /^C\d+E\d+\.json$/.test(name)).sort();
  const windows: Window[] = [];
  for (const file of files) {
    const episode = file.replace(/\.json$/, "");
    const turns = (JSON.parse(readFileSync(join(dir, file), "utf8")) as { TURNS: Turn[] }).TURNS;
    for (let start = 0; start < turns.length; start += WINDOW_STRIDE) {
      const slice = turns.slice(start, start + WINDOW_TURNS);
      windows.push({
        episode,
        firstTurn: slice[0]!.NUMBER,
        lastTurn: slice[slice.length - 1]!.NUMBER,
        text: slice.map((t) => `${t.NAMES.join("/")}: ${t.UTTERANCES.join(" ")}`).join("\n"),
      });
      if (start + WINDOW_TURNS >= turns.length) break;
    }
  }
  return windows;
}

export function buildIndex(windows: Window[]): BaselineIndex {
  const documentFrequency = new Map<string, number>();
  const terms: Map<string, number>[] = [];
  const lengths: number[] = [];
  for (const window of windows) {
    const counts = new Map<string, number>();
    const tokens = tokenize(window.text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const token of counts.keys()) documentFrequency.set(token, (documentFrequency.get(token) ?? 0) + 1);
    terms.push(counts);
    lengths.push(tokens.length);
  }
  const averageLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  return { windows, terms, lengths, averageLength, documentFrequency };
}

const idf = (index: BaselineIndex, term: string) => {
  const n = index.documentFrequency.get(term) ?? 0;
  return Math.log(1 + (index.windows.length - n + 0.5) / (n + 0.5));
};

/** The top `k` windows for a question by BM25 (k1 1.2, b 0.75). */
export function baselineSearch(index: BaselineIndex, question: string, k = 5): Hit[] {
  const query = [...new Set(tokenize(question))];
  const weights = query.map((term) => [term, idf(index, term)] as const);
  // One occurrence of every term in a window of average length: the scale for `normalized`.
  const ceiling = weights.reduce((sum, [, w]) => sum + (w * (K1 + 1)) / (1 + K1), 0) || 1;
  const scored: { i: number; score: number }[] = [];
  for (let i = 0; i < index.windows.length; i++) {
    const counts = index.terms[i]!;
    const norm = K1 * (1 - B + (B * index.lengths[i]!) / index.averageLength);
    let score = 0;
    for (const [term, weight] of weights) {
      const tf = counts.get(term);
      if (tf) score += (weight * tf * (K1 + 1)) / (tf + norm);
    }
    if (score > 0) scored.push({ i, score });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, k).map(({ i, score }) => ({ ...index.windows[i]!, score, normalized: score / ceiling }));
}

export interface QuestionResult {
  id: string;
  kind: string;
  episodes: string[];
  top_score: number;
  hit_at_1: boolean;
  hit_at_5: boolean;
  keywords_found: boolean;
  said_absent: boolean;
}

export interface BaselineReport {
  questions: number;
  answerable: number;
  absent: number;
  recall_at_1: number;
  recall_at_5: number;
  keyword_accuracy: number;
  absent_threshold: number;
  /** Absent questions whose top normalized score fell below the threshold (correct "not in the campaign"). */
  absent_detected: number;
  /** Answerable questions wrongly declared absent. */
  answerable_declared_absent: number;
  by_kind: Record<string, { n: number; recall_at_1: number; recall_at_5: number; keyword_accuracy: number }>;
  results: QuestionResult[];
}

/** Runs every question through the baseline; recall and keyword accuracy count answerable questions only. */
export function evaluateBaseline(index: BaselineIndex, questions: AskQuestion[], threshold = ABSENT_THRESHOLD): BaselineReport {
  const results: QuestionResult[] = questions.map((q) => {
    const hits = baselineSearch(index, q.question, 5);
    const episodes = hits.map((h) => h.episode);
    const text = hits.map((h) => h.text).join("\n").toLowerCase();
    const top = hits[0]?.normalized ?? 0;
    return {
      id: q.id,
      kind: q.kind,
      episodes,
      top_score: Number(top.toFixed(3)),
      hit_at_1: episodes.slice(0, 1).some((e) => q.gold_episodes.includes(e)),
      hit_at_5: episodes.some((e) => q.gold_episodes.includes(e)),
      keywords_found: q.answer_keywords.length > 0 && q.answer_keywords.every((kw) => text.includes(kw.toLowerCase())),
      said_absent: top < threshold,
    };
  });
  const answerable = results.filter((r) => r.kind !== "absent");
  const absent = results.filter((r) => r.kind === "absent");
  const share = (rs: QuestionResult[], f: (r: QuestionResult) => boolean) => (rs.length ? Number((rs.filter(f).length / rs.length).toFixed(3)) : 0);
  const by_kind: BaselineReport["by_kind"] = {};
  for (const kind of [...new Set(answerable.map((r) => r.kind))].sort()) {
    const rs = answerable.filter((r) => r.kind === kind);
    by_kind[kind] = { n: rs.length, recall_at_1: share(rs, (r) => r.hit_at_1), recall_at_5: share(rs, (r) => r.hit_at_5), keyword_accuracy: share(rs, (r) => r.keywords_found) };
  }
  return {
    questions: results.length,
    answerable: answerable.length,
    absent: absent.length,
    recall_at_1: share(answerable, (r) => r.hit_at_1),
    recall_at_5: share(answerable, (r) => r.hit_at_5),
    keyword_accuracy: share(answerable, (r) => r.keywords_found),
    absent_threshold: threshold,
    absent_detected: absent.filter((r) => r.said_absent).length,
    answerable_declared_absent: answerable.filter((r) => r.said_absent).length,
    by_kind,
    results,
  };
}

export const QUESTIONS_FILE = join(ROOT, "bench", "ask", "questions.json");
export const datasetDir = () => process.env.CRD3_DIR?.trim() || join(ROOT, "..", "shared", "datasets", "crd3");
export const loadQuestions = (file = QUESTIONS_FILE) => JSON.parse(readFileSync(file, "utf8")) as AskQuestion[];

if (import.meta.main) {
  const dir = datasetDir();
  if (!existsSync(dir)) {
    console.error(`no CRD3 dataset at ${dir}: set CRD3_DIR to the folder holding C1E001.json…`);
    process.exit(2);
  }
  const windows = loadWindows(dir);
  if (windows.length === 0) {
    console.error(`no episode files (C1E001.json…) in ${dir}`);
    process.exit(2);
  }
  const report = evaluateBaseline(buildIndex(windows), loadQuestions());
  console.log(`Ask baseline: BM25 over ${windows.length} windows of ${WINDOW_TURNS} turns (stride ${WINDOW_STRIDE}) from ${dir}`);
  console.table({
    all: { n: report.answerable, "recall@1": report.recall_at_1, "recall@5": report.recall_at_5, "keyword acc.": report.keyword_accuracy },
    ...Object.fromEntries(Object.entries(report.by_kind).map(([k, v]) => [k, { n: v.n, "recall@1": v.recall_at_1, "recall@5": v.recall_at_5, "keyword acc.": v.keyword_accuracy }])),
  });
  console.log(
    `not in the campaign (normalized top score < ${report.absent_threshold}): ${report.absent_detected}/${report.absent} absent questions refused, ` +
      `${report.answerable_declared_absent}/${report.answerable} answerable questions wrongly refused`,
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const out = join(RESULTS_DIR, "ask-baseline.json");
  writeFileSync(out, `${JSON.stringify({ dataset: dir, window_turns: WINDOW_TURNS, window_stride: WINDOW_STRIDE, ...report }, null, 1)}\n`);
  console.log(`results: ${out}`);
}
