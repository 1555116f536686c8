// OAuth 2.1 for MCP clients (DESIGN 7): registration (RFC 7591), the authorization request and
// consent, code and refresh grants with PKCE S256 (RFC 7636), revocation (RFC 7009), grants.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller, User } from "../domain/identity.ts";
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_TTL,
  CODE_PREFIX,
  CODE_TTL,
  isValidChallenge,
  isValidVerifier,
  LOGIN_LINK_PREFIX,
  LOGIN_LINK_TTL,
  OAUTH_SCOPES,
  parseScopes,
  redirectHostOf,
  redirectMatches,
  redirectUriKind,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL,
  REGISTRATION_LIMITS,
  SIGNIN_PREFIX,
  SIGNIN_TTL,
  type OAuthScope,
  type RedirectKind,
  type UrlParts,
} from "../domain/oauth.ts";
import type { OAuthClient, OAuthGrant, Repositories } from "../ports/records.ts";
import { requireFirstParty } from "./access.ts";
import { plausibleKey } from "./auth.ts";
import { nowIso, type Deps } from "./deps.ts";

/** Where this server is: the issuer, and the resource identifiers (RFC 8707) it answers for. */
export interface OAuthSettings {
  issuer: string;
  /** The MCP endpoint's resource identifier: what a token is for when the client names none. */
  mcpResource: string;
}

export const settingsFor = (publicBaseUrl: string): OAuthSettings => ({ issuer: publicBaseUrl, mcpResource: `${publicBaseUrl}/mcp` });

/** The whole service is one protected resource: its root and its MCP endpoint name it. */
const acceptedResources = (settings: OAuthSettings) => new Set([settings.issuer, `${settings.issuer}/`, settings.mcpResource, `${settings.mcpResource}/`]);

/** An OAuth error (RFC 6749 5.2 names), with the sentence clients and people read. */
export interface OAuthRefusal {
  error: string;
  description: string;
  status: number;
}
export type OAuthResult<T> = { ok: true; value: T } | { ok: false; refusal: OAuthRefusal };
const refuse = (error: string, description: string, status = 400): { ok: false; refusal: OAuthRefusal } => ({ ok: false, refusal: { error, description, status } });

export const parseUrl = (raw: string): UrlParts | null => {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
};

const after = (deps: Pick<Deps, "clock">, seconds: number) => new Date(deps.clock.now().getTime() + seconds * 1000).toISOString();
const isPast = (deps: Pick<Deps, "clock">, at: string) => Date.parse(at) <= deps.clock.now().getTime();
/** Printable text only: a client's name is shown to people. */
const cleanText = (value: string) => value.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, "").trim();

// ---- Registration (RFC 7591) ----

/** A type (not an interface) so it is a JSON record the store keeps as the client's metadata. */
export type RegisteredClient = {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  scope?: string;
};

/**
 * Registers a public client. Redirect URIs are checked (HTTPS, loopback HTTP, or an app's own
 * scheme); what the server does not support is replaced by what it does (RFC 7591 3.2.1 allows
 * it): every client is public (`none`), with the code and refresh grants.
 */
