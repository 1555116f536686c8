import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { atLeast, estimateTokens, journalPermission, levelRank, normalizeFolderPath, PERMISSION_LEVELS, statusTimestamps, type PermissionLevel } from "../../domain/journals.ts";

const user = fc.constantFrom("author", "a", "b", "c");
const shares = fc.dictionary(fc.constantFrom("author", "a", "b", "c"), fc.constantFrom(...PERMISSION_LEVELS)).map((d) => new Map(Object.entries(d)) as Map<string, PermissionLevel>);
const facts = fc.record({ authorId: fc.constant("author"), isPublic: fc.boolean(), shares });

describe("journal permissions", () => {
  test("the author always manages, whatever the shares say", () => {
    fc.assert(fc.property(facts, (f) => expect(journalPermission(f, "author")).toBe("manage")));
  });

  test("visible exactly when public, authored, shared (or under the GM override)", () => {
    fc.assert(
      fc.property(facts, user, fc.boolean(), (f, u, gm) => {
        const visible = journalPermission(f, u, gm) !== null;
        expect(visible).toBe(f.isPublic || u === f.authorId || f.shares.has(u) || gm);
      }),
    );
  });

  test("monotone: a stronger share never gives less, and making an entry public never takes away", () => {
    fc.assert(
      fc.property(facts, user, fc.constantFrom(...PERMISSION_LEVELS), fc.constantFrom(...PERMISSION_LEVELS), (f, u, l1, l2) => {
        const [weak, strong] = levelRank(l1) <= levelRank(l2) ? [l1, l2] : [l2, l1];
        const withWeak = journalPermission({ ...f, shares: new Map([...f.shares, [u, weak]]) }, u);
        const withStrong = journalPermission({ ...f, shares: new Map([...f.shares, [u, strong]]) }, u);
        expect(levelRank(withStrong!)).toBeGreaterThanOrEqual(levelRank(withWeak!));
        const privately = journalPermission({ ...f, isPublic: false }, u);
        const publicly = journalPermission({ ...f, isPublic: true }, u);
        if (privately) expect(atLeast(publicly, privately)).toBe(true);
        expect(publicly).not.toBeNull();
      }),
    );
  });

  test("public alone grants view only; levels are ordered view < comment < edit < manage", () => {
    expect(journalPermission({ authorId: "x", isPublic: true, shares: new Map() }, "y")).toBe("view");
    expect(PERMISSION_LEVELS.map(levelRank)).toEqual([0, 1, 2, 3]);
    expect(atLeast("edit", "comment")).toBe(true);
    expect(atLeast("comment", "edit")).toBe(false);
    expect(atLeast(null, "view")).toBe(false);
  });
});

describe("folder paths", () => {
  test("examples", () => {
    expect(normalizeFolderPath("/Lore//NPCs/")).toBe("Lore/NPCs");
    expect(normalizeFolderPath("  a / b  ")).toBe("a/b");
    expect(normalizeFolderPath("///")).toBe("");
  });

  test("normalization is idempotent and leaves no empty segment or outer slash", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("/", " ", "a", "B", "é") }), (path) => {
        const once = normalizeFolderPath(path);
        expect(normalizeFolderPath(once)).toBe(once);
        expect(once).not.toMatch(/^\/|\/$|\/\//);
        for (const segment of once ? once.split("/") : []) expect(segment).toBe(segment.trim());
      }),
    );
  });
});

describe("tokens and status stamps", () => {
  test("four characters a token, rounded up; additive within a rounding", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("a".repeat(200_000))).toBe(50_000);
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      const sum = estimateTokens(a) + estimateTokens(b);
      expect(estimateTokens(a + b)).toBeLessThanOrEqual(sum);
      expect(estimateTokens(a + b)).toBeGreaterThanOrEqual(sum - 1);
    }));
  });

  test("publishing stamps once; a given time wins; archiving stamps its own", () => {
    const none = { status: "draft" as const, published_at: null, archived_at: null };
    expect(statusTimestamps("published", {}, none, "T1")).toEqual({ published_at: "T1", archived_at: null });
    expect(statusTimestamps("published", { published_at: "T0" }, none, "T1")).toEqual({ published_at: "T0", archived_at: null });
    expect(statusTimestamps("published", {}, { status: "published", published_at: "T0", archived_at: null }, "T2").published_at).toBe("T0");
    expect(statusTimestamps("archived", {}, { status: "published", published_at: "T0", archived_at: null }, "T3")).toEqual({ published_at: "T0", archived_at: "T3" });
    expect(statusTimestamps("draft", {}, none, "T4")).toEqual({ published_at: null, archived_at: null });
  });
});
