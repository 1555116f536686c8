// Users and keys: the first-party (product_write) surface, plus /v1/users/me.
import { fail, ok, type Result } from "../domain/errors.ts";
import { isPlausibleEmail, keyPrefixOf, normalizeEmail, SCOPES, type ApiKeyRecord, type ApiProfile, type Caller, type User } from "../domain/identity.ts";
import { requireFirstParty } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import type { Repositories } from "../ports/records.ts";

export interface Profile extends User {
  scopes: string[];
  api_profile: ApiProfile;
}

export async function currentUser(deps: Deps, caller: Caller): Promise<Result<Profile>> {
  const user = await deps.records.users.get(caller.userId);
  if (!user) return fail("unauthorized", "Invalid API key");
  return ok({ ...user, scopes: [...caller.scopes], api_profile: caller.profile });
}

export async function createUser(deps: Deps, caller: Caller, input: { name: string; email: string }): Promise<Result<User>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const name = input.name.trim();
  if (!name) return fail("invalid", "Name cannot be empty", [{ type: "string_too_short", loc: ["body", "name"], msg: "Name cannot be empty", input: input.name }]);
  if (!isPlausibleEmail(input.email))
    return fail("invalid", "Email is not a valid address", [{ type: "value_error", loc: ["body", "email"], msg: "Email is not a valid address", input: input.email }]);
  const user = await deps.records.users.insert({
    id: deps.ids.next(),
    name,
    email: normalizeEmail(input.email),
    role: "user",
    created_at: nowIso(deps),
  });
  return user ? ok(user) : fail("conflict", "A user with this email already exists");
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  user_id: string;
  scopes: string[];
  created_at: string;
}

const unknownScopes = (scopes: string[]) => scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));

export async function issueKey(deps: Deps, caller: Caller, userId: string, scopes: string[] = []): Promise<Result<IssuedKey>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const unknown = unknownScopes(scopes);
  if (unknown.length)
    return fail("invalid", `Unknown scope: ${unknown[0]}`, [{ type: "enum", loc: ["body", "scopes"], msg: `Scopes must be among: ${SCOPES.join(", ")}`, input: scopes }]);
  if (!(await deps.records.users.get(userId))) return fail("not_found", "User not found");
  return ok(await mintKeyFor(deps, deps.records, userId, [...new Set(scopes)]));
}

/** `repos`: the store's, or a transaction's (rotation). */
async function mintKeyFor(deps: Deps, repos: Pick<Repositories, "apiKeys">, userId: string, scopes: string[]): Promise<IssuedKey> {
  const key = deps.keys.mint();
  const record = await repos.apiKeys.insert({
    id: deps.ids.next(),
    user_id: userId,
    prefix: keyPrefixOf(key),
    hash: deps.keys.digest(key),
    scopes,
    created_at: nowIso(deps),
  });
  return { id: record.id, key, prefix: record.prefix, user_id: userId, scopes: record.scopes, created_at: record.created_at };
}

export async function revokeKey(deps: Deps, caller: Caller, keyId: string): Promise<Result<null>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  const revoked = await deps.records.apiKeys.revoke(keyId, nowIso(deps));
  return revoked ? ok(null) : fail("not_found", "API key not found");
}

/** Rotation: a new key with the same owner and scopes; the old one stops working in the same transaction. */
export async function rotateKey(deps: Deps, caller: Caller, keyId: string): Promise<Result<IssuedKey>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  return deps.records.withTransaction(async (tx): Promise<Result<IssuedKey>> => {
    const old = await tx.apiKeys.get(keyId);
    if (!old || old.revoked_at) return fail("not_found", "API key not found");
    if (!(await tx.apiKeys.revoke(keyId, nowIso(deps)))) return fail("not_found", "API key not found");
    return ok(await mintKeyFor(deps, tx, old.user_id, old.scopes));
  });
}

export async function listKeys(deps: Deps, caller: Caller, userId: string): Promise<Result<ApiKeyRecord[]>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!(await deps.records.users.get(userId))) return fail("not_found", "User not found");
  return ok(await deps.records.apiKeys.listForUser(userId));
}

export const ADMIN_EMAIL = "admin@campaign-memory.local";

/**
 * Start-up: the first-party admin user holds exactly the configured key (with product_write);
 * any other key of that user stops working. Safe when several instances start at once: the user
 * is inserted if missing (a concurrent insert wins quietly), then its row is locked, so the
 * instances change its keys one after the other.
 */
export async function ensureAdminKey(deps: Deps, adminKey: string): Promise<void> {
  const at = nowIso(deps);
  const hash = deps.keys.digest(adminKey);
  await deps.records.withTransaction(async (tx) => {
    await tx.users.insert({ id: deps.ids.next(), name: "Administrator", email: ADMIN_EMAIL, role: "admin", created_at: at });
    const admin = await tx.users.findByEmail(ADMIN_EMAIL, { lock: true });
    if (!admin) throw new Error("could not create the first-party admin user");
    await tx.apiKeys.revokeAllForUserExcept(admin.id, hash, at);
    const existing = await tx.apiKeys.findActiveByHash(hash);
    if (existing && existing.userId !== admin.id) throw new Error("CMS_ADMIN_KEY is already an API key of another user");
    // A revoked key stays revoked (it may have leaked): refuse it by name instead of a unique violation.
    if (!existing && (await tx.apiKeys.isRevokedHash(hash))) throw new Error("CMS_ADMIN_KEY was used before and revoked; set a new one (openssl rand -hex 32)");
    if (!existing)
      await tx.apiKeys.insert({ id: deps.ids.next(), user_id: admin.id, prefix: keyPrefixOf(adminKey), hash, scopes: ["product_write"], created_at: at });
  });
}
