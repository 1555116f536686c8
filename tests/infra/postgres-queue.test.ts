// postgres.js is patched (patches/postgres+3.4.9.patch): its pool queue must not grow with the
// number of queries served, and must still be a FIFO with removal.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
// Bun loads postgres.js from src/ (the "bun" export); Node's require would load cjs/.
// @ts-expect-error postgres.js ships no types for its internals
import EsmQueue from "../../node_modules/postgres/src/queue.js";
// @ts-expect-error postgres.js ships no types for its internals
import CommonJsQueue from "../../node_modules/postgres/cjs/src/queue.js";

interface PoolQueue<T> {
  readonly length: number;
  push(item: T): T;
  shift(): T;
  remove(item: T): T | null;
}
type MakeQueue = <T>(initial?: T[]) => PoolQueue<T>;

// An array that remembers the longest it has been; slice() keeps the subclass (Symbol.species).
class MeasuredArray<T> extends Array<T> {
  static longest = 0;
  override push(...items: T[]): number {
    const length = super.push(...items);
    MeasuredArray.longest = Math.max(MeasuredArray.longest, length);
    return length;
  }
}

describe.each([
  ["src (Bun, ESM)", EsmQueue as MakeQueue],
  ["cjs (Node)", CommonJsQueue as MakeQueue],
])("postgres.js Queue, %s", (_name, makeQueue) => {
  test("a queue that never empties keeps a bounded array (the ageing bug)", () => {
    MeasuredArray.longest = 0;
    const queue = makeQueue<unknown>(MeasuredArray.from(["always-there"]));
    for (let i = 0; i < 20_000; i++) {
      queue.push(i);
      queue.push(queue.shift()); // as the pool's busy queue: one connection always in it
      queue.remove(i);
    }
    expect(queue.length).toBe(1);
    expect(MeasuredArray.longest).toBeLessThan(300); // unpatched: about 20,000
  });

  test("behaves as a FIFO with removal", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), value: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant("shift" as const) }),
      fc.record({ kind: fc.constant("remove" as const), value: fc.integer({ min: 0, max: 50 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const queue = makeQueue<object>();
        const model: object[] = [];
        const boxes = new Map<number, object>(); // remove() compares identity, as for connections
        const box = (value: number) => boxes.get(value) ?? boxes.set(value, { value }).get(value)!;
        for (const step of ops) {
          if (step.kind === "push") {
            const item = { value: step.value };
            queue.push(item);
            model.push(item);
            boxes.set(step.value, item);
          } else if (step.kind === "shift") {
            if (model.length === 0) continue; // postgres.js only shifts a non-empty queue
            expect(queue.shift()).toBe(model.shift()!);
          } else {
            const item = box(step.value);
            const at = model.indexOf(item);
            if (at !== -1) model.splice(at, 1);
            expect(queue.remove(item)).toBe(at === -1 ? null : item);
          }
          expect(queue.length).toBe(model.length);
        }
      }),
    );
  });
});
