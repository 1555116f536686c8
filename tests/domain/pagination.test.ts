import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { isValidPageRequest, offsetOf, pageCount, PAGE_SIZE_MAX, toPage } from "../../domain/pagination.ts";

const pageRequest = fc.record({ page: fc.integer({ min: 1, max: 1000 }), size: fc.integer({ min: 1, max: PAGE_SIZE_MAX }) });

describe("pagination", () => {
  test("pages is 0 for an empty list and otherwise covers every item exactly", () => {
    fc.assert(
      fc.property(fc.nat(100_000), fc.integer({ min: 1, max: PAGE_SIZE_MAX }), (total, size) => {
        const pages = pageCount(total, size);
        if (total === 0) expect(pages).toBe(0);
        else {
          expect(pages * size).toBeGreaterThanOrEqual(total);
          expect((pages - 1) * size).toBeLessThan(total);
        }
      }),
    );
  });

  test("consecutive pages tile the list without gaps or overlap", () => {
    fc.assert(
      fc.property(pageRequest, ({ page, size }) => {
        expect(offsetOf({ page: page + 1, size }) - offsetOf({ page, size })).toBe(size);
        expect(offsetOf({ page: 1, size })).toBe(0);
      }),
    );
  });

  test("the envelope echoes the request and the count", () => {
    fc.assert(
      fc.property(pageRequest, fc.nat(5000), ({ page, size }, total) => {
        const envelope = toPage([], total, { page, size });
        expect(envelope).toEqual({ data: [], total, page, size, pages: pageCount(total, size) });
      }),
    );
  });

  test("bounds: page ≥ 1, size 1–100, whole numbers", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 200 }), fc.integer({ min: -5, max: 200 }), (page, size) => {
        expect(isValidPageRequest({ page, size })).toBe(page >= 1 && size >= 1 && size <= 100);
      }),
    );
    expect(isValidPageRequest({ page: 1.5, size: 10 })).toBe(false);
  });
});
