// The create and update flow plain kinds share: one transaction that applies the client's fields
// (the kind's own checks), writes the record and runs what follows a write (links, search).
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Repositories, Stored } from "../ports/records.ts";
import type { CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

/** How a kind's records are written; the bespoke parts are the kind's own functions. */
export interface Writes<T extends { id: string; updated_at: string | null }, F> {
  repository(tx: Repositories): Omit<Stored<T>, "delete">;
  /** The record with the client's fields applied, or why they cannot be. */
  apply(tx: Repositories, record: T, fields: F): Promise<Result<T>>;
  /** Wikilinks, search text: what follows a write, in the same transaction (`previous` null on create). */
  afterWrite(tx: Repositories, deps: Deps, record: T, previous: T | null): Promise<void>;
}

/** Creates `blank` with `fields` applied. */
export function createWith<T extends { id: string; updated_at: string | null }, F>(deps: Deps, writes: Writes<T, F>, blank: T, fields: F): Promise<Result<T>> {
  return deps.records.withTransaction(async (tx): Promise<Result<T>> => {
    const applied = await writes.apply(tx, blank, fields);
    if (!applied.ok) return applied;
    await writes.repository(tx).insert(applied.value);
    await writes.afterWrite(tx, deps, applied.value, null);
    return ok(applied.value);
  });
}

/**
 * Applies `fields` to the record read with its lock first, so concurrent updates never overwrite each
 * other. A record of another campaign is not found (the caller's access is to `access`'s campaign),
 * and `read` may refuse one of another kind by answering null.
 */
export function updateWith<T extends { id: string; campaign_id: string; updated_at: string | null }, F>(
  deps: Deps,
  access: CampaignAccess,
  writes: Writes<T, F>,
  id: string,
  fields: F,
  notFound: string,
  read: (record: T | null) => T | null = (record) => record,
): Promise<Result<T>> {
  return deps.records.withTransaction(async (tx): Promise<Result<T>> => {
    const previous = read(await writes.repository(tx).get(id, { lock: true }));
    if (!previous || previous.campaign_id !== access.campaign.id) return fail("not_found", notFound);
    const applied = await writes.apply(tx, previous, fields);
    if (!applied.ok) return applied;
    const record = { ...applied.value, updated_at: nowIso(deps) };
    await writes.repository(tx).replace(record);
    await writes.afterWrite(tx, deps, record, previous);
    return ok(record);
  });
}

/**
 * Deletes a record of `access`'s campaign, read with its lock first, after `cleanup` (its links,
 * its search entry, its children) in the same transaction; `read` may refuse a record of another kind.
 */
export async function deleteWith<T extends { id: string; campaign_id: string }>(
  deps: Deps,
  access: CampaignAccess,
  repository: (tx: Repositories) => Pick<Stored<T>, "get" | "delete">,
  id: string,
  notFound: string,
  cleanup: (tx: Repositories) => Promise<unknown>,
  read: (record: T | null) => T | null = (record) => record,
): Promise<Result<null>> {
  const deleted = await deps.records.withTransaction(async (tx) => {
    const record = read(await repository(tx).get(id, { lock: true }));
    if (!record || record.campaign_id !== access.campaign.id) return false;
    await cleanup(tx);
    return repository(tx).delete(id);
  });
  return deleted ? ok(null) : fail("not_found", notFound);
}