export async function registerClient(deps: Deps, metadata: unknown): Promise<OAuthResult<RegisteredClient>> {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return refuse("invalid_client_metadata", "The registration must be a JSON object");
  const given = metadata as Record<string, unknown>;
  const uris = given.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) return refuse("invalid_redirect_uri", "redirect_uris must be a non-empty array of URIs");
  if (uris.length > REGISTRATION_LIMITS.redirectUris) return refuse("invalid_redirect_uri", `At most ${REGISTRATION_LIMITS.redirectUris} redirect URIs may be registered`);
  for (const uri of uris) {
    if (typeof uri !== "string") return refuse("invalid_redirect_uri", "Every redirect URI must be a string");
    const kind = redirectUriKind(uri, parseUrl(uri));
    if (typeof kind === "object") return refuse("invalid_redirect_uri", `The ${kind.refused}`);
  }
  const grantTypes = given.grant_types ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grantTypes) || !grantTypes.includes("authorization_code") || grantTypes.some((type) => type !== "authorization_code" && type !== "refresh_token"))
    return refuse("invalid_client_metadata", "grant_types may only be authorization_code and refresh_token, and must include authorization_code");
  const responseTypes = given.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== "code") return refuse("invalid_client_metadata", 'response_types must be ["code"]');
  const rawName = given.client_name;
  if (rawName !== undefined && typeof rawName !== "string") return refuse("invalid_client_metadata", "client_name must be a string");
  const name = cleanText(rawName ?? "").slice(0, REGISTRATION_LIMITS.nameLength) || "Unnamed client";
  const rawScope = given.scope;
  if (rawScope !== undefined && typeof rawScope !== "string") return refuse("invalid_client_metadata", "scope must be a space-separated string");
  const { scopes } = parseScopes(rawScope);
  const at = nowIso(deps);
  const answer: RegisteredClient = {
    client_id: deps.ids.next(),
    client_id_issued_at: Math.floor(Date.parse(at) / 1000),
    client_name: name,
    redirect_uris: [...new Set(uris as string[])],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(scopes.length ? { scope: scopes.join(" ") } : {}),
  };
  await deps.records.oauth.insertClient({
    id: answer.client_id,
    client_name: name,
    redirect_uris: answer.redirect_uris,
    scope: answer.scope ?? null,
    metadata: answer,
    created_at: at,
  });
  return { ok: true, value: answer };
}

// ---- The authorization request ----

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  redirectKind: RedirectKind;
  /** Shown to the user: where the code goes. */
  redirectHost: string;
  state: string;
  codeChallenge: string;
  scopes: OAuthScope[];
  resource: string;
}

/**
 * Checked in two stages (RFC 6749 4.1.2.1): an unknown client or a redirect URI it did not
 * register is shown to the user and never redirected to (`page`); anything else wrong goes back
 * to the client's redirect URI as an error (`redirect`).
 */
export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; page: string }
  | { ok: false; redirect: { uri: string; state: string | null; error: string; description: string } };

export async function checkAuthorizationRequest(deps: Deps, settings: OAuthSettings, params: Record<string, string | undefined>): Promise<AuthorizationCheck> {
  const clientId = params.client_id;
  if (!clientId) return { ok: false, page: "The application did not say who it is (client_id is missing)." };
  const client = await deps.records.oauth.getClient(clientId);
  if (!client) return { ok: false, page: "This application is not registered here (unknown client_id). Ask it to connect again." };
  let redirectUri = params.redirect_uri;
  if (!redirectUri) {
    if (client.redirect_uris.length !== 1) return { ok: false, page: "The application did not say where to send you back (redirect_uri is missing)." };
    redirectUri = client.redirect_uris[0]!;
  }
  const parts = parseUrl(redirectUri);
  if (!redirectMatches(client.redirect_uris, redirectUri, parseUrl) || !parts)
    return { ok: false, page: "The address this application wants to send you back to is not one it registered, so the request was stopped." };
  const kind = redirectUriKind(redirectUri, parts);
  if (typeof kind === "object") return { ok: false, page: "The address this application wants to send you back to is not allowed." };
  const state = params.state ?? null;
  const back = (error: string, description: string): AuthorizationCheck => ({ ok: false, redirect: { uri: redirectUri, state, error, description } });
  if (params.response_type !== "code") return back("unsupported_response_type", "response_type must be code");
  if (!state) return back("invalid_request", "state is required");
  if (state.length > 1000) return back("invalid_request", "state is longer than 1000 characters");
  if (!params.code_challenge) return back("invalid_request", "code_challenge is required (PKCE with S256)");
  if (params.code_challenge_method !== "S256") return back("invalid_request", "code_challenge_method must be S256 (plain is not supported)");
  if (!isValidChallenge(params.code_challenge)) return back("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the verifier");
  const asked = parseScopes(params.scope ?? client.scope ?? OAUTH_SCOPES.join(" "));
  if (asked.unknown.length) return back("invalid_scope", `Unknown scope: ${asked.unknown[0]}; the scopes are ${OAUTH_SCOPES.join(", ")}`);
  if (!asked.scopes.length) return back("invalid_scope", `No scope requested; the scopes are ${OAUTH_SCOPES.join(", ")}`);
  const resource = params.resource ?? settings.mcpResource;
  if (!acceptedResources(settings).has(resource)) return back("invalid_target", `This server is the resource ${settings.mcpResource}; a token for ${resource} cannot be issued here`);
  return {
    ok: true,
    request: { client, redirectUri, redirectKind: kind, redirectHost: redirectHostOf(parts, kind), state, codeChallenge: params.code_challenge, scopes: asked.scopes, resource },
  };
}

