// Ask's BM25 over packed posting lists (issue 15, item 4; migration 0037): a big campaign's words are
// read as one packed value each (ask_packed) plus the postings written since the build (ask_terms),
// and scored here, a merge of id-sorted arrays, instead of the SQL executor reading, grouping and
// sorting every posting row (~1 µs a posting: 100k+ postings a question at 105k passages). The
// scores are the SQL statement's to the bit where SQL computes in float4 (see `contribution`).
import type { Row } from "./database.ts";

/** One word's postings in passage id order: passage `base + ids[i]`. */
export interface PostingList {
  base: number;
  /** Offsets from `base`: 4 bytes each when the list spans less than 2³² ids (kept in memory: see PackedCache). */
  ids: Float64Array | Uint32Array;
  tfs: Float32Array;
  lens: Float32Array;
}

const EMPTY: PostingList = { base: 0, ids: new Float64Array(0), tfs: new Float32Array(0), lens: new Float32Array(0) };

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A list as migration 0037's build writes it: 4-byte big-endian id gaps from `base`, float4 tf and len. */
export function decodePacked(n: number, base: number, ids: Uint8Array, tfs: Uint8Array, lens: Uint8Array): PostingList {
  if (ids.byteLength !== n * 4 || tfs.byteLength !== n * 4 || lens.byteLength !== n * 4) throw new Error(`packed postings of ${n} have ${ids.byteLength}/${tfs.byteLength}/${lens.byteLength} bytes`);
  const [gap, tf, len] = [view(ids), view(tfs), view(lens)];
  let span = 0;
  for (let i = 0; i < n; i++) span += gap.getInt32(i * 4);
  const out = { base, ids: span < 2 ** 32 ? new Uint32Array(n) : new Float64Array(n), tfs: new Float32Array(n), lens: new Float32Array(n) };
  for (let i = 0, offset = 0; i < n; i++) {
    offset += gap.getInt32(i * 4);
    out.ids[i] = offset;
    out.tfs[i] = tf.getFloat32(i * 4);
    out.lens[i] = len.getFloat32(i * 4);
  }
  return out;
}

/** Postings read as SQL arrays (the delta since the build). */
export function listFromArrays(ids: unknown, tfs: unknown, lens: unknown): PostingList {
  if (!Array.isArray(ids) || !ids.length) return EMPTY;
  return { base: 0, ids: Float64Array.from(ids, Number), tfs: Float32Array.from(tfs as unknown[], Number), lens: Float32Array.from(lens as unknown[], Number) };
}

export interface Bm25 {
  k1: number;
  b: number;
  minLength: number;
}

/**
 * A word's weight as the SQL statement computes it: n and df are float4, `n - df` a float4
 * subtraction, the rest double (a float4 plus a numeric constant resolves to float8).
 */
export function termWeight(qw: number, n: number, df: number): number {
  const [n4, df4, qw4] = [Math.fround(n), Math.fround(df), Math.fround(qw)];
  return qw4 * Math.log(1 + (Math.fround(n4 - df4) + 0.5) / (df4 + 0.5));
}

let scratch = { score: new Float64Array(0), covered: new Float64Array(0), hit: new Uint8Array(0) };

export interface Candidates {
  count: number;
  ids: Float64Array;
  scores: Float64Array;
  coverages: Float64Array;
}

/**
 * BM25 of every passage holding a word: a k-way merge of the words' id-sorted lists (a word may
 * come as several lists, the build's and the delta's; a passage is in at most one of them).
 */
