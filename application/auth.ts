import { fail, ok, type Result } from "../domain/errors.ts";
import { looksLikeApiKey, type Caller } from "../domain/identity.ts";
import { isAccessToken } from "../domain/oauth.ts";
import type { ActiveAccessToken, CampaignWithStanding } from "../ports/records.ts";
import { nowIso, type Deps } from "./deps.ts";

export const INVALID_KEY = "Invalid API key";

/** A key that cannot be one is refused without a database round trip. */
export const plausibleKey = (presented: string | null): presented is string => Boolean(presented && looksLikeApiKey(presented));

/**
 * Resolves a presented key to its caller. No cache: a revoked key stops working on the next
 * request, on every instance.
 */
export async function authenticate(deps: Pick<Deps, "records" | "keys" | "clock">, presented: string | null): Promise<Result<Caller>> {
  if (!plausibleKey(presented)) return fail("unauthorized", INVALID_KEY);
  if (isAccessToken(presented)) {
    const token = await deps.records.oauth.findActiveAccessToken(deps.keys.digest(presented), nowIso(deps));
    return token ? ok(tokenCaller(token)) : fail("unauthorized", INVALID_KEY);
  }
  const key = await deps.records.apiKeys.findActiveByHash(deps.keys.digest(presented));
  if (!key) return fail("unauthorized", INVALID_KEY);
  return ok({ userId: key.userId, keyId: key.keyId, scopes: key.scopes, profile: "developer" });
}

/**
 * The same, with the caller's standing in `campaignId` read in the same round trip: what keeps a
 * campaign read at one query (docs/benchmarks.md).
 */
export async function authenticateIn(
  deps: Pick<Deps, "records" | "keys" | "clock">,
  presented: string | null,
  campaignId: string,
): Promise<Result<{ caller: Caller; found: CampaignWithStanding | null }>> {
  if (!plausibleKey(presented)) return fail("unauthorized", INVALID_KEY);
  if (isAccessToken(presented)) {
    const found = await deps.records.oauth.findActiveAccessTokenWithCampaign(deps.keys.digest(presented), nowIso(deps), campaignId);
    return found ? ok({ caller: tokenCaller(found.token), found: found.campaign }) : fail("unauthorized", INVALID_KEY);
  }
  const found = await deps.records.apiKeys.findActiveByHashWithCampaign(deps.keys.digest(presented), campaignId);
  if (!found) return fail("unauthorized", INVALID_KEY);
  return ok({ caller: { userId: found.key.userId, keyId: found.key.keyId, scopes: found.key.scopes, profile: "developer" }, found: found.campaign });
}

/** An OAuth access token acts for its grant's user with the grant's scopes (DESIGN 9: `agent`). */
const tokenCaller = (token: ActiveAccessToken): Caller => ({ userId: token.userId, keyId: token.grantId, scopes: token.scopes, profile: "agent" });

/**
 * OAuth tokens reach only what their scopes name (API keys carry full access). The refusal names
 * the scope, so a client can ask the user for it.
 */
export function requireScope(caller: Caller, scope: string | undefined): Result<true> {
  if (caller.profile !== "agent" || (scope && caller.scopes.includes(scope))) return ok(true);
  if (!scope) return fail("forbidden", "This operation is not available to OAuth tokens; use an API key");
  return { ok: false, error: { failure: "forbidden", detail: `Insufficient scope: this operation needs the ${scope} scope, which this token was not granted`, scope } };
}
