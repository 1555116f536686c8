// The create and update flow plain kinds share: one transaction that applies the client's fields
// (the kind's own checks), writes the record and runs what follows a write (links, search).
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Repositories, Stored } from "../ports/records.ts";
import type { CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

/** A record with the client's fields applied, and what the checks read that the answer shows (a character's linked speaker). */
export interface Applied<T, X> {
  record: T;
  found: X;
}

/** How a kind's records are written; the bespoke parts are the kind's own functions. */
export interface Writes<T extends { id: string; updated_at: string | null }, F, X = null> {
  repository(tx: Repositories): Omit<Stored<T>, "delete">;
  /** The record with the client's fields applied, or why they cannot be. */
  apply(tx: Repositories, record: T, fields: F): Promise<Result<Applied<T, X>>>;
  /** Wikilinks, search text: what follows a write, in the same transaction (`previous` null on create). */
  afterWrite(tx: Repositories, deps: Deps, record: T, previous: T | null): Promise<void>;
}

/** Creates `blank` with `fields` applied. */
export function createWith<T extends { id: string; updated_at: string | null }, F, X>(deps: Deps, writes: Writes<T, F, X>, blank: T, fields: F): Promise<Result<Applied<T, X>>> {
  return deps.records.withTransaction(async (tx): Promise<Result<Applied<T, X>>> => {
    const applied = await writes.apply(tx, blank, fields);
    if (!applied.ok) return applied;
    await writes.repository(tx).insert(applied.value.record);
    await writes.afterWrite(tx, deps, applied.value.record, null);
    return applied;
  });
}

/**
 * Applies `fields` to the record read with its lock first, so concurrent updates never overwrite each
 * other. A record of another campaign is not found (the caller's access is to `access`'s campaign),
 * and `read` may refuse one of another kind by answering null.
 */
export function updateWith<T extends { id: string; campaign_id: string; updated_at: string | null }, F, X>(
  deps: Deps,
  access: CampaignAccess,
  writes: Writes<T, F, X>,
  id: string,
  fields: F,
  notFound: string,
  read: (record: T | null) => T | null = (record) => record,
): Promise<Result<Applied<T, X>>> {
  return deps.records.withTransaction(async (tx): Promise<Result<Applied<T, X>>> => {
    const previous = read(await writes.repository(tx).get(id, { lock: true }));
    if (!previous || previous.campaign_id !== access.campaign.id) return fail("not_found", notFound);
    const applied = await writes.apply(tx, previous, fields);
    if (!applied.ok) return applied;
    const record = { ...applied.value.record, updated_at: nowIso(deps) };
    await writes.repository(tx).replace(record);
    await writes.afterWrite(tx, deps, record, previous);
    return ok({ record, found: applied.value.found });
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
