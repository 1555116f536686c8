// A seeded generator for the benches' data, so every run builds the same data. mulberry32 in 32-bit
// integer steps: an LCG multiplied in doubles loses its low bits past 2^53 and cycles early (the
// search bench's old one: 15,825 draws).

/** Uniform numbers in [0, 1), the same sequence for the same seed. */
export function mulberry32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
