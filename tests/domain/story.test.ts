import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { nest, wouldCreateCycle } from "../../domain/hierarchy.ts";
import { mayHaveParent, type BeatType } from "../../domain/beats.ts";
import { mergeMetadata } from "../../domain/metadata.ts";
import { normalizeCategories } from "../../domain/moments.ts";

interface MiniBeat {
  id: string;
  type: BeatType;
  parent_id: string | null;
  index: number;
  created_at: string;
}

const beatsArb = fc
  .array(fc.record({ type: fc.constantFrom<BeatType>("major", "minor", "step"), index: fc.nat(5) }), { minLength: 1, maxLength: 15 })
  .map((list) => list.map((b, i): MiniBeat => ({ ...b, id: `b${i}`, parent_id: null, created_at: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z` })));

const patches = fc.array(fc.tuple(fc.nat(), fc.option(fc.nat(), { nil: null })), { maxLength: 40 });

/** The application's rule for a parent patch, over an in-memory hierarchy. */
const tryPatch = (beats: MiniBeat[], id: string, parent: string | null): boolean => {
  const beat = beats.find((b) => b.id === id)!;
  if (parent !== null && !mayHaveParent(beat.type)) return false;
  const parentOf = (x: string) => beats.find((b) => b.id === x)?.parent_id;
  if (wouldCreateCycle(id, parent, parentOf)) return false;
  beat.parent_id = parent;
  return true;
};

describe("beat hierarchy", () => {
  test("no cycles after any sequence of parent patches; majors never get a parent", () => {
    fc.assert(
      fc.property(beatsArb, patches, (beats, moves) => {
        for (const [a, b] of moves) tryPatch(beats, beats[a % beats.length]!.id, b === null ? null : beats[b % beats.length]!.id);
        for (const beat of beats) {
          const seen = new Set<string>();
          for (let at: string | null = beat.id; at; at = beats.find((b) => b.id === at)!.parent_id) {
            expect(seen.has(at)).toBe(false);
            seen.add(at);
          }
          if (beat.type === "major") expect(beat.parent_id).toBeNull();
        }
      }),
    );
  });

  test("nesting keeps every beat exactly once, under its parent, siblings by index", () => {
    fc.assert(
      fc.property(beatsArb, patches, (beats, moves) => {
        for (const [a, b] of moves) tryPatch(beats, beats[a % beats.length]!.id, b === null ? null : beats[b % beats.length]!.id);
        const roots = nest(beats);
        const seen: string[] = [];
        const walk = (nodes: ReturnType<typeof nest<MiniBeat>>, parent: string | null) => {
          for (let i = 1; i < nodes.length; i++) expect(nodes[i - 1]!.node.index).toBeLessThanOrEqual(nodes[i]!.node.index);
          for (const entry of nodes) {
            seen.push(entry.node.id);
            if (parent) expect(entry.node.parent_id).toBe(parent);
            walk(entry.children, entry.node.id);
          }
        };
        walk(roots, null);
        expect(seen.sort()).toEqual(beats.map((b) => b.id).sort());
      }),
    );
  });

  test("a beat whose parent is outside the set is a root", () => {
    const roots = nest([{ id: "a", parent_id: "gone", index: 0, created_at: "x" }]);
    expect(roots.map((r) => r.node.id)).toEqual(["a"]);
  });
});

describe("moment presentation", () => {
  test("metadata merge: sent keys win, null removes, others stay", () => {
    expect(mergeMetadata({ style: "a", variant: "b" }, { variant: null, customTheme: { x: 1 } })).toEqual({ style: "a", customTheme: { x: 1 } });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer()), fc.dictionary(fc.string(), fc.option(fc.integer(), { nil: null })), (current, patch) => {
        const merged = mergeMetadata(current, patch)!;
        for (const [key, value] of Object.entries(patch)) {
          if (value === null) expect(Object.hasOwn(merged, key)).toBe(false);
          else expect(Object.hasOwn(merged, key) && merged[key]).toBe(value);
        }
        for (const [key, value] of Object.entries(current)) if (!Object.hasOwn(patch, key)) expect(merged[key]).toBe(value);
      }),
    );
  });

  test("categories are normalized and deduplicated idempotently", () => {
    expect(normalizeCategories([" Key-Moment ", "key-moment", "", "Heroic"])).toEqual(["key-moment", "heroic"]);
    fc.assert(fc.property(fc.array(fc.string()), (list) => expect(normalizeCategories(normalizeCategories(list))).toEqual(normalizeCategories(list))));
  });
});
