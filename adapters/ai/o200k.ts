// o200k_base token counts, exactly as gpt-tokenizer's countTokens gives them, from a compact table:
// the 199,998 tokens' bytes in one buffer and an open-addressing hash over them (about 5 MB in all),
// read from gpt-tokenizer's own o200k_base.tiktoken in tens of milliseconds. gpt-tokenizer's loaded
// encoding (200,000 JS strings, a Map of them, a merge cache) costs about 50 MB and a second of CPU.
// Its quirks are kept on purpose so counts stay equal: see `rankOf`.
import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

/** gpt-tokenizer keys a token by its text when its bytes read back as that text; else by bytes. */
const TEXT = 1;
const BYTES = 2;

export interface O200kTable {
  /** Token r's bytes are bytes[offsets[r] .. offsets[r + 1]). */
  offsets: Uint32Array;
  bytes: Uint8Array;
  kinds: Uint8Array;
  /** Open addressing: a token's rank, or -1 for an empty slot. */
  slots: Int32Array;
  mask: number;
}

const BASE64 = new Int8Array(256).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) BASE64[c.charCodeAt(0)] = i;

function hash(buf: Uint8Array, start: number, end: number, kind: number): number {
  let h = 0x811c9dc5 ^ kind;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

function isUtf8(buf: Uint8Array, start: number, end: number): boolean {
  // The same rules as gpt-tokenizer's isValidUTF8: no overlong forms, surrogates or code points past U+10FFFF.
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    let n: number;
    let cp: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if ((b & 0xe0) === 0xc0) {
      if (b <= 0xc1) return false;
      n = 2;
      cp = b & 0x1f;
    } else if ((b & 0xf0) === 0xe0) {
      n = 3;
      cp = b & 0x0f;
    } else if ((b & 0xf8) === 0xf0) {
      if (b > 0xf4) return false;
      n = 4;
      cp = b & 0x07;
    } else return false;
    if (i + n > end) return false;
    for (let j = 1; j < n; j++) {
      const c = buf[i + j]!;
      if ((c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += n;
  }
  return true;
}

/** Whether gpt-tokenizer keys this token by text: its bytes decode (BOM-stripping, as TextDecoder does) back to themselves. */
function keyedByText(buf: Uint8Array, start: number, end: number): boolean {
  return isUtf8(buf, start, end) && !(end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf);
}

function find(table: O200kTable, buf: Uint8Array, start: number, end: number, kind: number): number {
  const { offsets, bytes, kinds, slots, mask } = table;
  const length = end - start;
  for (let slot = hash(buf, start, end, kind) & mask; ; slot = (slot + 1) & mask) {
    const rank = slots[slot]!;
    if (rank < 0) return -1;
    if (kinds[rank] !== kind) continue;
    const at = offsets[rank]!;
    if (offsets[rank + 1]! - at !== length) continue;
    let i = 0;
    while (i < length && bytes[at + i] === buf[start + i]) i++;
    if (i === length) return rank;
  }
}

/** Parses `rank`-ordered lines of "base64 rank" (tiktoken's file format) into the compact table. */
export function parseTiktoken(file: Uint8Array): O200kTable {
  let lines = 1;
  for (let i = 0; i < file.length; i++) if (file[i] === 10) lines++;
  const bytes = new Uint8Array(Math.ceil((file.length * 3) / 4));
  const offsets = new Uint32Array(lines + 1);
  let count = 0;
  let out = 0;
  let i = 0;
  while (i < file.length) {
    let space = i;
    while (space < file.length && file[space] !== 32 && file[space] !== 10) space++;
    let lineEnd = space;
    while (lineEnd < file.length && file[lineEnd] !== 10) lineEnd++;
    if (space === lineEnd) {
      i = lineEnd + 1;
      continue;
    }
    let rank = 0;
    for (let j = space + 1; j < lineEnd; j++) rank = rank * 10 + file[j]! - 48;
    if (rank !== count) throw new Error(`o200k table: rank ${rank} out of order (expected ${count})`);
    offsets[count++] = out;
    let bits = 0;
    let value = 0;
    for (let j = i; j < space; j++) {
      const digit = BASE64[file[j]!]!;
      if (digit < 0) break; // "=" padding
      value = (value << 6) | digit;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[out++] = (value >> bits) & 0xff;
      }
    }
    i = lineEnd + 1;
  }
  offsets[count] = out;
  return index(offsets.subarray(0, count + 1), bytes.slice(0, out));
}

function index(offsets: Uint32Array, bytes: Uint8Array): O200kTable {
  const tokens = offsets.length - 1;
  const kinds = new Uint8Array(tokens);
  let size = 1;
  while (size < tokens * 2.5) size *= 2;
  const table: O200kTable = { offsets, bytes, kinds, slots: new Int32Array(size).fill(-1), mask: size - 1 };
  for (let rank = 0; rank < tokens; rank++) {
    const start = offsets[rank]!;
    const end = offsets[rank + 1]!;
    const kind = keyedByText(bytes, start, end) ? TEXT : BYTES;
    kinds[rank] = kind;
    // A later token with the same key replaces the earlier one, as Map.set does in gpt-tokenizer.
    const earlier = find(table, bytes, start, end, kind);
    let slot = hash(bytes, start, end, kind) & table.mask;
    if (earlier >= 0) while (table.slots[slot] !== earlier) slot = (slot + 1) & table.mask;
    else while (table.slots[slot]! >= 0) slot = (slot + 1) & table.mask;
    table.slots[slot] = rank;
  }
  return table;
}

const TIKTOKEN = fileURLToPath(import.meta.resolve("gpt-tokenizer/data/o200k_base.tiktoken"));
const VERSION = (JSON.parse(readFileSync(join(dirname(TIKTOKEN), "..", "package.json"), "utf8")) as { version: string }).version;
const MAGIC = 0x6b303032; // "200k"
const FORMAT = 1;
/** Beside the PGlite image, in node_modules/.cache: one file per gpt-tokenizer version. */
export const TABLE_FILE = join(dirname(TIKTOKEN), "..", "..", ".cache", "campaign-memory-service", `o200k-${VERSION}-${FORMAT}.bin`);

/** Builds the table from gpt-tokenizer's tiktoken file (about 0.2 s of CPU: done in a child process). */
export const buildO200kTable = (): O200kTable => parseTiktoken(readFileSync(TIKTOKEN));

/** Header, offsets, slots, kinds, bytes: read back as views on one buffer, no parsing. */
export function serializeTable(table: O200kTable): Uint8Array {
  const tokens = table.kinds.length;
  const header = new Uint32Array([MAGIC, FORMAT, tokens, table.slots.length, table.bytes.length, 0, 0, 0]);
  const parts = [header, table.offsets, table.slots, table.kinds, table.bytes].map((part) => new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function deserializeTable(file: Uint8Array): O200kTable {
  const buffer = file.byteOffset % 4 === 0 ? file : file.slice();
  const header = new Uint32Array(buffer.buffer, buffer.byteOffset, 8);
  const [magic, format, tokens, size, length] = header as unknown as number[];
  if (magic !== MAGIC || format !== FORMAT || size! & (size! - 1) || buffer.length !== 32 + 4 * (tokens! + 1) + 4 * size! + tokens! + length!) throw new Error("o200k table: not a table file of this format");
  let at = buffer.byteOffset + 32;
  const offsets = new Uint32Array(buffer.buffer, at, tokens! + 1);
  at += offsets.byteLength;
  const slots = new Int32Array(buffer.buffer, at, size!);
  at += slots.byteLength;
  const kinds = new Uint8Array(buffer.buffer, at, tokens!);
  const bytes = new Uint8Array(buffer.buffer, at + tokens!, length!);
  return { offsets, bytes, kinds, slots, mask: size! - 1 };
}

function writeTable(file: string) {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, serializeTable(buildO200kTable()));
  renameSync(partial, file);
}

let loaded: O200kTable | null = null;
let loading: Promise<O200kTable> | null = null;

/**
 * Reads the table file (a few milliseconds); a missing or damaged one is built first by a child
 * process, into the cache or, when that cannot be written, into a scratch file removed after use.
 * Nothing here holds the event loop for long, and the build's garbage leaves with the child.
 */
export function loadO200kTable(file = TABLE_FILE): Promise<O200kTable> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async () => {
    try {
      return (loaded = deserializeTable(readFileSync(file)));
    } catch {}
    let target = file;
    try {
      mkdirSync(dirname(file), { recursive: true });
      accessSync(dirname(file), constants.W_OK);
    } catch {
      target = join(tmpdir(), `o200k-${process.pid}-${Date.now()}.bin`);
    }
    const child = Bun.spawn([process.execPath, import.meta.path, target], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const [code, errors] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    if (code !== 0) throw new Error(`o200k table: ${errors.trim().split("\n").at(-1) || `the builder exited with ${code}`}`);
    try {
      return (loaded = deserializeTable(readFileSync(target)));
    } finally {
      if (target !== file) rmSync(target, { force: true });
    }
  })().finally(() => {
    loading = null;
  });
  return loading;
}

/** For tests and the builder: the table now, built in this process when it has not been loaded. */
export function o200kTable(): O200kTable {
  if (loaded) return loaded;
  try {
    loaded = deserializeTable(readFileSync(TABLE_FILE));
  } catch {
    loaded = buildO200kTable();
  }
  return loaded;
}

/**
 * The rank gpt-tokenizer finds for these bytes during a merge: bytes that are valid UTF-8 are
 * decoded first, and its TextDecoder drops a leading byte-order mark, so "\uFEFFusing" finds the
 * rank of "using"; other bytes are looked up as bytes. -1 when there is none.
 */
function rankOf(table: O200kTable, buf: Uint8Array, start: number, end: number): number {
  if (!isUtf8(buf, start, end)) return find(table, buf, start, end, BYTES);
  if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  return find(table, buf, start, end, TEXT);
}

// Scratch space reused by every merge (counting is synchronous, so never shared by two at once).
let encoded = new Uint8Array(1024);
let next = new Int32Array(1024);
let previous = new Int32Array(1024);
let pairRank = new Int32Array(1024);
let heap = new Float64Array(3 * 1024);

/**
 * Byte-pair merges of one piece; returns how many tokens remain. Always the lowest-ranked adjacent
 * pair first, the leftmost of equals (as gpt-tokenizer and tiktoken do), but found with a heap over a
 * linked list, so a long run (a pasted base64 blob) costs n log n rather than n².
 */
function mergeCount(table: O200kTable, buf: Uint8Array, n: number): number {
  if (n <= 1) return n;
  if (next.length < n + 1) {
    next = new Int32Array(n + 1);
    previous = new Int32Array(n + 1);
    pairRank = new Int32Array(n + 1);
    heap = new Float64Array(3 * (n + 1));
  }
  let size = 0;
  const push = (rank: number, at: number) => {
    let i = size++;
    const key = rank * 4294967296 + at;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= key) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = key;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const last = heap[--size]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  };
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    previous[i] = i - 1;
    const rank = i + 2 <= n ? rankOf(table, buf, i, i + 2) : -1;
    pairRank[i] = rank;
    if (rank >= 0) push(rank, i);
  }
  let parts = n;
  while (size > 0) {
    const key = pop();
    const at = key % 4294967296;
    const rank = (key - at) / 4294967296;
    if (pairRank[at] !== rank) continue; // stale: that pair changed since
    const gone = next[at]!;
    const after = next[gone]!;
    next[at] = after;
    if (after < n) previous[after] = at;
    pairRank[gone] = -2;
    parts--;
    const own = after < n ? rankOf(table, buf, at, next[after]!) : -1;
    pairRank[at] = own;
    if (own >= 0) push(own, at);
    if (at > 0) {
      const before = previous[at]!;
      const theirs = rankOf(table, buf, before, after);
      pairRank[before] = theirs;
      if (theirs >= 0) push(theirs, before);
    }
  }
  return parts;
}

