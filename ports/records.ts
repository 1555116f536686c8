// What the application needs from a record store. No SQL or driver types cross this line.
// Shared shapes and the whole store here; each kind's repositories in records/<kind>.ts, which registers
// them on `Repositories` (the re-exports below are a convenience; a new kind's importers may use its file).
export type * from "./records/identity.ts";
export type * from "./records/campaigns.ts";
export type * from "./records/speakers.ts";
export type * from "./records/characters.ts";
export type * from "./records/entities.ts";
export type * from "./records/links.ts";
export type * from "./records/search.ts";
export type * from "./records/sessions.ts";
export type * from "./records/quests.ts";
export type * from "./records/journals.ts";
export type * from "./records/beats.ts";
export type * from "./records/moments.ts";
export type * from "./records/recaps.ts";
export type * from "./records/owners.ts";
export type * from "./records/ask.ts";
export type * from "./records/ask-usage.ts";
export type * from "./records/changes.ts";
export type * from "./records/webhooks.ts";
export type * from "./records/oauth.ts";
export type * from "./records/images.ts";
export type * from "./records/portability.ts";
export type * from "./records/statistics.ts";
export type * from "./records/search-counters.ts";

/**
 * `lock: true` reads the row for update: inside a transaction, every other writer of the row
 * waits until this one ends. A use case that reads, changes and writes a record back reads it so,
 * first thing in its transaction, so concurrent changes never overwrite each other and updates
 * and deletes of one record take their locks in the same order.
 */
import type { PortabilityStore } from "./records/portability.ts";

export interface ReadOptions {
  lock?: boolean;
}

/** What a plain kind's repository starts with: write a record whole, read one (locked for a read-modify-write), delete one (adapters/sql/table.ts `crud`). */
export interface Stored<T> {
  insert(record: T): Promise<void>;
  replace(record: T): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<T | null>;
  delete(id: string): Promise<boolean>;
}

export interface Listing<T> {
  rows: T[];
  total: number;
}

/**
 * Every repository of the store, by name. Empty here on purpose: each kind's port file
 * (`records/<kind>.ts`) adds its own with `declare module "../records.ts" { interface Repositories {…} }`,
 * so a new kind edits no shared file. `tests/architecture/registration.test.ts` checks every
 * name declared there has an implementation on every store.
 */
export interface Repositories {}

export interface StoreHealth {
  backend: string;
  latency_ms: number;
  migrations: { applied: number; latest: string | null };
}

export interface RecordStore extends Repositories {
  readonly backend: string;
  /** Whole-campaign export and import (issue 14): reads one snapshot, writes one transaction. */
  portable: PortabilityStore;
  /**
   * Runs `work` atomically: every write inside commits together or not at all. When `work` returns
   * a failed Result (`{ ok: false }`), its writes are rolled back and that result returned, so a
   * use case refusing half-way leaves nothing half-written. When the database
   * rolls it back over a deadlock or serialization failure, `work` runs again (a few times), so it
   * must have no effects outside the transaction; `retry: false` is for work that cannot run twice.
   */
  withTransaction<T>(work: (repos: Repositories) => Promise<T>, options?: { retry?: boolean }): Promise<T>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
