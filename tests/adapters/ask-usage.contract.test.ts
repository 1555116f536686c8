// Ask's token counters (ports/records/ask-usage.ts) on every backend: reservations inside
// transactions never pass a limit together, answers add past it, give-backs stop at zero.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend } from "../support/backends.ts";

const WINDOWS = { month: "2026-11-01T00:00:00.000Z", hour: "2026-11-23T20:00:00.000Z" };
const LIMITS = { month: 5000, hour: 1000 };

await forEachBackend("Ask token counters", (backend) => {
  let store: RecordStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const opened = await backend.open();
    close = opened.close;
    for (const id of ["u1", "u2", "u3"]) await opened.db.query(`insert into users (id, name, email, created_at) values ($1, $1, $1 || '@example.test', now())`, [id]);
    store = sqlRecordStore(opened.db);
  });
  afterAll(() => close?.());

  test("nothing used yet is zero", async () => {
    expect(await store.askUsage.used("u1", WINDOWS)).toEqual({ month: 0, hour: 0 });
  });

  test("ten concurrent reservations of 300 under an hourly limit of 1000: exactly three pass", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.withTransaction((tx) => tx.askUsage.reserve("u2", WINDOWS, 300, LIMITS))));
    expect(results.filter((r) => r !== null)).toHaveLength(3);
    expect(await store.askUsage.used("u2", WINDOWS)).toEqual({ month: 900, hour: 900 });
    // An answer's tokens are added whatever the limit; a give-back never goes below zero.
    expect(await store.askUsage.add("u2", WINDOWS, 250)).toEqual({ month: 1150, hour: 1150 });
    expect(await store.askUsage.add("u2", WINDOWS, -5000)).toEqual({ month: 0, hour: 0 });
  });

  test("a new hour starts from zero and the month carries on; earlier windows are cleared by the next reservation", async () => {
    await store.withTransaction((tx) => tx.askUsage.reserve("u3", WINDOWS, 400, LIMITS));
    const next = { month: WINDOWS.month, hour: "2026-11-23T21:00:00.000Z" };
    expect(await store.withTransaction((tx) => tx.askUsage.reserve("u3", next, 700, LIMITS))).toEqual({ month: 1100, hour: 700 });
    expect(await store.askUsage.used("u3", WINDOWS)).toEqual({ month: 1100, hour: 0 });
    expect(await store.withTransaction((tx) => tx.askUsage.reserve("u3", next, 301, LIMITS))).toBeNull();
  });
});