// ---- Signing in on the consent page ----

/**
 * Signs a browser in with one of the user's API keys (not an OAuth token: a token must not mint
 * new grants) or a one-time sign-in link's secret. Answers the sign-in's own secret (for the
 * cookie) and the user.
 */
export async function signIn(deps: Deps, presented: string): Promise<Result<{ secret: string; user: User }>> {
  const given = presented.trim();
  // A pasted sign-in link is accepted as well as its secret.
  const linkSecret = given.match(new RegExp(`${LOGIN_LINK_PREFIX}[A-Za-z0-9_-]+`))?.[0];
  let userId: string | null = null;
  if (linkSecret) userId = await deps.records.oauth.consumeLoginLink(deps.keys.digest(linkSecret), nowIso(deps));
  else if (plausibleKey(given) && !given.startsWith(ACCESS_TOKEN_PREFIX) && !given.startsWith(REFRESH_TOKEN_PREFIX))
    userId = (await deps.records.apiKeys.findActiveByHash(deps.keys.digest(given)))?.userId ?? null;
  if (!userId) return fail("unauthorized", linkSecret ? "That sign-in link is unknown, used or expired" : "That API key is not valid");
  const user = await deps.records.users.get(userId);
  if (!user) return fail("unauthorized", "That API key is not valid");
  const secret = deps.keys.secret(SIGNIN_PREFIX);
  await deps.records.oauth.insertSignin({ id_hash: deps.keys.digest(secret), user_id: user.id, expires_at: after(deps, SIGNIN_TTL) });
  return ok({ secret, user });
}

/** The user a sign-in cookie stands for, while it lasts. */
export async function signedInUser(deps: Deps, secret: string | null): Promise<User | null> {
  if (!secret || !secret.startsWith(SIGNIN_PREFIX) || secret.length > 200) return null;
  const userId = await deps.records.oauth.signedInUser(deps.keys.digest(secret), nowIso(deps));
  return userId ? deps.records.users.get(userId) : null;
}

/** The user approved: a single-use code for exactly this client, redirect URI, challenge, scopes and resource. */
export async function approve(deps: Deps, request: AuthorizationRequest, user: User, scopes: OAuthScope[]): Promise<string> {
  const code = deps.keys.secret(CODE_PREFIX);
  await deps.records.oauth.insertCode({
    code_hash: deps.keys.digest(code),
    client_id: request.client.id,
    user_id: user.id,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    scopes,
    resource: request.resource,
    expires_at: after(deps, CODE_TTL),
  });
  return code;
}

// ---- The token endpoint ----

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

async function issueTokens(deps: Deps, tx: Repositories, grantId: string, scopes: OAuthScope[], at: string): Promise<TokenResponse> {
  const access = deps.keys.secret(ACCESS_TOKEN_PREFIX);
  const refresh = deps.keys.secret(REFRESH_TOKEN_PREFIX);
  await tx.oauth.insertToken({ token_hash: deps.keys.digest(access), grant_id: grantId, kind: "access", created_at: at, expires_at: after(deps, ACCESS_TOKEN_TTL) });
  await tx.oauth.insertToken({ token_hash: deps.keys.digest(refresh), grant_id: grantId, kind: "refresh", created_at: at, expires_at: after(deps, REFRESH_TOKEN_TTL) });
  return { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL, refresh_token: refresh, scope: scopes.join(" ") };
}

/**
 * A transaction answers a refusal as a value rather than a failed Result, so what it did before
 * refusing (revoking a grant on a replay) commits.
 */
