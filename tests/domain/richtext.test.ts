import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { estimateTokens } from "../../domain/journals.ts";
import { chunkText, lexicalToPlainText } from "../../domain/richtext.ts";

const paragraph = (texts: string[]) => ({ type: "paragraph", children: texts.map((text) => ({ type: "text", text })) });

describe("Lexical to plain text", () => {
  test("paragraphs become lines; line breaks are kept; formatting does not matter", () => {
    const state = {
      root: {
        type: "root",
        children: [
          paragraph(["Grog ", "smashes"]),
          { type: "heading", tag: "h2", children: [{ type: "text", text: "Emon", format: 1 }] },
          { type: "paragraph", children: [{ type: "text", text: "one" }, { type: "linebreak" }, { type: "text", text: "two" }] },
        ],
      },
    };
    expect(lexicalToPlainText(state)).toBe("Grog smashes\nEmon\none\ntwo");
  });

  test("the text of any generated document is its paragraphs' texts, line by line", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "!") });
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 4 }), { minLength: 1, maxLength: 6 }), (paragraphs) => {
        const state = { root: { type: "root", children: paragraphs.map(paragraph) } };
        expect(lexicalToPlainText(state)).toBe(paragraphs.map((p) => p.join("")).join("\n").replace(/\n+$/u, ""));
      }),
    );
  });

  test("garbage is no text, not an exception", () => {
    for (const junk of [null, 5, "x", {}, { root: 7 }, { root: { children: [null, 3, { text: 5 }] } }]) expect(lexicalToPlainText(junk)).toBe("");
  });
});

describe("chunking", () => {
  test("chunks stay within the token budget and lose no word", () => {
    const words = fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom(".", "\n\n", "!")), { maxLength: 300 });
    fc.assert(
      fc.property(words, fc.integer({ min: 5, max: 60 }), (parts, budget) => {
        const text = parts.join(" ");
        const chunks = chunkText(text, budget);
        for (const chunk of chunks) expect(estimateTokens(chunk)).toBeLessThanOrEqual(budget);
        expect(chunks.join(" ").split(/\s+/u).filter(Boolean).join(" ")).toBe(text.split(/\s+/u).filter(Boolean).join(" "));
      }),
    );
  });

  test("a huge single word is cut, not dropped", () => {
    const chunks = chunkText("x".repeat(1000), 50);
    expect(chunks.join("")).toBe("x".repeat(1000));
  });
});
