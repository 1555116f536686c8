import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { aliasKey, answersTo, dedupeAliases, mergeAliases, normalizeAlias } from "../../domain/aliases.ts";
import { linkMentions, parseWikilinks, renderSegments, retargetLinks, stripWikilinks, unlinkTarget, wikilinkTargets } from "../../domain/wikilinks.ts";

// Text rich in the characters that matter to the grammar.
const markupish = fc.string({ unit: fc.constantFrom("[", "]", "|", "a", "b", " ", "\n", "Mira", "[[", "]]", "é") });
const name = fc.stringMatching(/^[A-Za-z][A-Za-z' ]{0,15}[A-Za-z]$/);
const plain = fc.string().filter((s) => !s.includes("[["));

describe("wikilinks", () => {
  test("examples", () => {
    expect(stripWikilinks("Met [[Mira]] at the docks")).toBe("Met Mira at the docks");
    expect(stripWikilinks("Met [[Mira|the captain]] there")).toBe("Met the captain there");
    expect(stripWikilinks("[[Mira|]]")).toBe("Mira");
    expect(stripWikilinks("[[ ]] and [[a\nb]]")).toBe("[[ ]] and [[a\nb]]");
    expect(wikilinkTargets("[[Grog]] and [[grog|him]] and [[Vex'ahlia|Vex]]")).toEqual(["Grog", "Vex'ahlia"]);
  });

  test("parsing is lossless: rendering the segments gives the text back", () => {
    fc.assert(fc.property(markupish, (text) => expect(renderSegments(parseWikilinks(text))).toBe(text)));
  });

  test("strip∘parse: every link is replaced by its shown text, every plain run kept", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(plain.map((t) => ({ t })), fc.record({ target: name, shown: fc.option(name, { nil: null }) }))), (parts) => {
        const text = parts.map((p) => ("t" in p ? p.t : p.shown === null ? `[[${p.target}]]` : `[[${p.target}|${p.shown}]]`)).join("");
        const seen = parts.map((p) => ("t" in p ? p.t : (p.shown ?? p.target))).join("");
        fc.pre(!seen.includes("[["));
        expect(stripWikilinks(text)).toBe(seen);
      }),
    );
  });

  test("stripping is idempotent", () => {
    fc.assert(fc.property(markupish, (text) => expect(stripWikilinks(stripWikilinks(text))).toBe(stripWikilinks(text))));
    expect(stripWikilinks("[[[[a]]]]")).toBe("a");
  });

  test("text without markup is unchanged", () => {
    fc.assert(fc.property(plain, (text) => expect(stripWikilinks(text)).toBe(text)));
  });

  test("maintenance: add links mentions, remove unlinks them, and neither changes what a reader sees", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(plain.filter((s) => !s.includes("]]")), fc.constant("Mira"), fc.constant("mira"))), name, (parts, target) => {
        const text = parts.join(" ");
        const linked = linkMentions(text, "Mira", target);
        expect(stripWikilinks(linked)).toBe(stripWikilinks(text));
        expect(linkMentions(linked, "Mira", target)).toBe(linked);
        expect(stripWikilinks(unlinkTarget(linked, target))).toBe(stripWikilinks(text));
      }),
    );
    expect(linkMentions("Mira met Miranda; mira left", "Mira", "Mira")).toBe("[[Mira]] met Miranda; [[Mira|mira]] left");
    expect(unlinkTarget("[[Mira|the captain]] and [[Grog]]", "mira")).toBe("the captain and [[Grog]]");
    expect(retargetLinks("[[Mira]] and [[Mira|her]]", "Mira", "Captain Mira")).toBe("[[Captain Mira|Mira]] and [[Captain Mira|her]]");
  });
});

describe("aliases", () => {
  test("normalization is idempotent and never leaves double or outer spaces", () => {
    fc.assert(
      fc.property(fc.string(), (alias) => {
        const once = normalizeAlias(alias);
        expect(normalizeAlias(once)).toBe(once);
        expect(once).not.toMatch(/\s\s|^\s|\s$/u);
      }),
    );
  });

  test("dedupe: idempotent, keys unique, nothing lost, first spelling and order kept", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom("Vex", "vex", " VEX ", "Vex'ahlia", ""))), (aliases) => {
        const deduped = dedupeAliases(aliases);
        expect(dedupeAliases(deduped)).toEqual(deduped);
        expect(new Set(deduped.map(aliasKey)).size).toBe(deduped.length);
        for (const alias of aliases) if (normalizeAlias(alias)) expect(deduped.map(aliasKey)).toContain(aliasKey(alias));
        const firstSpellings = aliases.map(normalizeAlias).filter((a, i, all) => a && all.findIndex((b) => aliasKey(b) === aliasKey(a)) === i);
        expect(deduped).toEqual(firstSpellings);
      }),
    );
  });

  test("the deprecated single alias is split and merged", () => {
    expect(mergeAliases(["Vex"], "vex, Lady Briarwood; Vex'ahlia")).toEqual(["Vex", "Lady Briarwood", "Vex'ahlia"]);
    expect(answersTo("VEX", { name: "Vex'ahlia", aliases: ["Vex"] })).toBe(true);
    expect(answersTo("", { name: "", aliases: [] })).toBe(false);
  });
});