type Settled = { tokens: TokenResponse } | { refusal: OAuthRefusal };
const settle = (settled: Settled): OAuthResult<TokenResponse> => ("tokens" in settled ? { ok: true, value: settled.tokens } : { ok: false, refusal: settled.refusal });
const invalidGrant = (description: string): Settled => ({ refusal: { error: "invalid_grant", description, status: 400 } });

export async function exchangeCode(deps: Deps, settings: OAuthSettings, params: Record<string, string | undefined>): Promise<OAuthResult<TokenResponse>> {
  const { code, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId, resource } = params;
  if (!code) return refuse("invalid_request", "code is required");
  if (!verifier) return refuse("invalid_request", "code_verifier is required (PKCE)");
  if (!clientId) return refuse("invalid_request", "client_id is required");
  if (resource !== undefined && !acceptedResources(settings).has(resource)) return refuse("invalid_target", `This server cannot issue a token for ${resource}`);
  const at = nowIso(deps);
  const settled = await deps.records.withTransaction(async (tx): Promise<Settled> => {
    const found = await tx.oauth.getCode(deps.keys.digest(code), { lock: true });
    if (!found) return invalidGrant("The authorization code is not valid");
    if (found.used_at) {
      // A code presented twice was intercepted or replayed: what it bought is revoked (RFC 6749 4.1.2).
      if (found.grant_id) await tx.oauth.revokeGrant(found.grant_id, at);
      return invalidGrant("The authorization code was already used; the tokens issued for it are revoked");
    }
    if (found.client_id !== clientId) return invalidGrant("The authorization code was issued to another client");
    if (isPast(deps, found.expires_at)) return invalidGrant("The authorization code has expired; start the authorization again");
    if (redirectUri !== found.redirect_uri) return invalidGrant("redirect_uri does not match the one the code was issued for");
    if (!isValidVerifier(verifier) || deps.keys.s256(verifier) !== found.code_challenge) return invalidGrant("code_verifier does not match the code_challenge");
    if (resource !== undefined && resource.replace(/\/$/, "") !== found.resource.replace(/\/$/, ""))
      return { refusal: { error: "invalid_target", description: `The code was issued for ${found.resource}, not ${resource}`, status: 400 } };
    const grantId = deps.ids.next();
    await tx.oauth.insertGrant({ id: grantId, user_id: found.user_id, client_id: found.client_id, scopes: found.scopes, resource: found.resource, created_at: at });
    await tx.oauth.markCodeUsed(found.code_hash, at, grantId);
    return { tokens: await issueTokens(deps, tx, grantId, found.scopes, at) };
  });
  return settle(settled);
}

export async function refreshTokens(deps: Deps, settings: OAuthSettings, params: Record<string, string | undefined>): Promise<OAuthResult<TokenResponse>> {
  const { refresh_token: presented, client_id: clientId, resource } = params;
  if (!presented) return refuse("invalid_request", "refresh_token is required");
  if (resource !== undefined && !acceptedResources(settings).has(resource)) return refuse("invalid_target", `This server cannot issue a token for ${resource}`);
  const asked = params.scope === undefined ? null : parseScopes(params.scope);
  if (asked?.unknown.length) return refuse("invalid_scope", `Unknown scope: ${asked.unknown[0]}`);
  const at = nowIso(deps);
  const settled = await deps.records.withTransaction(async (tx): Promise<Settled> => {
    const token = await tx.oauth.getToken(deps.keys.digest(presented), { lock: true });
    if (!token || token.kind !== "refresh") return invalidGrant("The refresh token is not valid");
    const grant = await tx.oauth.getGrant(token.grant_id, { lock: true });
    if (!grant || grant.revoked_at) return invalidGrant("The grant behind this refresh token was revoked; authorize again");
    if (clientId !== undefined && clientId !== grant.client_id) return invalidGrant("The refresh token was issued to another client");
    if (token.used_at) {
      // Rotation: a refresh token works once. Seeing it again means two holders, one of them not
      // the client: the whole grant goes (OAuth 2.1 4.3.1).
      await tx.oauth.revokeGrant(grant.id, at);
      return invalidGrant("The refresh token was already used; the grant is revoked, authorize again");
    }
    if (token.revoked_at || isPast(deps, token.expires_at)) return invalidGrant("The refresh token has expired or was revoked; authorize again");
    if (asked && asked.scopes.some((scope) => !grant.scopes.includes(scope)))
      return { refusal: { error: "invalid_scope", description: `The grant does not include ${asked.scopes.find((scope) => !grant.scopes.includes(scope))}`, status: 400 } };
    await tx.oauth.markTokenUsed(token.token_hash, at);
    return { tokens: await issueTokens(deps, tx, grant.id, grant.scopes, at) };
  });
  return settle(settled);
}

