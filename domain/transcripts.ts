// Transcript formats, read incrementally: a parser takes text in pieces of any size and hands out
// utterances as soon as they are complete, so a long transcript is never held whole.

export interface Utterance {
  speaker: string;
  text: string;
  /** Seconds from the start of the session. */
  start: number;
  end: number;
}

export const TRANSCRIPT_FORMATS = ["plain", "vtt", "srt", "crd3"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export interface TranscriptParser {
  /** Feeds the next piece of text; returns the utterances it completed. */
  push(piece: string): Utterance[];
  /** Ends the input; returns what was still pending. Throws TranscriptError on a malformed ending. */
  end(): Utterance[];
}

export class TranscriptError extends Error {}

/** Where a transcript has no times, they are derived at a steady speaking rate. */
export const SECONDS_PER_WORD = 0.4; // 150 words a minute
export const PAUSE_SECONDS = 0.5;

export const wordCount = (text: string): number => {
  let count = 0;
  let inWord = false;
  for (const ch of text) {
    const space = ch === " " || ch === "\n" || ch === "\t" || ch === "\r";
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
};

/** Times an utterance that came without any, right after the previous one. */
export function derivedTiming() {
  let clock = 0;
  return (speaker: string, text: string): Utterance => {
    const start = clock;
    const end = start + Math.max(1, wordCount(text)) * SECONDS_PER_WORD;
    clock = end + PAUSE_SECONDS;
    return { speaker, text, start: round(start), end: round(end) };
  };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Splits pushed text into complete lines (without their line ends). */
function lineSplitter() {
  let pending = "";
  return {
    push(piece: string): string[] {
      pending += piece;
      const lines = pending.split(/\r\n|\n|\r(?!$)/u);
      pending = lines.pop() ?? "";
      return lines;
    },
    end(): string[] {
      const last = pending.replace(/\r$/u, "");
      pending = "";
      return last ? [last] : [];
    },
  };
}

const cleanSpeaker = (name: string) => name.replace(/\s+/gu, " ").trim();
const SPEAKER_LINE = /^\s*(?:\[(\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d+)?\]\s*)?([^:\n]{1,60}?)\s*:\s+(.*)$/u;
const TIMESTAMP = /^\s*\[((?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d+)?)\]/u;

export const parseClock = (clock: string): number => {
  const parts = clock.replace(",", ".").split(":").map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
};

/**
 * Plain text: `Speaker: line` per line, optionally led by a `[hh:mm:ss]` time. A line without a
 * speaker continues the previous utterance; blank lines are skipped.
 */
export function plainTextParser(): TranscriptParser {
  const lines = lineSplitter();
  const timed = derivedTiming();
  let current: { speaker: string; text: string; start: number | null } | null = null;
  let lastExplicitStart: number | null = null;
  const flush = (nextStart: number | null): Utterance[] => {
    if (!current) return [];
    const utterance = timed(current.speaker, current.text);
    if (current.start !== null) {
      const end = nextStart !== null && nextStart > current.start ? nextStart : current.start + (utterance.end - utterance.start);
      Object.assign(utterance, { start: round(current.start), end: round(end) });
    }
    current = null;
    return [utterance];
  };
  const consume = (line: string): Utterance[] => {
    if (!line.trim()) return [];
    const match = SPEAKER_LINE.exec(line);
    if (match && match[2] && !/^https?$/iu.test(match[2].trim())) {
      const time = TIMESTAMP.exec(line);
      const start = time ? parseClock(time[1]!) : null;
      if (start !== null) lastExplicitStart = start;
      const done = flush(start);
      current = { speaker: cleanSpeaker(match[2]), text: match[3]!.trim(), start };
      return done;
    }
    if (current) current.text = `${current.text} ${line.trim()}`;
    else current = { speaker: "Unknown", text: line.trim(), start: null };
    return [];
  };
  return {
    push: (piece) => lines.push(piece).flatMap(consume),
    end: () => [...lines.end().flatMap(consume), ...flush(lastExplicitStart === null ? null : null)],
  };
}

const CUE_TIMING = /^\s*((?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3})/u;

/** The speaker and text of a cue: `<v Name>` voice tags first, then a `Name:` prefix. */
function cueSpeech(text: string): { speaker: string; text: string } {
  const voice = /<v(?:\.[^\s>]+)*\s+([^>]+)>/u.exec(text);
  const plain = text.replace(/<[^>]+>/gu, "").replace(/&amp;/gu, "&").replace(/&lt;/gu, "<").replace(/&gt;/gu, ">").replace(/\s+/gu, " ").trim();
  if (voice) return { speaker: cleanSpeaker(voice[1]!), text: plain };
  const prefixed = /^([^:]{1,60}?)\s*:\s+(.*)$/u.exec(plain);
  return prefixed ? { speaker: cleanSpeaker(prefixed[1]!), text: prefixed[2]!.trim() } : { speaker: "Unknown", text: plain };
}

/** WebVTT and SRT: blocks separated by blank lines, each with a timing line and text lines. */
function cueParser(format: "vtt" | "srt"): TranscriptParser {
  const lines = lineSplitter();
  let block: string[] = [];
  let sawHeader = format === "srt";
  const closeBlock = (): Utterance[] => {
    const lines_ = block;
    block = [];
    if (!lines_.length) return [];
    if (!sawHeader) {
      if (!/^\uFEFF?WEBVTT/u.test(lines_[0]!)) throw new TranscriptError("A WebVTT file must start with WEBVTT");
      sawHeader = true;
      return [];
    }
    if (/^(NOTE|STYLE|REGION)\b/u.test(lines_[0]!)) return [];
    const timingAt = lines_.findIndex((line) => CUE_TIMING.test(line));
    if (timingAt < 0) {
      if (format === "srt" && lines_.length === 1 && /^\d+$/u.test(lines_[0]!.trim())) return [];
      throw new TranscriptError(`Cue without a timing line: "${lines_[0]!.slice(0, 80)}"`);
    }
    const timing = CUE_TIMING.exec(lines_[timingAt]!)!;
    const speech = cueSpeech(lines_.slice(timingAt + 1).join("\n"));
    if (!speech.text) return [];
    return [{ speaker: speech.speaker, text: speech.text, start: round(parseClock(timing[1]!)), end: round(parseClock(timing[2]!)) }];
  };
  const consume = (line: string): Utterance[] => {
    if (line.trim() === "") return closeBlock();
    block.push(line);
    return [];
  };
  return {
    push: (piece) => lines.push(piece).flatMap(consume),
    end: () => {
      const out = [...lines.end().flatMap(consume), ...closeBlock()];
      if (!sawHeader) throw new TranscriptError("A WebVTT file must start with WEBVTT");
      return out;
    },
  };
}

export const vttParser = () => cueParser("vtt");
export const srtParser = () => cueParser("srt");

/**
 * CRD3 JSON ({"METADATA": …, "TURNS": [{"NAMES": […], "UTTERANCES": […]}]}), scanned character by
 * character: only one turn is ever held as text. Names of a shared turn are joined with ", ";
 * line-wrapped utterance pieces are joined with spaces; times are derived.
 */
export function crd3Parser(): TranscriptParser {
  const timed = derivedTiming();
  let depth = 0;
  let inString = false;
  let escaped = false;
  let key = ""; // the last top-level key
  let stringBuffer = "";
  let capturingKey = false;
  let inTurns = false;
  let turnParts: string[] | null = null; // the current turn's text, by piece
  let turnStart = 0; // where the turn began in the current piece
  let sawTurns = false;
  const turns: Utterance[] = [];

  const finishTurn = (json: string) => {
    let turn: { NAMES?: unknown; UTTERANCES?: unknown };
    try {
      turn = JSON.parse(json);
    } catch {
      throw new TranscriptError("A CRD3 turn is not valid JSON");
    }
    const names = Array.isArray(turn.NAMES) ? turn.NAMES.map(String).map(cleanSpeaker).filter(Boolean) : [];
    const text = (Array.isArray(turn.UTTERANCES) ? turn.UTTERANCES.map(String) : []).join(" ").replace(/\s+/gu, " ").trim();
    if (!text) return;
    turns.push(timed(names.length ? names.join(", ") : "Unknown", text));
  };

  const push = (piece: string): Utterance[] => {
    turnStart = 0;
    for (let i = 0; i < piece.length; i++) {
      const ch = piece[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') {
          inString = false;
          if (capturingKey) {
            key = stringBuffer;
            capturingKey = false;
          }
        }
        if (capturingKey && inString) stringBuffer += ch;
        continue;
      }
      if (ch === '"') {
        inString = true;
        // A string at depth 1 right after "{" or "," is a top-level key.
        if (depth === 1 && !inTurns) {
          capturingKey = true;
          stringBuffer = "";
        }
        continue;
      }
      if (ch === "{" || ch === "[") {
        depth++;
        if (depth === 2 && ch === "[" && key === "TURNS") {
          inTurns = true;
          sawTurns = true;
        } else if (inTurns && depth === 3 && ch === "{") {
          turnParts = [];
          turnStart = i;
        }
      } else if (ch === "}" || ch === "]") {
        depth--;
        if (depth < 0) throw new TranscriptError("Unbalanced JSON");
        if (inTurns && depth === 2 && ch === "}" && turnParts) {
          turnParts.push(piece.slice(turnStart, i + 1));
          finishTurn(turnParts.join(""));
          turnParts = null;
        }
        if (inTurns && depth === 1) inTurns = false;
      } else if (depth === 0 && !/\s/u.test(ch) && ch !== "\uFEFF") {
        throw new TranscriptError("A CRD3 transcript is a JSON object");
      }
    }
    if (turnParts) turnParts.push(piece.slice(turnStart));
    return turns.splice(0);
  };
  return {
    push,
    end: () => {
      if (depth !== 0 || inString) throw new TranscriptError("The JSON ends before it is complete");
      if (!sawTurns) throw new TranscriptError('A CRD3 transcript needs a "TURNS" array');
      return turns.splice(0);
    },
  };
}

export const parserFor = (format: TranscriptFormat): TranscriptParser =>
  textOnly(format === "plain" ? plainTextParser() : format === "vtt" ? vttParser() : format === "srt" ? srtParser() : crd3Parser());

/** Text that no database or client can hold: NUL (U+0000) and lone UTF-16 surrogates. */
const unstorable = (text: string) => text.includes("\u0000") || !text.isWellFormed();
const storable = (text: string) => text.replaceAll("\u0000", "").toWellFormed();

/**
 * A NUL byte in the body means a binary file, not a transcript: refused. Escaped NULs or lone
 * surrogates inside CRD3 strings are dropped or replaced (U+FFFD) so one bad escape does not
 * refuse an evening's transcript.
 */
function textOnly(parser: TranscriptParser): TranscriptParser {
  const clean = (utterances: Utterance[]) => {
    for (const u of utterances) {
      if (unstorable(u.speaker)) u.speaker = storable(u.speaker);
      if (unstorable(u.text)) u.text = storable(u.text);
    }
    return utterances;
  };
  return {
    push(piece) {
      if (piece.includes("\u0000")) throw new TranscriptError("The transcript is not text: it contains NUL bytes (a binary file?)");
      return clean(parser.push(piece));
    },
    end: () => clean(parser.end()),
  };
}

/** Guesses a format from the content type and the first characters. */
export function sniffFormat(contentType: string | null, head: string): TranscriptFormat {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/vtt") return "vtt";
  if (type === "application/x-subrip" || type === "text/srt" || type === "application/srt") return "srt";
  if (type === "application/json") return "crd3";
  const start = head.replace(/^\uFEFF/u, "").trimStart();
  if (start.startsWith("WEBVTT")) return "vtt";
  if (start.startsWith("{")) return "crd3";
  if (/^\d+\s*\r?\n\s*(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}\s*-->/u.test(start)) return "srt";
  return "plain";
}

/** Every speaker label of an utterance (a shared CRD3 turn names several). */
export const speakersOf = (label: string): string[] => label.split(", ").filter(Boolean);

export interface TranscriptRecord {
  session_id: string;
  campaign_id: string;
  version: number;
  source_type: string;
  speakers: string[];
  utterance_count: number;
  char_count: number;
  tokens: number;
  created_at: string;
}

export interface StoredUtterance {
  position: number;
  speaker_label: string;
  text: string;
  start_s: number;
  end_s: number;
}
