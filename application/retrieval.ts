// Ask's retrieval index, operated: the backfill that rebuilds it for data written before it existed.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { requireFirstParty } from "./access.ts";
import type { Deps } from "./deps.ts";

/** Rebuilds the index of one campaign, or of every campaign, in one transaction (readers see the old index until it commits). */
export async function reindexAsk(deps: Deps, caller: Caller, campaignId: string | null): Promise<Result<{ campaign_id: string | null; passages: number }>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (campaignId && !(await deps.records.campaigns.get(campaignId))) return fail("not_found", "Campaign not found");
  const passages = await deps.records.withTransaction((tx) => tx.askIndex.reindex(campaignId));
  return ok({ campaign_id: campaignId, passages });
}

/**
 * Ask's running counts (migration 0018) gain delta rows with every record write; imports fold
 * theirs, this folds the rest (the worker, periodically): campaigns with more than `threshold`
 * rows beyond one a word, ten at a time, until none is left (or 200 folds). Returns the campaigns folded.
 */
export async function foldAskCounts(deps: Pick<Deps, "records">, threshold = FOLD_THRESHOLD): Promise<number> {
  let folded = 0;
  // Bounded, so a campaign written faster than it folds cannot hold the pass for ever.
  for (let round = 0, batch; round < 20 && (batch = await deps.records.askIndex.foldCounts(threshold, 10)).length; round++) folded += batch.length;
  return folded;
}

/** Delta count rows (migration 0054) a campaign may carry before a fold: ~10 record writes' worth; each read sums them. */
export const FOLD_THRESHOLD = 1000;

/**
 * Campaigns with at least this many passages have their posting lists packed by the worker
 * (migration 0037) and scored in the application; smaller ones are scored by the SQL statement.
 */
export const PACK_MIN_PASSAGES = 8_000;
