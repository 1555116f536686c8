import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { analyzeUtterances, gini } from "../../domain/cast.ts";
import { crd3Parser, plainTextParser, sniffFormat, srtParser, TranscriptError, vttParser, wordCount, type TranscriptParser, type Utterance } from "../../domain/transcripts.ts";
import { gameMasterNames } from "../../domain/speakers.ts";

const parseAll = (parser: TranscriptParser, text: string, pieceSize = 7): Utterance[] => {
  const out: Utterance[] = [];
  for (let i = 0; i < text.length; i += pieceSize) out.push(...parser.push(text.slice(i, i + pieceSize)));
  out.push(...parser.end());
  return out;
};

describe("transcript formats", () => {
  test("plain text: speakers, continuation lines, optional times", () => {
    const text = "Matt: Welcome to Kraghammer.\nIt is dark.\n\nTravis: I smash!\r\n[00:01:30] Laura: Do we have ale?\n[00:02:00] Matt: Yes.";
    const out = parseAll(plainTextParser(), text);
    expect(out.map((u) => [u.speaker, u.text])).toEqual([
      ["Matt", "Welcome to Kraghammer. It is dark."],
      ["Travis", "I smash!"],
      ["Laura", "Do we have ale?"],
      ["Matt", "Yes."],
    ]);
    expect(out[2]).toMatchObject({ start: 90, end: 120 });
    expect(out[0]!.start).toBe(0);
    expect(out[1]!.start).toBeGreaterThan(out[0]!.end);
  });

  test("WebVTT: voice tags or a Name: prefix, cue times", () => {
    const vtt = "WEBVTT\n\nNOTE a comment\n\n1\n00:00:01.000 --> 00:00:04.500\n<v Matt>Roll for initiative.</v>\n\n00:00:05.000 --> 00:00:06.000 align:start\nLiam: Sneak <i>attack</i>!\n";
    expect(parseAll(vttParser(), vtt, 5)).toEqual([
      { speaker: "Matt", text: "Roll for initiative.", start: 1, end: 4.5 },
      { speaker: "Liam", text: "Sneak attack!", start: 5, end: 6 },
    ]);
    expect(() => parseAll(vttParser(), "00:00:01.000 --> 00:00:02.000\nhi\n")).toThrow(TranscriptError);
  });

  test("SRT: numbered cues with comma milliseconds", () => {
    const srt = "1\n00:00:01,000 --> 00:00:02,000\nSam: Hi!\n\n2\n00:01:00,250 --> 00:01:02,000\nAll: Cheers!\n";
    expect(parseAll(srtParser(), srt, 3)).toEqual([
      { speaker: "Sam", text: "Hi!", start: 1, end: 2 },
      { speaker: "All", text: "Cheers!", start: 60.25, end: 62 },
    ]);
  });

  test("CRD3 JSON: turns streamed in any piece size; shared turns name every speaker", () => {
    const json = JSON.stringify({
      METADATA: { "Wiki Blurb": [{ content: "x {[ tricky \" chars ]}" }] },
      TURNS: [
        { NAMES: ["MATT"], UTTERANCES: ["Hello", "everyone."], NUMBER: 0 },
        { NAMES: ["LAURA", "TRAVIS"], UTTERANCES: ["Yes! {\"braces\"}"], NUMBER: 1 },
      ],
    });
    for (const size of [1, 3, 64, 100_000]) {
      const out = parseAll(crd3Parser(), json, size);
      expect(out.map((u) => [u.speaker, u.text])).toEqual([
        ["MATT", "Hello everyone."],
        ["LAURA, TRAVIS", 'Yes! {"braces"}'],
      ]);
    }
    expect(() => parseAll(crd3Parser(), '{"TURNS": [')).toThrow(TranscriptError);
    expect(() => parseAll(crd3Parser(), '{"OTHER": []}')).toThrow(TranscriptError);
    expect(() => parseAll(crd3Parser(), "[1,2]")).toThrow(TranscriptError);
  });

  test("any CRD3 document: same utterances whatever the piece size", () => {
    const turn = fc.record({ NAMES: fc.array(fc.constantFrom("MATT", "LAURA", "SAM"), { minLength: 1, maxLength: 2 }), UTTERANCES: fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 20 }), fc.integer({ min: 1, max: 50 }), (turns, size) => {
        const json = JSON.stringify({ METADATA: {}, TURNS: turns });
        expect(parseAll(crd3Parser(), json, size)).toEqual(parseAll(crd3Parser(), json, json.length + 1));
        const expected = turns.map((t) => t.UTTERANCES.join(" ").replace(/\s+/gu, " ").trim()).filter(Boolean);
        expect(parseAll(crd3Parser(), json, size).map((u) => u.text)).toEqual(expected);
      }),
    );
  });

  test("format sniffing", () => {
    expect(sniffFormat("text/vtt", "")).toBe("vtt");
    expect(sniffFormat(null, "WEBVTT\n")).toBe("vtt");
    expect(sniffFormat("text/plain", "1\n00:00:01,000 --> 00:00:02,000\n")).toBe("srt");
    expect(sniffFormat("application/json; charset=utf-8", "")).toBe("crd3");
    expect(sniffFormat(null, "Matt: hi")).toBe("plain");
  });
});

const utterance = fc.record({
  speaker: fc.constantFrom("MATT", "LAURA", "SAM", "LAURA, SAM"),
  text: fc.oneof(fc.string(), fc.constantFrom("What now?", "I attack the goblin", "yes")),
  start: fc.constant(0),
  end: fc.constant(0),
});
const timeline = fc.array(utterance, { maxLength: 60 }).map((list) => {
  let clock = 0;
  return list.map((u) => {
    const start = clock;
    clock += 1 + wordCount(u.text) * 0.4;
    return { ...u, start, end: clock };
  });
});

