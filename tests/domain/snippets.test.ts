import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { escapeHtml, queryWords, searchSnippet, SNIPPET_MAX_WORDS, wordMatches } from "../../domain/snippets.ts";

const unescape = (html: string) => html.replace(/&lt;|&gt;|&quot;|&#39;|&amp;/g, (e) => ({ "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&" })[e]!);
const plain = (snippet: string) => unescape(snippet.replace(/<\/?mark>/g, "")).replace(/^… /, "").replace(/ …$/, "");
const collapse = (text: string) => text.replace(/\s+/g, " ");
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
        expect(countWords(plain(snippet))).toBeLessThanOrEqual(SNIPPET_MAX_WORDS);
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

  test("a text with a matching word shows it marked; every mark is a matching word", () => {
    fc.assert(
      fc.property(text, query, (body, q) => {
        const snippet = searchSnippet(body, queryWords(q));
        const words = queryWords(q);
        const marks = [...snippet.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => unescape(m[1]!));
        for (const marked of marks) expect(wordMatches(marked, words)).toBe(true);
        const anyMatch = (body.match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? []).some((w) => wordMatches(w, words));
        expect(marks.length > 0).toBe(anyMatch);
      }),
    );
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
