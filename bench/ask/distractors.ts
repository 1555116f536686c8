// Distractor episodes for the Ask bench at scale (issue 15, item 4): ASK_BENCH_COPIES in bench/ask.ts.
import { mulberry32 } from "../lib/random.ts";

/** Lower-case words of every utterance, most frequent first, cut into bands of 64 (a word's band-mates are about as common). */
export function frequencyBands(texts: string[]): Map<string, string[]> {
  const counts = new Map<string, number>();
  for (const text of texts)
    for (const turn of (JSON.parse(text) as { TURNS: { UTTERANCES: string[] }[] }).TURNS)
      for (const word of turn.UTTERANCES.join(" ").toLowerCase().match(/[a-z']+/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([word]) => word);
  const bands = new Map<string, string[]>();
  for (let i = 0; i < ranked.length; i += 64) {
    const band = ranked.slice(i, i + 64);
    for (const word of band) bands.set(word, band);
  }
  return bands;
}

/** A shuffle of each band, drawn once per copy (mulberry32 seeded by the copy's number). */
export function bandPermutation(copy: number): (band: string[]) => string[] {
  const random = mulberry32(Math.imul(copy, 0x9e3779b9));
  const shuffled = new Map<string[], string[]>();
  return (band) => {
    let order = shuffled.get(band);
    if (!order) {
      order = [...band];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      shuffled.set(band, order);
    }
    return order;
  };
}

/**
 * An episode whose every word is replaced by another of its frequency band, by the copy's
 * permutation: the same lengths, speakers and word frequencies (each word's document frequency grows
 * with the copies, as in a longer campaign), but no distractor retells the real episode.
 */
export function distractorEpisode(text: string, bands: Map<string, string[]>, permutation: (band: string[]) => string[]): string {
  const replace = (word: string) => {
    const lower = word.toLowerCase();
    const band = bands.get(lower);
    if (!band) return word;
    const replaced = permutation(band)[band.indexOf(lower)]!;
    return word[0] !== word[0]!.toLowerCase() ? replaced[0]!.toUpperCase() + replaced.slice(1) : replaced;
  };
  const episode = JSON.parse(text) as { TURNS: { UTTERANCES: string[] }[] };
  for (const turn of episode.TURNS) turn.UTTERANCES = turn.UTTERANCES.map((u) => u.replace(/[A-Za-z']+/g, replace));
  return JSON.stringify({ TURNS: episode.TURNS });
}
