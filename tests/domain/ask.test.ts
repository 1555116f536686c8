// Ask's pure rules: citation markers renumbered in order of use (also across stream deltas), the
// question of a conversation and what a follow-up retrieves, the extractive answer.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { CitationNumbering, citationsFor, extractiveAnswer, questionOf, retrievalText } from "../../domain/ask.ts";

const passage = (title: string, text: string) => ({ kind: "character", sourceId: title.toLowerCase(), title, text, sessionId: null, sessionNumber: null });

describe("CitationNumbering", () => {
  test("renumbers markers in order of first use; drops markers naming no passage; merges lists", () => {
    const n = new CitationNumbering(5);
    const text = n.push("Grog [S3] met Pike [S1, S3]; Vax [S9] left [S5][S3].") + n.end();
    expect(text).toBe("Grog [S1] met Pike [S2][S1]; Vax  left [S3][S1].");
    expect(n.cited()).toEqual([2, 0, 4]);
  });

  test("a marker split across deltas comes out whole, whatever the split", () => {
    const answer = "Keyleth [S2] and Vex [S1, S2] rode on [S4]. Done [S0].";
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: answer.length - 1 }), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const pieces = [0, ...points].map((start, i) => answer.slice(start, points[i] ?? answer.length));
        const n = new CitationNumbering(4);
        const out = pieces.map((p) => n.push(p)).join("") + n.end();
        expect(out).toBe("Keyleth [S1] and Vex [S2][S1] rode on [S3]. Done .");
        expect(n.cited()).toEqual([1, 0, 3]);
      }),
    );
  });

  test("a bracket that is not a marker is shown at once", () => {
    const n = new CitationNumbering(2);
    expect(n.push("the [Traveler] said [")).toBe("the [Traveler] said ");
    expect(n.push("hello]")).toBe("[hello]");
  });
});

test("citations are numbered S1.. in the order given and keep transcript spans", () => {
  const span = { session_id: "s", utterance_start: 3, utterance_end: 5, start: 10, end: 20, speakers: ["MATT"] };
  const passages = [passage("A", "alpha"), { ...passage("B", "beta ".repeat(200)), kind: "transcript", transcript: span, sessionNumber: 2 }];
  const [first, second] = citationsFor(passages, [1, 0]);
  expect(first).toMatchObject({ citation_id: "S1", source_type: "transcript", title: "B", session_number: 2, metadata: span });
  expect(first!.excerpt.length).toBeLessThanOrEqual(321);
  expect(second).toEqual({ citation_id: "S2", source_type: "character", source_id: "a", title: "A", session_number: null, excerpt: "alpha" });
});

describe("conversations", () => {
  test("the question is the last user message", () => {
    expect(questionOf([{ role: "user", content: "one" }, { role: "assistant", content: "x" }, { role: "user", content: " two " }])).toBe("two");
    expect(questionOf([{ role: "system", content: "be brief" }])).toBeNull();
  });

  test("a follow-up that leans on the earlier question retrieves with it; a standalone one alone", () => {
    const earlier = [{ role: "user" as const, content: "Who is Jester?" }, { role: "assistant" as const, content: "A cleric." }];
    expect(retrievalText([...earlier, { role: "user", content: "What about her sister?" }])).toBe("What about her sister? Who is Jester?");
    expect(retrievalText([...earlier, { role: "user", content: "Where did the party fight the Briarwoods in Whitestone?" }])).toBe("Where did the party fight the Briarwoods in Whitestone?");
  });
});

describe("extractive answers", () => {
  test("say they are extractive and quote the best sentence of each passage with its marker", () => {
    const answer = extractiveAnswer("Who keeps goats?", [passage("Nila", "Nila is quiet. She keeps goats outside Nicodranas."), passage("Jester", "Jester paints.")]).join("");
    expect(answer).toStartWith("Extractive answer (offline: quoted from the campaign's records, not written by a model):");
    expect(answer).toContain(`- Nila: "She keeps goats outside Nicodranas." [S1]`);
  });

  test("passages that hardly match: says the records do not clearly answer, and quotes the nearest", () => {
    const answer = extractiveAnswer("Who keeps goats?", [passage("Nila", "She keeps goats.")], { weak: true }).join("");
    expect(answer).toStartWith("Extractive answer (offline: quoted from the campaign's records, not written by a model): Nothing in the records clearly answers that question; the closest passages:");
    expect(answer).toContain(`"She keeps goats." [S1]`);
  });

  test("nothing to quote: says so", () => {
    expect(extractiveAnswer("anything", [])).toEqual(["Nothing in this campaign's records that you may read answers that question."]);
  });
});
