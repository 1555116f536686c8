import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { escapeHtml, queryWords, searchSnippet, wordMatches } from "../../domain/snippets.ts";

const unescape = (html: string) => html.replace(/&lt;|&gt;|&quot;|&#39;|&amp;/g, (e) => ({ "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&" })[e]!);
const plain = (snippet: string) => unescape(snippet.replace(/<\/?mark>/g, "")).replace(/^… /, "").replace(/ …$/, "");
const collapse = (text: string) => text.replace(/\s+/g, " ");
/** The matching rule, spelled out independently of domain/snippets.ts (prefix either way, ≤ 3 letters short). */
const answers = (word: string, queryWords: string[]) => {
  const w = word.toLowerCase();
  return queryWords.some((q) => w.slice(0, q.length) === q || (w.length >= 3 && w.length < q.length && q.slice(0, w.length) === w && q.length - w.length <= 3));
};
const countWords = (text: string) => text.match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu)?.length ?? 0;

const word = fc.oneof(
  fc.constantFrom("dragon", "Dragons", "egg", "Vex'ahlia", "flayers", "mind", "the", "Kraghammer", "potion", "ÉLAN", "42"),
  fc.stringMatching(/^[a-z]{1,8}$/),
);
const separator = fc.constantFrom(" ", "  ", "\n", ", ", ". ", " <b>", "</b> ", " & ", ' "', "' ", " — ");
const text = fc.array(fc.tuple(word, separator), { maxLength: 80 }).map((parts) => parts.map(([w, s]) => w + s).join(""));
const query = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(" "));

describe("search snippets", () => {
  test("a snippet is a window of the text: marks and escapes removed, it reads as the text does", () => {
    fc.assert(
      fc.property(text, query, (body, q) => {
        const snippet = searchSnippet(body, queryWords(q));
        expect(collapse(body)).toContain(plain(snippet).trim());
        expect(countWords(plain(snippet))).toBeLessThanOrEqual(24);
      }),
    );
  });

  test("the text never becomes markup: only <mark> tags are tags", () => {
    fc.assert(
      fc.property(text, query, (body, q) => {
        expect(searchSnippet(body, queryWords(q)).replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
      }),
    );
  });

  test("a text with a matching word shows it marked; a word is marked exactly when it matches", () => {
    fc.assert(
      fc.property(text, query, (body, q) => {
        const snippet = searchSnippet(body, queryWords(q));
        const words = q.toLowerCase().split(" ");
        // Split the snippet into marked and unmarked words, each judged by the test's own rule.
        const seen: { word: string; marked: boolean }[] = [];
        for (const part of snippet.split(/(<mark>.*?<\/mark>)/)) {
          const marked = part.startsWith("<mark>");
          for (const word of unescape(marked ? part.slice(6, -7) : part).match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? []) seen.push({ word, marked });
        }
        for (const { word, marked } of seen) expect({ word, marked }).toEqual({ word, marked: answers(word, words) });
        const anyMatch = (body.match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? []).some((w) => answers(w, words));
        expect(seen.some(({ marked }) => marked)).toBe(anyMatch);
      }),
    );
  });

  test("which words match a query word: by prefix, or the query word less an ending of up to 3 letters", () => {
    const cases: [string, string, boolean][] = [
      ["flayers", "flayer", true],
      ["Dragons", "dragon", true],
      ["flayer", "flayers", true],
      ["drag", "dragons", true],
      ["dra", "dragons", false],
      ["do", "dog", false],
      ["egg", "eggs", true],
      ["Kraghammer", "krag", true],
      ["potion", "motion", false],
      ["élan", "élan", true],
    ];
    for (const [word, q, expected] of cases) expect({ word, q, matches: wordMatches(word, [q]) }).toEqual({ word, q, matches: expected });
  });

  test("examples: context before the match, ellipses where cut, closing punctuation kept", () => {
    expect(searchSnippet("Caverns beneath Kraghammer where the mind flayers live.", queryWords("mind flayer"))).toBe(
      "Caverns beneath Kraghammer where the <mark>mind</mark> <mark>flayers</mark> live.",
    );
    const long = `${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")} a dragon egg ${Array.from({ length: 40 }, (_, i) => `v${i}`).join(" ")}`;
    expect(searchSnippet(long, queryWords("dragon"))).toBe(`… w37 w38 w39 a <mark>dragon</mark> egg ${Array.from({ length: 18 }, (_, i) => `v${i}`).join(" ")} …`);
    expect(searchSnippet("No match here", queryWords("zzz"))).toBe("No match here");
    expect(searchSnippet("", queryWords("zzz"))).toBe("");
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});