const encoder = new TextEncoder();

function countPiece(table: O200kTable, piece: string): number {
  if (encoded.length < piece.length * 3) encoded = new Uint8Array(piece.length * 3);
  // Lone surrogates become U+FFFD, as TextEncoder.encode makes them in gpt-tokenizer.
  const { written } = encoder.encodeInto(piece, encoded);
  // gpt-tokenizer first looks the piece up whole, by its text: a text with a lone surrogate never matches.
  if ((piece as string & { isWellFormed(): boolean }).isWellFormed() && find(table, encoded, 0, written, TEXT) >= 0) return 1;
  return mergeCount(table, encoded, written);
}

/** The o200k_base pre-tokenizer, taken from gpt-tokenizer itself so the pieces are its pieces. */
export const O200K_SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);

/**
 * Tokens of `text` from `from` (a UTF-16 index where a piece starts) until about `budget` characters
 * are counted; `next` is where to go on (text.length when done). Special tokens such as
 * "<|endoftext|>" count as the plain text they are (gpt-tokenizer would refuse the text).
 */
export function countSome(table: O200kTable, text: string, from = 0, budget = Infinity): { tokens: number; next: number } {
  const split = new RegExp(O200K_SPLIT);
  split.lastIndex = from;
  let tokens = 0;
  const stop = from + budget;
  for (let match = split.exec(text); match; match = split.exec(text)) {
    tokens += countPiece(table, match[0]);
    if (split.lastIndex >= stop) return { tokens, next: split.lastIndex };
  }
  return { tokens, next: text.length };
}

/** Synchronous count (tests, scripts): loads the table in this process when needed. */
export function countO200k(text: string): number {
  return countSome(o200kTable(), text).tokens;
}

if (import.meta.main) {
  // `bun adapters/ai/o200k.ts [FILE]` writes the table (into the cache when FILE is left out);
  // `--if-missing` (npm install) does nothing when it is there, and never fails.
  const args = process.argv.slice(2);
  const file = args.find((arg) => !arg.startsWith("--")) ?? TABLE_FILE;
  const lenient = args.includes("--if-missing");
  try {
    let present = false;
    if (lenient) {
      try {
        deserializeTable(readFileSync(file));
        present = true;
      } catch {}
    }
    if (!present) writeTable(file);
    process.exit(0);
  } catch (error) {
    console.error(`could not build the o200k table: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(lenient ? 0 : 1);
  }
}