/**
 * RFC 7009: always answered 200. A refresh token takes its grant with it (every token of it);
 * an access token goes alone. A token of another client is left alone.
 */
export async function revokeToken(deps: Deps, params: Record<string, string | undefined>): Promise<void> {
  const presented = params.token;
  if (!presented || presented.length > 200) return;
  const at = nowIso(deps);
  await deps.records.withTransaction(async (tx) => {
    const token = await tx.oauth.getToken(deps.keys.digest(presented), { lock: true });
    if (!token) return;
    const grant = await tx.oauth.getGrant(token.grant_id);
    if (!grant || (params.client_id !== undefined && params.client_id !== grant.client_id)) return;
    if (token.kind === "refresh") await tx.oauth.revokeGrant(grant.id, at);
    else await tx.oauth.revokeToken(token.token_hash, at);
  });
}

// ---- Grants: the user's list of connected applications ----

export interface GrantView {
  id: string;
  client_id: string;
  client_name: string;
  scopes: OAuthScope[];
  resource: string;
  created_at: string;
  revoked_at: string | null;
}

const grantView = ({ id, client_id, client_name, scopes, resource, created_at, revoked_at }: OAuthGrant): GrantView => ({ id, client_id, client_name, scopes, resource, created_at, revoked_at });

/** Grants are managed with an API key: an application must not see or revoke the others. */
const refuseAgents = (caller: Caller): Result<true> =>
  caller.profile === "agent" ? fail("forbidden", "Grants are managed with an API key, not an OAuth token") : ok(true);

export async function listGrants(deps: Deps, caller: Caller, userId = caller.userId): Promise<Result<GrantView[]>> {
  const allowed = userId === caller.userId ? refuseAgents(caller) : requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (userId !== caller.userId && !(await deps.records.users.get(userId))) return fail("not_found", "User not found");
  return ok((await deps.records.oauth.listGrants(userId)).map(grantView));
}

/** Revokes a grant: every token of it stops working on the next request, on every instance. */
export async function revokeGrant(deps: Deps, caller: Caller, grantId: string, options: { firstParty?: boolean } = {}): Promise<Result<null>> {
  const allowed = options.firstParty ? requireFirstParty(caller) : refuseAgents(caller);
  if (!allowed.ok) return allowed;
  const grant = await deps.records.oauth.getGrant(grantId);
  // Someone else's grant is "not found", as if it did not exist.
  if (!grant || grant.revoked_at || (!options.firstParty && grant.user_id !== caller.userId)) return fail("not_found", "Grant not found");
  await deps.records.oauth.revokeGrant(grantId, nowIso(deps));
  return ok(null);
}

/** A one-time link that signs a browser in on the consent page (the operator CLI hands it out). */
export async function issueLoginLink(deps: Deps, caller: Caller, settings: OAuthSettings, userId: string): Promise<Result<{ url: string; expires_at: string }>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!(await deps.records.users.get(userId))) return fail("not_found", "User not found");
  const secret = deps.keys.secret(LOGIN_LINK_PREFIX);
  const expires_at = after(deps, LOGIN_LINK_TTL);
  await deps.records.oauth.insertLoginLink({ id_hash: deps.keys.digest(secret), user_id: userId, expires_at });
  return ok({ url: `${settings.issuer}/oauth/signin?code=${secret}`, expires_at });
}