describe("cast analysis", () => {
  test("talk shares sum to 1 (or the transcript is empty)", () => {
    fc.assert(
      fc.property(timeline, (utterances) => {
        const analysis = analyzeUtterances(utterances);
        const sum = Object.values(analysis.talkShare).reduce((a, b) => a + b, 0);
        if (analysis.coreSessionMetrics.totalWords > 0) expect(sum).toBeCloseTo(1, 9);
        else expect(sum).toBe(0);
      }),
    );
  });

  test("totals equal the sum over speakers; timeline words equal total words", () => {
    fc.assert(
      fc.property(timeline, (utterances) => {
        const a = analyzeUtterances(utterances);
        const speakers = Object.values(a.bySpeaker);
        expect(a.coreSessionMetrics.totalWords).toBe(speakers.reduce((s, x) => s + x.words, 0));
        expect(a.coreSessionMetrics.totalLines).toBe(speakers.reduce((s, x) => s + x.lines, 0));
        expect(a.coreSessionMetrics.totalTurns).toBe(Object.values(a.turnStatsBySpeaker).reduce((s, x) => s + x.turns, 0));
        expect(a.questions.total).toBe(speakers.reduce((s, x) => s + x.questions, 0));
        const timelineWords = a.timelineActivity.buckets.reduce((s, b) => s + Object.values(b.words).reduce((x, y) => x + y, 0), 0);
        expect(timelineWords).toBe(a.coreSessionMetrics.totalWords);
        for (const absence of Object.values(a.longest_absence_lines)) expect(absence).toBeLessThan(Math.max(1, utterances.length));
      }),
    );
  });

  test("an empty transcript gives zeros, never NaN", () => {
    const a = analyzeUtterances([]);
    const numbers = JSON.stringify(a).match(/-?\d+(\.\d+)?|NaN|null/g) ?? [];
    expect(JSON.stringify(a)).not.toContain("NaN");
    expect(numbers.every((n) => n === "0" || n === "null" || n === "60" || n === "1")).toBe(true);
    expect(a.coreSessionMetrics).toEqual({ totalLines: 0, totalTurns: 0, totalWords: 0, avgTurnWords: 0, avgWordsPerLine: 0, utterances: 0, durationSeconds: 0 });
    expect(a.dominance.topSpeaker).toBeNull();
  });

  test("known example: shares, turns, questions, absences, GM excluded from spotlight equity", () => {
    const a = analyzeUtterances(
      [
        { speaker: "MATT", text: "You enter the hall.", start: 0, end: 2 },
        { speaker: "MATT", text: "What do you do?", start: 2, end: 4 },
        { speaker: "LAURA", text: "I look around", start: 4, end: 6 },
        { speaker: "SAM", text: "Me too", start: 6, end: 7 },
      ],
      ["MATT"],
    );
    expect(a.talkShare).toEqual({ LAURA: 3 / 13, MATT: 8 / 13, SAM: 2 / 13 });
    expect(a.turnStatsBySpeaker.MATT!.turns).toBe(1);
    expect(a.questions.bySpeaker).toEqual({ LAURA: 0, MATT: 1, SAM: 0 });
    expect(a.longest_absence_lines).toEqual({ LAURA: 2, MATT: 2, SAM: 3 });
    expect(a.spotlightEquity.excluded).toEqual(["MATT"]);
    // Players' words 3 (LAURA) and 2 (SAM): mean absolute difference 2/4 over twice the mean 2.5 = 0.1.
    expect(a.spotlightEquity.gini).toBeCloseTo(0.1, 4);
    expect(a.spotlightEquity.equity).toBeCloseTo(0.9, 4);
  });

  test("game masters: the campaign's gm speakers and the titles GM and DM, not a name by itself", () => {
    const speaker = (name: string, roles: string[]) => ({ id: name, campaign_id: "c", name, handle: null, user_id: null, roles, created_at: "2024-01-01T00:00:00.000Z" });
    expect(gameMasterNames([speaker("Matt", ["gm", "player"]), speaker("Laura", ["player"]), speaker("GM", [])])).toEqual(["Matt", "GM", "DM"]);
    expect(gameMasterNames([])).toEqual(["GM", "DM"]);
    const a = analyzeUtterances(
      [
        { speaker: "MATT", text: "You enter.", start: 0, end: 1 },
        { speaker: "dm", text: "Roll.", start: 1, end: 2 },
        { speaker: "LAURA", text: "I look around", start: 2, end: 3 },
      ],
      gameMasterNames([]),
    );
    expect(a.spotlightEquity.excluded).toEqual(["dm"]);
  });

  test("gini: the mean absolute difference over twice the mean", () => {
    // Computed the textbook way (every pair), not by the sorted-rank formula the code uses.
    const byPairs = (values: number[]) => {
      const n = values.length;
      const mean = values.reduce((a, b) => a + b, 0) / n;
      if (n < 2 || mean === 0) return 0;
      let differences = 0;
      for (const x of values) for (const y of values) differences += Math.abs(x - y);
      return differences / (2 * n * n * mean);
    };
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { maxLength: 10 }), (values) => {
        expect(gini(values)).toBeCloseTo(byPairs(values), 9);
      }),
    );
    expect(gini([5, 5, 5])).toBeCloseTo(0, 12);
    expect(gini([1, 0, 0, 0])).toBeCloseTo(0.75, 12);
    expect(gini([3, 2])).toBeCloseTo(0.1, 12);
    expect(gini([])).toBe(0);
  });
});
