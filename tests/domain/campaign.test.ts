import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { archiveChange, DEFAULT_FIELD_DEFINITIONS, emptyCounts, normalizeTitle, STAT_KINDS } from "../../domain/campaign.ts";
import { isPlausibleEmail, keyPrefixOf, looksLikeApiKey, normalizeEmail } from "../../domain/identity.ts";
import { imageUrlProblem } from "../../domain/text.ts";

describe("campaign rules", () => {
  test("title normalization is idempotent and never leaves outer whitespace", () => {
    fc.assert(
      fc.property(fc.string(), (title) => {
        const once = normalizeTitle(title);
        expect(normalizeTitle(once)).toBe(once);
        expect(once).toBe(once.trim());
      }),
    );
  });

  test("archiving: what a PATCH leaves in archived_at", () => {
    const now = "2026-05-01T10:00:00.000Z";
    const earlier = "2026-01-01T00:00:00.000Z";
    const given = "2025-12-24T18:00:00.000Z";
    const cases: [string | null, { archived?: boolean; archived_at?: string | null }, string | null | undefined][] = [
      [null, {}, undefined],
      [earlier, {}, undefined],
      [null, { archived: true }, now],
      [earlier, { archived: true }, earlier],
      [earlier, { archived: false }, null],
      [null, { archived: false }, null],
      [null, { archived_at: given }, given],
      [earlier, { archived_at: null }, null],
      [null, { archived: true, archived_at: given }, given],
      [earlier, { archived: false, archived_at: null }, null],
    ];
    for (const [current, request, expected] of cases) expect([current, request, archiveChange(current, request, now)]).toEqual([current, request, { ok: true, value: expected }]);
    expect(archiveChange(null, { archived: true, archived_at: null }, now)).toEqual({
      ok: false,
      error: { failure: "invalid", detail: "archived_at cannot be null when archived is true", issues: [{ type: "value_error", loc: ["body", "archived_at"], msg: "archived_at cannot be null when archived is true", input: null }] },
    });
    expect(archiveChange(null, { archived: false, archived_at: given }, now)).toMatchObject({ ok: false, error: { failure: "invalid", detail: "archived_at must be null when archived is false" } });
  });

  test("stats start at zero for every kind", () => {
    const counts = emptyCounts();
    expect(Object.keys(counts).sort()).toEqual([...STAT_KINDS].sort());
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
  });

  test("default field definitions: unique keys per kind, positions 0..n-1", () => {
    for (const kind of ["character", "faction", "location", "item"] as const) {
      const defs = DEFAULT_FIELD_DEFINITIONS.filter((d) => d.entity_type === kind);
      expect(defs.length).toBeGreaterThan(0);
      expect(new Set(defs.map((d) => d.key)).size).toBe(defs.length);
      expect(defs.map((d) => d.position)).toEqual(defs.map((_, i) => i));
    }
  });
});

describe("image URLs", () => {
  test("https with a host is accepted; http, other schemes and over-long URLs are not", () => {
    expect(imageUrlProblem("https://example.com/a.png")).toBeNull();
    expect(imageUrlProblem("http://example.com/a.png")).not.toBeNull();
    expect(imageUrlProblem("ftp://example.com/a.png")).not.toBeNull();
    expect(imageUrlProblem("https://")).not.toBeNull();
    expect(imageUrlProblem(`https://e.com/${"a".repeat(2048 - 14)}`)).toBeNull(); // 2048 characters: the limit
    expect(imageUrlProblem(`https://e.com/${"a".repeat(2048 - 13)}`)).not.toBeNull();
  });

  test("any http:// URL is rejected, any short https URL with a host accepted", () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["http"] }), (url) => expect(imageUrlProblem(url)).not.toBeNull()),
    );
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["https"] }), (url) => {
        fc.pre(url.length <= 2048);
        expect(imageUrlProblem(url)).toBeNull();
      }),
    );
  });
});

describe("identity rules", () => {
  test("a key's visible prefix is a short head of it", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 20, maxLength: 80 }), (key) => {
        const prefix = keyPrefixOf(key);
        expect(key.startsWith(prefix)).toBe(true);
        expect(prefix.length).toBe(12); // keys are at least 20 characters; 12 of them are shown
      }),
    );
  });

  test("key shape check rejects spaces and short strings", () => {
    expect(looksLikeApiKey("cms_" + "a".repeat(40))).toBe(true);
    expect(looksLikeApiKey("short")).toBe(false);
    expect(looksLikeApiKey("cms_" + "a".repeat(20) + " x")).toBe(false);
  });

  test("email normalization is idempotent and keeps plausibility", () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const normal = normalizeEmail(email);
        expect(normalizeEmail(normal)).toBe(normal);
        expect(isPlausibleEmail(normal)).toBe(true);
      }),
    );
  });
});
