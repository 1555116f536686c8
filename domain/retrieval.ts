// Retrieval rules that need no storage: what a question says about sessions, how ranked lists fuse.

export interface SessionHints {
  /** Session numbers named ("session 12", "episode 3", "the 2nd session"). */
  numbers: number[];
  /** How many sessions back from the latest ("last session" = 1, "two sessions ago" = 2). */
  back: number[];
  /** "the first session". */
  first: boolean;
}

const WORD_NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10 };

/** Reads session references out of a question; words it does not know are left to the ranking. */
export function sessionHints(question: string): SessionHints {
  const text = question.toLowerCase();
  const numbers = new Set<number>();
  const back = new Set<number>();
  for (const m of text.matchAll(/\b(?:session|episode|game|ep\.?)\s*#?\s*(\d{1,4})\b/gu)) numbers.add(Number(m[1]));
  for (const m of text.matchAll(/\b(\d{1,4})(?:st|nd|rd|th)\s+(?:session|episode)\b/gu)) numbers.add(Number(m[1]));
  for (const m of text.matchAll(/\b(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+(?:session|episode)\b/gu)) numbers.add(ORDINALS[m[1]!]!);
  if (/\b(?:last|previous|latest|most recent|prior)\s+(?:session|episode|game|time we played)\b/u.test(text)) back.add(1);
  for (const m of text.matchAll(/\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:sessions|episodes|games)\s+ago\b/gu))
    back.add(/\d/u.test(m[1]!) ? Number(m[1]) : WORD_NUMBERS[m[1]!]!);
  const first = /\b(?:first|opening)\s+(?:session|episode|game)\b/u.test(text);
  return { numbers: [...numbers].filter((n) => n > 0), back: [...back].filter((n) => n > 0), first };
}

/** Reciprocal-rank fusion of ranked id lists (k = 60, the usual constant): best fused first. */
export function reciprocalRankFusion(lists: string[][], k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + rank + 1)));
  return fused;
}

/** Cosine similarity of two vectors of equal length; 0 when either is all zeros. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length && i < b.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
