import { fail, ok, type Result } from "../domain/errors.ts";
import { looksLikeApiKey, type Caller } from "../domain/identity.ts";
import type { CampaignWithStanding } from "../ports/records.ts";
import type { Deps } from "./deps.ts";

export const INVALID_KEY = "Invalid API key";

/** A key that cannot be one is refused without a database round trip. */
export const plausibleKey = (presented: string | null): presented is string => Boolean(presented && looksLikeApiKey(presented));

/**
 * Resolves a presented key to its caller. No cache: a revoked key stops working on the next
 * request, on every instance.
 */
export async function authenticate(deps: Pick<Deps, "records" | "keys">, presented: string | null): Promise<Result<Caller>> {
  if (!plausibleKey(presented)) return fail("unauthorized", INVALID_KEY);
  const key = await deps.records.apiKeys.findActiveByHash(deps.keys.digest(presented));
  if (!key) return fail("unauthorized", INVALID_KEY);
  return ok({ userId: key.userId, keyId: key.keyId, scopes: key.scopes, profile: "developer" });
}

/**
 * The same, with the caller's standing in `campaignId` read in the same round trip: what keeps a
 * campaign read at one query (docs/benchmarks.md).
 */
export async function authenticateIn(
  deps: Pick<Deps, "records" | "keys">,
  presented: string | null,
  campaignId: string,
): Promise<Result<{ caller: Caller; found: CampaignWithStanding | null }>> {
  if (!plausibleKey(presented)) return fail("unauthorized", INVALID_KEY);
  const found = await deps.records.apiKeys.findActiveByHashWithCampaign(deps.keys.digest(presented), campaignId);
  if (!found) return fail("unauthorized", INVALID_KEY);
  return ok({ caller: { userId: found.key.userId, keyId: found.key.keyId, scopes: found.key.scopes, profile: "developer" }, found: found.campaign });
}