export function scoreLists(lists: { w: number; list: PostingList }[], avglen: number, p: Bm25, totalW: number): Candidates {
  const live = lists.filter((l) => l.list.ids.length);
  const total = live.reduce((sum, l) => sum + l.list.ids.length, 0);
  const out: Candidates = { count: 0, ids: new Float64Array(total), scores: new Float64Array(total), coverages: new Float64Array(total) };
  const avg4 = Math.fround(avglen);
  const [k1p1, k1, oneMinusB, b, minLength] = [p.k1 + 1, p.k1, 1 - p.b, p.b, p.minLength];
  // SQL: w * tf * (k1+1) / (tf + k1 * ((1-b) + b * greatest(len / avglen, minLength))), len / avglen in float4.
  const tot = Math.max(totalW, 1e-6);
  const contribution = (w: number, tf: number, len: number) => (w * tf * k1p1) / (tf + k1 * (oneMinusB + b * Math.max(Math.fround(len / avg4), minLength)));
  // A campaign's passage ids are mostly one dense run (a passage per write, in order): then each list
  // adds into an array indexed by id, sequentially, and the candidates are read back in id order.
  let low = Infinity;
  let high = -Infinity;
  for (const { list } of live) {
    low = Math.min(low, list.base + list.ids[0]!);
    high = Math.max(high, list.base + list.ids[list.ids.length - 1]!);
  }
  const range = high - low + 1;
  if (live.length && range <= Math.max(4 * total, 65_536)) {
    if (scratch.hit.length < range) scratch = { score: new Float64Array(range), covered: new Float64Array(range), hit: new Uint8Array(range) };
    // Left zeroed by the read-back below (scoring is synchronous: one question at a time uses it).
    const { score, covered, hit } = scratch;
    for (const { w, list } of live) {
      const { ids, tfs, lens } = list;
      const shift = list.base - low;
      for (let i = 0; i < ids.length; i++) {
        const at = ids[i]! + shift;
        score[at]! += contribution(w, tfs[i]!, lens[i]!);
        covered[at]! += w;
        hit[at] = 1;
      }
    }
    for (let at = 0; at < range; at++) {
      if (!hit[at]) continue;
      out.ids[out.count] = low + at;
      out.scores[out.count] = score[at]!;
      out.coverages[out.count] = covered[at]! / tot;
      out.count++;
      score[at] = covered[at] = hit[at] = 0;
    }
    return out;
  }
  // Ids spread wide (campaigns written interleaved): a k-way merge of the lists.
  const pos = new Int32Array(live.length);
  for (;;) {
    let next = Infinity;
    for (let j = 0; j < live.length; j++) {
      const { base, ids } = live[j]!.list;
      if (pos[j]! < ids.length && base + ids[pos[j]!]! < next) next = base + ids[pos[j]!]!;
    }
    if (next === Infinity) break;
    let score = 0;
    let covered = 0;
    for (let j = 0; j < live.length; j++) {
      const { w, list } = live[j]!;
      const i = pos[j]!;
      if (i >= list.ids.length || list.base + list.ids[i]! !== next) continue;
      score += contribution(w, list.tfs[i]!, list.lens[i]!);
      covered += w;
      pos[j] = i + 1;
    }
    out.ids[out.count] = next;
    out.scores[out.count] = score;
    out.coverages[out.count] = covered / tot;
    out.count++;
  }
  return out;
}

/** The k best candidates, best first (ties by id), as arrays for the SQL statement. */
export function topCandidates(c: Candidates, k: number): { ids: number[]; scores: number[]; coverages: number[] } {
  const better = (x: number, y: number) => c.scores[x]! > c.scores[y]! || (c.scores[x] === c.scores[y] && c.ids[x]! < c.ids[y]!);
  let picked: number[];
  if (k >= c.count) picked = Array.from({ length: c.count }, (_, i) => i);
  else {
    // A min-heap of the k best so far (its root the worst of them).
    const heap: number[] = [];
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && better(heap[m]!, heap[l]!)) m = l;
        if (r < heap.length && better(heap[m]!, heap[r]!)) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    };
    for (let x = 0; x < c.count; x++) {
      if (heap.length < k) {
        heap.push(x);
        for (let i = heap.length - 1; i > 0; ) {
          const parent = (i - 1) >> 1;
          if (!better(heap[parent]!, heap[i]!)) break;
          [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
          i = parent;
        }
      } else if (better(x, heap[0]!)) {
        heap[0] = x;
        down(0);
      }
    }
    picked = heap;
  }
  picked.sort((x, y) => (better(x, y) ? -1 : better(y, x) ? 1 : 0));
  return { ids: picked.map((i) => c.ids[i]!), scores: picked.map((i) => c.scores[i]!), coverages: picked.map((i) => c.coverages[i]!) };
}

/**
 * Decoded lists kept per process (least recently used out past `maxBytes`), valid for one build of a
 * campaign: a question names the words it holds for the build it saw, and the statement sends only the others.
 */
export class PackedCache {
  private entries = new Map<string, { build: string; list: PostingList; bytes: number }>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}

  get(campaignId: string, term: string, build: string): PostingList | null {
    const key = `${campaignId}\u0000${term}`;
    const entry = this.entries.get(key);
    if (!entry || entry.build !== build) return null;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.list;
  }

  set(campaignId: string, term: string, build: string, list: PostingList) {
    const key = `${campaignId}\u0000${term}`;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    const bytes = list.ids.length * (list.ids.BYTES_PER_ELEMENT + 8) + 64;
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { build, list, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}

export const packedRow = (row: Row): PostingList =>
  row.packed_n === null || row.packed_n === undefined
    ? EMPTY
    : decodePacked(Number(row.packed_n), Number(row.base), row.ids as Uint8Array, row.tfs as Uint8Array, row.lens as Uint8Array);
