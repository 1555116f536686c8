// Retrieval rules without storage: session references read out of questions, rank fusion, cosine.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { cosine, reciprocalRankFusion, sessionHints } from "../../domain/retrieval.ts";

describe("session hints", () => {
  test("numbers, ordinals, the last sessions and the first", () => {
    expect(sessionHints("What happened in session 12?")).toEqual({ numbers: [12], back: [], first: false });
    expect(sessionHints("Recap episode #3 and the 5th session")).toEqual({ numbers: [3, 5], back: [], first: false });
    expect(sessionHints("who did we meet last session?")).toEqual({ numbers: [], back: [1], first: false });
    expect(sessionHints("what did Jester buy two sessions ago")).toEqual({ numbers: [], back: [2], first: false });
    expect(sessionHints("Which player missed the very first session?")).toEqual({ numbers: [], back: [], first: true });
    expect(sessionHints("the third session")).toEqual({ numbers: [3], back: [], first: false });
  });
  test("a question without a session reference has no hint", () => {
    expect(sessionHints("Who has the Star Razor now?")).toEqual({ numbers: [], back: [], first: false });
    expect(sessionHints("We sessioned 12 hours")).toEqual({ numbers: [], back: [], first: false });
  });
});

describe("reciprocal-rank fusion", () => {
  test("an item high in both lists beats one high in a single list", () => {
    const fused = reciprocalRankFusion([["a", "b", "c"], ["b", "c", "a"]]);
    expect([...fused.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id)).toEqual(["b", "a", "c"]);
    expect(fused.get("b")).toBeCloseTo(1 / 62 + 1 / 61, 10);
  });
  test("one list keeps its order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 30 }), (ids) => {
        const fused = reciprocalRankFusion([ids]);
        expect([...fused.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id)).toEqual(ids);
      }),
    );
  });
});

describe("cosine", () => {
  test("parallel, orthogonal, opposite and zero vectors", () => {
    expect(cosine([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 10);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [-1, -1])).toBeCloseTo(-1, 10);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
