// The application's BM25 over posting lists (adapters/sql/packed.ts): the packed format decodes to the
// ids, tf and len written (4-byte offsets, or 8 when a list spans 2³² ids), and both ways of adding up
// (an array indexed by id for a dense id run, a merge for ids spread wide) give the same scores as
// BM25 computed here by hand.
import { expect, test } from "bun:test";
import { decodePacked, scoreLists, topCandidates, type PostingList } from "../../adapters/sql/packed.ts";

const be32 = (values: number[], float = false) => {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => (float ? view.setFloat32(i * 4, v) : view.setInt32(i * 4, v)));
  return bytes;
};
const ids = (list: PostingList) => Array.from(list.ids, (offset) => list.base + offset);

test("packed lists decode to their ids, tf and len; a list spanning 2³² ids keeps 8-byte offsets", () => {
  const small = decodePacked(3, 1000, be32([0, 5, 2]), be32([1, 4.5, 2], true), be32([10, 33, 7], true));
  expect(ids(small)).toEqual([1000, 1005, 1007]);
  expect(Array.from(small.tfs)).toEqual([1, 4.5, 2]);
  expect(Array.from(small.lens)).toEqual([10, 33, 7]);
  expect(small.ids).toBeInstanceOf(Uint32Array);
  const fits = decodePacked(3, 7, be32([0, 2 ** 31 - 1, 2 ** 31 - 1]), be32([1, 1, 1], true), be32([1, 1, 1], true));
  expect(ids(fits)).toEqual([7, 7 + 2 ** 31 - 1, 7 + 2 ** 32 - 2]);
  expect(fits.ids).toBeInstanceOf(Uint32Array);
  const wide = decodePacked(4, 7, be32([0, 2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1]), be32([1, 1, 1, 1], true), be32([1, 1, 1, 1], true));
  expect(ids(wide)).toEqual([7, 7 + 2 ** 31 - 1, 7 + 2 ** 32 - 2, 7 + 3 * (2 ** 31 - 1)]);
  expect(wide.ids).toBeInstanceOf(Float64Array);
  expect(() => decodePacked(2, 0, be32([0]), be32([1, 1], true), be32([1, 1], true))).toThrow();
});

test("scores and coverage are BM25's, the same whether ids are dense or spread wide", () => {
  const p = { k1: 0.9, b: 0.75, minLength: 0 };
  const list = (base: number, offsets: number[], tfs: number[], lens: number[]): PostingList => ({ base, ids: Float64Array.from(offsets), tfs: Float32Array.from(tfs), lens: Float32Array.from(lens) });
  const make = (spread: number) => [
    { w: 2, list: list(100, [0, 1 * spread, 3 * spread], [1, 2, 1], [10, 20, 40]) },
    { w: 0.5, list: list(100, [1 * spread, 2 * spread], [4, 1], [20, 5]) },
  ];
  const bm25 = (w: number, tf: number, len: number) => (w * tf * 1.9) / (tf + 0.9 * (0.25 + 0.75 * Math.fround(len / 20)));
  const expected = [
    [100, bm25(2, 1, 10), 2 / 2.5],
    [101, bm25(2, 2, 20) + bm25(0.5, 4, 20), 1],
    [102, bm25(0.5, 1, 5), 0.5 / 2.5],
    [103, bm25(2, 1, 40), 2 / 2.5],
  ];
  const dense = scoreLists(make(1), 20, p, 2.5);
  const spreadWide = scoreLists(make(1_000_000), 20, p, 2.5);
  expect(dense.count).toBe(4);
  expect(Array.from({ length: 4 }, (_, i) => [dense.ids[i], dense.scores[i], dense.coverages[i]])).toEqual(expected);
  expect(Array.from({ length: 4 }, (_, i) => [spreadWide.ids[i], spreadWide.scores[i], spreadWide.coverages[i]])).toEqual(
    expected.map(([id, score, coverage]) => [100 + (id! - 100) * 1_000_000, score, coverage]),
  );
  // Best first; ties by id.
  const top = topCandidates(dense, 2);
  expect(top.ids).toEqual([101, 100]);
  expect(topCandidates(dense, 10).ids).toEqual([101, 100, 103, 102].sort((x, y) => expected.find((e) => e[0] === y)![1]! - expected.find((e) => e[0] === x)![1]! || x - y));
});
