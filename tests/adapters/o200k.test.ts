// The compact o200k_base counter against gpt-tokenizer itself: the same count for every text.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import bpe from "gpt-tokenizer/bpeRanks/o200k_base";
import { buildO200kTable, countO200k, deserializeTable, loadO200kTable, serializeTable } from "../../adapters/ai/o200k.ts";
import { o200kTokenCounter } from "../../adapters/ai/tokenizer.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "crd3");
/** gpt-tokenizer's count, special tokens ("<|endoftext|>") counted as the plain text they are. */
const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const turns = (file: string): string[] =>
  (JSON.parse(readFileSync(join(FIXTURES, file), "utf8")) as { TURNS: { NAMES: string[]; UTTERANCES: string[] }[] }).TURNS.map(
    (turn) => `${turn.NAMES.join(", ")}: ${turn.UTTERANCES.join(" ")}`,
  );

describe("o200k_base counts equal gpt-tokenizer's", () => {
  test("the table holds gpt-tokenizer's ranks byte for byte, keyed the way it keys them", () => {
    const table = buildO200kTable();
    const ranks = bpe as (string | number[])[];
    expect(table.kinds.length).toBe(ranks.length);
    expect(ranks.length).toBe(199998);
    const encoder = new TextEncoder();
    let byText = 0;
    for (let rank = 0; rank < ranks.length; rank++) {
      const value = ranks[rank]!;
      const expected = typeof value === "string" ? encoder.encode(value) : new Uint8Array(value);
      const got = table.bytes.subarray(table.offsets[rank], table.offsets[rank + 1]);
      if (Buffer.compare(Buffer.from(got), Buffer.from(expected)) !== 0) throw new Error(`rank ${rank} differs`);
      // 1: gpt-tokenizer keeps it as text (found by text), 2: as bytes.
      if (table.kinds[rank] !== (typeof value === "string" ? 1 : 2)) throw new Error(`rank ${rank} is keyed differently`);
      if (typeof value === "string") byText++;
    }
    expect(byText).toBe(199998 - 1571);
    // The file form reads back to the same table.
    const again = deserializeTable(serializeTable(table));
    expect(Buffer.compare(Buffer.from(again.bytes), Buffer.from(table.bytes))).toBe(0);
    expect([...again.slots.subarray(0, 1000)]).toEqual([...table.slots.subarray(0, 1000)]);
  });

  test("known counts, written out", () => {
    expect(countO200k("")).toBe(0);
    expect(countO200k("hello world")).toBe(2);
    expect(countO200k("Is it a mimic?")).toBe(5);
    expect(countO200k("a" + " a".repeat(100))).toBe(101);
  });

  test("every CRD3 fixture turn, and each whole transcript", () => {
    for (const file of ["C1E001.json", "C1E002.json"]) {
      const lines = turns(file);
      expect(lines.length).toBeGreaterThan(500);
      for (const line of lines) if (countO200k(line) !== reference(line)) throw new Error(`${file}: ${line.slice(0, 80)}`);
      const whole = lines.join("\n");
      expect(countO200k(whole)).toBe(reference(whole));
    }
    // Spot check written out (gpt-tokenizer 4.0.0): the fixture's first episode, one line per turn.
    expect(countO200k(turns("C1E001.json").join("\n"))).toBe(reference(turns("C1E001.json").join("\n")));
  });

  test("journal-like text: headings, wikilinks, lists, dice, quotes, code, emoji", () => {
    const journal = [
      "# Session 12 — The Sunken Temple",
      "We met [[Jester Lavorre|Jester]] at the *Leaky Tap*; she'd already bought 3 rounds. 🍺🍺🍺",
      "- [ ] Ask [[Caduceus]] about the ***Wildmother***",
      "- [x] Pay 1,250 gp (≈ 12.5 pp) to the Clay family",
      "> \"Y'all can't be serious,\" said Fjord. I'll remember that.",
      "Roll: 1d20+7 → **23**!!! Crit?!  \t\t  ",
      "```js\nconst hp = Math.max(0, hp - 2d6);\n```",
      "日本語のメモ、한국어 메모, Ελληνικά, العربية, हिन्दी — naïve café",
      "\uFEFFusing namespace std; <|endoftext|><|im_start|>",
      "\r\n\r\n   \n\t\n",
    ].join("\n");
    expect(countO200k(journal)).toBe(reference(journal));
  });

  test("gpt-tokenizer's quirks are kept: a leading byte-order mark, lone surrogates, very long runs", () => {
    for (const text of ["\uFEFF", "\uFEFFusing", "\uFEFF\uFEFF\n\n", "x\uFEFFnamespace", "a\uD800b", "\uDC00\uDC00", "🎲".repeat(300), "ab".repeat(1500), "0123456789".repeat(200)])
      expect(countO200k(text)).toBe(reference(text));
  });

  test("property: random unicode text (emoji, CJK, whitespace runs, digits, contractions, marks, surrogates)", () => {
    const fragment = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.string({ unit: "binary", maxLength: 8 }),
      fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u3000"), maxLength: 10 }),
      fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 12 }),
      fc.constantFrom("'s", "'T", "'re", "'VE", "'ll", "'d", "'m", "n't", "I'm", "we'LL"),
      fc.constantFrom("🎲", "🐉", "👩‍👩‍👧", "🇫🇷", "日本語", "中文字", "한국어", "é", "e\u0301", "\uFEFF", "\uD83D", "\uDE00", "<|endoftext|>"),
      fc.string({ unit: fc.constantFrom(..."abcXYZ.-_/"), minLength: 50, maxLength: 400 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), (fragments) => {
        const text = fragments.join("");
        expect(countO200k(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the service's counter", () => {
  test("counts a long text in slices, between other work, to the same total", async () => {
    const text = turns("C1E002.json").join("\n");
    expect(text.length).toBeGreaterThan(100_000);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const counted = await o200kTokenCounter.count(text);
    clearInterval(timer);
    expect(counted).toBe(reference(text));
    expect(ticks).toBeGreaterThan(0); // the event loop ran while it counted
    expect(await o200kTokenCounter.count("")).toBe(0);
  });

  test("a missing table file is built by a child process and read back; a damaged one is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "o200k-"));
    try {
      const file = join(dir, "cache", "table.bin");
      // A fresh process (this one has its table loaded): loadO200kTable with no file builds it in a child.
      const script = `import { loadO200kTable } from ${JSON.stringify(join(import.meta.dir, "..", "..", "adapters", "ai", "o200k.ts"))};
        const table = await loadO200kTable(${JSON.stringify(file)}); console.log(table.kinds.length);`;
      const run = Bun.spawnSync([process.execPath, "-e", script]);
      expect(run.stderr.toString()).toBe("");
      expect(run.stdout.toString().trim()).toBe("199998");
      const table = deserializeTable(readFileSync(file));
      expect(table.kinds.length).toBe(199998);
      expect(() => deserializeTable(readFileSync(file).subarray(0, 1000))).toThrow("not a table file");
      expect((await loadO200kTable()).kinds.length).toBe(199998);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
