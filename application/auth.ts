import { fail, ok, type Result } from "../domain/errors.ts";
import { looksLikeApiKey, type Caller } from "../domain/identity.ts";
import type { CampaignWithStanding } from "../ports/records.ts";
import type { Deps } from "./deps.ts";

export const INVALID_KEY = "Invalid API key";

/** A caller, with the campaign the request names already read alongside the key (when it named one). */
export interface AuthenticatedCaller extends Caller {
  prefetched?: { campaignId: string; found: CampaignWithStanding | null };
}

/**
 * Resolves a presented key to its caller. No cache: a revoked key stops working on the next
 * request, on every instance. Given the campaign the request is about, reads the caller's standing
 * in it in the same round trip.
 */
export async function authenticate(
  deps: Pick<Deps, "records" | "keys">,
  presented: string | null,
  campaignId?: string,
): Promise<Result<AuthenticatedCaller>> {
  if (!presented || !looksLikeApiKey(presented)) return fail("unauthorized", INVALID_KEY);
  const digest = deps.keys.digest(presented);
  if (campaignId) {
    const found = await deps.records.apiKeys.findActiveByHashWithCampaign(digest, campaignId);
    if (!found) return fail("unauthorized", INVALID_KEY);
    return ok({ userId: found.key.userId, keyId: found.key.keyId, scopes: found.key.scopes, profile: "developer", prefetched: { campaignId, found: found.campaign } });
  }
  const key = await deps.records.apiKeys.findActiveByHash(digest);
  if (!key) return fail("unauthorized", INVALID_KEY);
  return ok({ userId: key.userId, keyId: key.keyId, scopes: key.scopes, profile: "developer" });
}
