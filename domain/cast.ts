// Cast analysis: who talked how much, how, and when — computed in one pass over a transcript.
import { speakersOf, wordCount, type Utterance } from "./transcripts.ts";

interface SpeakerTally {
  lines: number;
  words: number;
  turns: number;
  questions: number;
  lastLine: number; // index of the speaker's last line, -1 before any
  longestAbsence: number; // most lines in a row without this speaker
  firstLine: number;
}

export interface CastAccumulator {
  lines: number;
  speakers: Map<string, SpeakerTally>;
  previousSpeakers: string[];
  minutes: Map<number, Map<string, number>>; // minute → speaker → words
  lastEnd: number;
}

export const newCastAccumulator = (): CastAccumulator => ({ lines: 0, speakers: new Map(), previousSpeakers: [], minutes: new Map(), lastEnd: 0 });

const isQuestion = (text: string) => text.includes("?");

/** Adds one utterance. A line spoken by several speakers counts for each of them. */
export function addUtterance(acc: CastAccumulator, utterance: Utterance): void {
  const index = acc.lines++;
  const words = wordCount(utterance.text);
  const question = isQuestion(utterance.text);
  const speakers = [...new Set(speakersOf(utterance.speaker))];
  const minute = Math.max(0, Math.floor(utterance.start / 60));
  const perMinute = acc.minutes.get(minute) ?? acc.minutes.set(minute, new Map()).get(minute)!;
  for (const speaker of speakers) {
    let tally = acc.speakers.get(speaker);
    if (!tally) {
      tally = { lines: 0, words: 0, turns: 0, questions: 0, lastLine: -1, longestAbsence: index, firstLine: index };
      acc.speakers.set(speaker, tally);
    } else {
      tally.longestAbsence = Math.max(tally.longestAbsence, index - tally.lastLine - 1);
    }
    tally.lines++;
    tally.words += words;
    if (question) tally.questions++;
    if (!acc.previousSpeakers.includes(speaker)) tally.turns++;
    tally.lastLine = index;
    perMinute.set(speaker, (perMinute.get(speaker) ?? 0) + words);
  }
  acc.previousSpeakers = speakers;
  acc.lastEnd = Math.max(acc.lastEnd, utterance.end);
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Gini coefficient of non-negative values: 0 when all equal, towards 1 when one has everything. */
export function gini(values: readonly number[]): number {
  const n = values.length;
  const total = values.reduce((a, b) => a + b, 0);
  if (n < 2 || total === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const weighted = sorted.reduce((sum, value, i) => sum + (i + 1) * value, 0);
  return (2 * weighted) / (n * total) - (n + 1) / n;
}

export const TIMELINE_BUCKETS = 12;

/** A type (not an interface): stored as the session's JSON cast analysis artifact. */
export type CastAnalysis = {
  coreSessionMetrics: { totalLines: number; totalTurns: number; totalWords: number; avgTurnWords: number; avgWordsPerLine: number; utterances: number; durationSeconds: number };
  talkShare: Record<string, number>;
  bySpeaker: Record<string, { lines: number; words: number; share: number; questions: number; questionRate: number; avgWordsPerLine: number }>;
  turnStatsBySpeaker: Record<string, { turns: number; avgTurnWords: number }>;
  questions: { total: number; rate: number; bySpeaker: Record<string, number> };
  pacing: { bucketSeconds: number; wordsPerMinute: number[] };
  timelineActivity: { bucketSeconds: number; buckets: { start: number; end: number; words: Record<string, number> }[] };
  dominance: { topSpeaker: string | null; topShare: number; herfindahl: number };
  spotlightEquity: { gini: number; equity: number; excluded: string[] };
  longest_absence_lines: Record<string, number>;
};

/**
 * The finished analysis. Totals are sums over speakers (a shared line counts for each of its
 * speakers), so shares sum to 1. `gmSpeakers` are left out of spotlight equity: the game master's
 * share is not a player's spotlight.
 */
export function finishCastAnalysis(acc: CastAccumulator, gmSpeakers: readonly string[] = []): CastAnalysis {
  const entries = [...acc.speakers.entries()].sort(([a], [b]) => a.localeCompare(b));
  const totalWords = entries.reduce((sum, [, t]) => sum + t.words, 0);
  const totalLines = entries.reduce((sum, [, t]) => sum + t.lines, 0);
  const totalTurns = entries.reduce((sum, [, t]) => sum + t.turns, 0);
  const totalQuestions = entries.reduce((sum, [, t]) => sum + t.questions, 0);
  const share = (words: number) => (totalWords > 0 ? words / totalWords : 0);

  const talkShare: CastAnalysis["talkShare"] = {};
  const bySpeaker: CastAnalysis["bySpeaker"] = {};
  const turnStatsBySpeaker: CastAnalysis["turnStatsBySpeaker"] = {};
  const questionsBySpeaker: Record<string, number> = {};
  const absences: Record<string, number> = {};
  for (const [speaker, t] of entries) {
    talkShare[speaker] = share(t.words);
    bySpeaker[speaker] = { lines: t.lines, words: t.words, share: share(t.words), questions: t.questions, questionRate: round(ratio(t.questions, t.lines)), avgWordsPerLine: round(ratio(t.words, t.lines)) };
    turnStatsBySpeaker[speaker] = { turns: t.turns, avgTurnWords: round(ratio(t.words, t.turns)) };
    questionsBySpeaker[speaker] = t.questions;
    absences[speaker] = Math.max(t.longestAbsence, acc.lines - t.lastLine - 1);
  }

  const duration = acc.lastEnd;
  const bucketSeconds = Math.max(60, Math.ceil(duration / TIMELINE_BUCKETS / 60) * 60);
  const bucketCount = acc.lines ? Math.max(1, Math.ceil(duration / bucketSeconds)) : 0;
  const buckets = Array.from({ length: bucketCount }, (_, i) => ({ start: i * bucketSeconds, end: (i + 1) * bucketSeconds, words: {} as Record<string, number> }));
  for (const [minute, perSpeaker] of acc.minutes) {
    const bucket = buckets[Math.min(bucketCount - 1, Math.floor((minute * 60) / bucketSeconds))];
    if (!bucket) continue;
    for (const [speaker, words] of perSpeaker) bucket.words[speaker] = (bucket.words[speaker] ?? 0) + words;
  }
  const wordsPerMinute = buckets.map((bucket) => round(Object.values(bucket.words).reduce((a, b) => a + b, 0) / (bucketSeconds / 60), 2));

  const [top] = [...entries].sort(([, a], [, b]) => b.words - a.words);
  const herfindahl = entries.reduce((sum, [, t]) => sum + share(t.words) ** 2, 0);
  const excluded = entries.map(([speaker]) => speaker).filter((speaker) => gmSpeakers.some((gm) => gm.toLowerCase() === speaker.toLowerCase()));
  const playerWords = entries.filter(([speaker]) => !excluded.includes(speaker)).map(([, t]) => t.words);
  const g = gini(playerWords);

  return {
    coreSessionMetrics: {
      totalLines,
      totalTurns,
      totalWords,
      avgTurnWords: round(ratio(totalWords, totalTurns)),
      avgWordsPerLine: round(ratio(totalWords, totalLines)),
      utterances: acc.lines,
      durationSeconds: round(duration, 1),
    },
    talkShare,
    bySpeaker,
    turnStatsBySpeaker,
    questions: { total: totalQuestions, rate: round(ratio(totalQuestions, totalLines)), bySpeaker: questionsBySpeaker },
    pacing: { bucketSeconds, wordsPerMinute },
    timelineActivity: { bucketSeconds, buckets },
    dominance: { topSpeaker: top && top[1].words > 0 ? top[0] : null, topShare: top ? share(top[1].words) : 0, herfindahl: round(herfindahl) },
    spotlightEquity: { gini: round(g), equity: round(1 - g), excluded },
    longest_absence_lines: absences,
  };
}

export const analyzeUtterances = (utterances: Iterable<Utterance>, gmSpeakers: readonly string[] = []): CastAnalysis => {
  const acc = newCastAccumulator();
  for (const utterance of utterances) addUtterance(acc, utterance);
  return finishCastAnalysis(acc, gmSpeakers);
};
