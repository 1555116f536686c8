import { fail, ok, type Result } from "../domain/errors.ts";
import { looksLikeApiKey, type Caller } from "../domain/identity.ts";
import type { Deps } from "./deps.ts";

export const INVALID_KEY = "Invalid API key";

/**
 * Resolves a presented key to its caller. No cache: a revoked key stops working on the
 * next request, on every instance.
 */
export async function authenticate(deps: Pick<Deps, "records" | "keys">, presented: string | null): Promise<Result<Caller>> {
  if (!presented || !looksLikeApiKey(presented)) return fail("unauthorized", INVALID_KEY);
  const key = await deps.records.apiKeys.findActiveByHash(deps.keys.digest(presented));
  if (!key) return fail("unauthorized", INVALID_KEY);
  return ok({ userId: key.userId, keyId: key.keyId, scopes: key.scopes, profile: "developer" });
}
