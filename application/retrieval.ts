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
