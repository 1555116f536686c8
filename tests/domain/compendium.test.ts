import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { characterSearchText, nameClashesWithSpeaker } from "../../domain/characters.ts";
import { wouldCreateCycle } from "../../domain/hierarchy.ts";
import { linkAlias } from "../../domain/links.ts";

/** A random forest of locations: each node's parent is an earlier node or none, so it has no cycles. */
const forest = fc.integer({ min: 1, max: 30 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => (i === 0 ? fc.constant(null) : fc.option(fc.integer({ min: 0, max: i - 1 }), { nil: null })))).map((parents) => parents as (number | null)[]),
);

const isAncestor = (parents: (number | null)[], ancestor: number, of: number): boolean => {
  for (let current = parents[of]; current !== null && current !== undefined; current = parents[current]) if (current === ancestor) return true;
  return false;
};

describe("location ancestry", () => {
  test("a move is refused exactly when the new parent is the location itself or one of its descendants", () => {
    fc.assert(
      fc.property(forest, fc.nat(), fc.nat(), (parents, a, b) => {
        const id = a % parents.length;
        const newParent = b % parents.length;
        const parentOf = (node: string) => {
          const p = parents[Number(node)];
          return p === null || p === undefined ? null : String(p);
        };
        const refused = wouldCreateCycle(String(id), String(newParent), parentOf);
        expect(refused).toBe(newParent === id || isAncestor(parents, id, newParent));
      }),
    );
  });

  test("after any sequence of accepted moves the hierarchy stays acyclic", () => {
    fc.assert(
      fc.property(forest, fc.array(fc.tuple(fc.nat(), fc.option(fc.nat(), { nil: null })), { maxLength: 40 }), (initial, moves) => {
        const parents = [...initial];
        const parentOf = (node: string) => {
          const p = parents[Number(node)];
          return p === null || p === undefined ? null : String(p);
        };
        for (const [a, b] of moves) {
          const id = a % parents.length;
          const next = b === null ? null : b % parents.length;
          if (!wouldCreateCycle(String(id), next === null ? null : String(next), parentOf)) parents[id] = next;
        }
        for (let node = 0; node < parents.length; node++) expect(isAncestor(parents, node, node)).toBe(false);
      }),
    );
  });

  test("an existing loop in the data is refused rather than followed forever", () => {
    const loop: Record<string, string> = { a: "b", b: "a" };
    expect(wouldCreateCycle("c", "a", (id) => loop[id])).toBe(true);
  });
});

describe("compendium rules", () => {
  test("a link's alias defaults to the target's name and is normalized", () => {
    expect(linkAlias(undefined, "  Grog  Strongjaw ")).toBe("Grog Strongjaw");
    expect(linkAlias("  the   big guy ", "Grog")).toBe("the big guy");
    fc.assert(fc.property(fc.option(fc.string(), { nil: null }), fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""), (alias, name) => expect(linkAlias(alias, name).length).toBeGreaterThan(0)));
  });

  test("name clash with the linked speaker ignores case and spacing", () => {
    expect(nameClashesWithSpeaker("Laura ", "laura")).toBe(true);
    expect(nameClashesWithSpeaker("Vex", "Laura")).toBe(false);
    expect(nameClashesWithSpeaker("Vex", null)).toBe(false);
  });

  test("search text carries name, aliases, player and type", () => {
    expect(characterSearchText({ character_name: "Vex", character_aliases: ["Lady Briarwood"], player_name: "Laura", player_handle: null, type: "PC" })).toBe("Vex Lady Briarwood Laura PC");
  });
});
