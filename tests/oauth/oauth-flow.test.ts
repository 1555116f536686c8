// OAuth endpoints black-box through the HTTP app, on every record backend: discovery documents,
// registration rules, the authorization request's refusals, the token endpoint's refusals (wrong
// verifier, reused code, expired code, replayed refresh token…), CSRF, scopes on REST.
import { describe, expect, test } from "bun:test";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { driveConsent, formOf, Jar, pkcePair } from "../support/oauth.ts";

const BASE = "http://localhost:8000";
const REDIRECT = "http://127.0.0.1:41999/callback";

await forEachBackend("OAuth endpoints", (backend) => {
  let service: InProcessService;
  let userKey: string;
  let userId: string;
  let campaignId: string;
  let clientId: string;
  /** Minutes the service's clock runs ahead (expiry tests move it). */
  let ahead = 0;

  const fetcher = (url: string, init?: RequestInit) => service.app.handle(new Request(url, init));
  const call = (method: string, path: string, init: { body?: string | URLSearchParams; headers?: Record<string, string> } = {}) =>
    service.app.handle(new Request(`${BASE}${path}`, { method, headers: init.headers, body: init.body }));
  const form = (path: string, fields: Record<string, string>) =>
    call("POST", path, { body: new URLSearchParams(fields), headers: { "content-type": "application/x-www-form-urlencoded" } });
  const json = async (response: Response) => ({ status: response.status, body: await response.json() });

  const authorizeUrl = (params: Record<string, string | undefined>) => {
    const url = new URL(`${BASE}/oauth/authorize`);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    return url.toString();
  };

  /** A code through the consent page, with the verifier that goes with it. */
  const codeFor = async (scopes?: string[], redirect = REDIRECT) => {
    const pkce = pkcePair();
    const outcome = await driveConsent(
      authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: redirect, state: "s-1", code_challenge: pkce.challenge, code_challenge_method: "S256", scope: "profile worlds_read sessions_read characters_read agent_write", resource: `${BASE}/mcp` }),
      userKey,
      { fetch: fetcher, scopes },
    );
    const back = new URL(outcome.location!);
    expect(back.searchParams.get("state")).toBe("s-1");
    expect(back.searchParams.get("iss")).toBe(BASE);
    return { code: back.searchParams.get("code")!, verifier: pkce.verifier, redirect };
  };
  const exchange = (code: string, verifier: string, redirect = REDIRECT, extra: Record<string, string> = {}) =>
    form("/oauth/token", { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirect, client_id: clientId, ...extra });
  const tokensFor = async (scopes?: string[]) => {
    const { code, verifier } = await codeFor(scopes);
    const answer = await json(await exchange(code, verifier));
    expect(answer.status).toBe(200);
    return answer.body as { access_token: string; refresh_token: string; scope: string };
  };
  const me = (token: string) => call("GET", "/v1/users/me", { headers: { authorization: `Bearer ${token}` } });

  inProcessOn(backend, async (made) => {
    service = made;
    const realClock = service.deps.clock;
    service.deps.clock = { now: () => new Date(realClock.now().getTime() + ahead * 60_000) };
    const admin = (method: string, path: string, body?: unknown) => json(call(method, path, { body: JSON.stringify(body ?? {}), headers: { "x-api-key": service.adminKey, "content-type": "application/json" } }) as never);
    const user = await json(await call("POST", "/internal/v1/users", { body: JSON.stringify({ name: "Keyleth", email: `keyleth.${crypto.randomUUID()}@example.test` }), headers: { "x-api-key": service.adminKey } }));
    userId = user.body.id;
    userKey = (await json(await call("POST", `/internal/v1/users/${userId}/keys`, { body: "{}", headers: { "x-api-key": service.adminKey } }))).body.key;
    campaignId = (await json(await call("POST", "/v1/campaigns", { body: JSON.stringify({ title: "Tal'Dorei" }), headers: { "x-api-key": userKey } }))).body.id;
    void admin;
    const registered = await json(await call("POST", "/oauth/register", { body: JSON.stringify({ client_name: "Flow Test", redirect_uris: ["http://127.0.0.1/callback"] }), headers: { "content-type": "application/json" } }));
    clientId = registered.body.client_id;
  });

  describe("discovery", () => {
    test("protected-resource metadata (RFC 9728), root and /mcp suffix, and authorization-server metadata (RFC 8414)", async () => {
      const common = { authorization_servers: [BASE], scopes_supported: ["profile", "worlds_read", "sessions_read", "characters_read", "agent_write"], bearer_methods_supported: ["header"], resource_name: "Campaign Memory Service", resource_documentation: `${BASE}/docs` };
      expect(await json(await call("GET", "/.well-known/oauth-protected-resource"))).toEqual({ status: 200, body: { resource: BASE, ...common } });
      expect(await json(await call("GET", "/.well-known/oauth-protected-resource/mcp"))).toEqual({ status: 200, body: { resource: `${BASE}/mcp`, ...common } });
      expect(await json(await call("GET", "/.well-known/oauth-authorization-server"))).toEqual({
        status: 200,
        body: {
          issuer: BASE,
          authorization_endpoint: `${BASE}/oauth/authorize`,
          token_endpoint: `${BASE}/oauth/token`,
          registration_endpoint: `${BASE}/oauth/register`,
          revocation_endpoint: `${BASE}/oauth/revoke`,
          scopes_supported: ["profile", "worlds_read", "sessions_read", "characters_read", "agent_write"],
          response_types_supported: ["code"],
          response_modes_supported: ["query"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          token_endpoint_auth_methods_supported: ["none"],
          revocation_endpoint_auth_methods_supported: ["none"],
          code_challenge_methods_supported: ["S256"],
          authorization_response_iss_parameter_supported: true,
          service_documentation: `${BASE}/docs`,
        },
      });
    });

    test("/mcp without a credential: 401 naming the metadata; with a wrong one: invalid_token too", async () => {
      const bare = await call("POST", "/mcp", { body: "{}", headers: { "content-type": "application/json" } });
      expect(bare.status).toBe(401);
      expect(bare.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`);
      expect(await bare.json()).toEqual({ detail: "Invalid API key" });
      const wrong = await call("POST", "/mcp", { body: "{}", headers: { "content-type": "application/json", authorization: "Bearer cmsat_forgedforgedforgedforgedforgedforged" } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="The access token or API key is not valid"`);
    });

    test("preflights on /oauth and /.well-known are answered without auth", async () => {
      const preflight = await call("OPTIONS", "/oauth/token", { headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
      expect(preflight.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
      const wellKnown = await call("GET", "/.well-known/oauth-authorization-server", { headers: { origin: "https://app.example" } });
      expect(wellKnown.headers.get("access-control-allow-origin")).toBe("*");
    });
  });

  describe("registration (RFC 7591)", () => {
    const register = async (body: unknown) => json(await call("POST", "/oauth/register", { body: JSON.stringify(body), headers: { "content-type": "application/json" } }));

    test("a public client with a loopback redirect is registered; what it cannot have is replaced", async () => {
      const answer = await register({ client_name: "Claude\u0000 Desktop", redirect_uris: ["http://localhost:6274/cb", "https://claude.ai/api/mcp/auth_callback"], token_endpoint_auth_method: "client_secret_post", scope: "worlds_read bogus" });
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        client_id: expect.any(String),
        client_id_issued_at: expect.any(Number),
        client_name: "Claude Desktop",
        redirect_uris: ["http://localhost:6274/cb", "https://claude.ai/api/mcp/auth_callback"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope: "worlds_read",
      });
    });

    test.each([
      [{ redirect_uris: ["http://evil.example/cb"] }, "The redirect URI \"http://evil.example/cb\" must use https (plain http is allowed only for localhost, 127.0.0.1 or [::1])"],
      [{ redirect_uris: ["https://app.example/cb#frag"] }, "The redirect URI \"https://app.example/cb#frag\" must not have a fragment"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "The redirect URI \"javascript:alert(1)\" uses a scheme that cannot receive a code"],
      [{ redirect_uris: [] }, "redirect_uris must be a non-empty array of URIs"],
      [{}, "redirect_uris must be a non-empty array of URIs"],
    ])("refused: %j", async (body, description) => {
      expect(await register(body)).toEqual({ status: 400, body: { error: "invalid_redirect_uri", error_description: description, detail: description } });
    });

    test("a registration over 16 KiB is refused before it is read; bad JSON and wrong grants are refused by name", async () => {
      const big = await call("POST", "/oauth/register", { body: JSON.stringify({ redirect_uris: ["https://a.example/cb"], client_name: "x".repeat(20_000) }), headers: { "content-type": "application/json" } });
      expect(big.status).toBe(413);
      expect((await big.json()).detail).toStartWith("Request body too large: this route accepts at most 16,384 bytes");
      expect((await json(await call("POST", "/oauth/register", { body: "{nope" }))).body.error).toBe("invalid_client_metadata");
      expect(await register({ redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] })).toEqual({
        status: 400,
        body: { error: "invalid_client_metadata", error_description: "grant_types may only be authorization_code and refresh_token, and must include authorization_code", detail: "grant_types may only be authorization_code and refresh_token, and must include authorization_code" },
      });
    });
  });

  describe("the authorization request", () => {
    const base = () => ({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "xyz", code_challenge: pkcePair().challenge, code_challenge_method: "S256", resource: `${BASE}/mcp` });
    const errorBack = async (params: Record<string, string | undefined>) => {
      const answer = await call("GET", new URL(authorizeUrl(params)).pathname + new URL(authorizeUrl(params)).search);
      expect(answer.status).toBe(303);
      const back = new URL(answer.headers.get("location")!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      return Object.fromEntries(back.searchParams);
    };

    test("a valid request shows the consent page: client name, redirect host, scopes in words, CSP, no framing", async () => {
      const page = await call("GET", new URL(authorizeUrl({ ...base(), scope: "worlds_read agent_write" })).pathname + new URL(authorizeUrl({ ...base(), scope: "worlds_read agent_write" })).search);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9_-]{43}'; form-action 'self' http:\/\/127\.0\.0\.1:41999; frame-ancestors 'none'; base-uri 'none'$/);
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      const html = await page.text();
      expect(html).toContain("<h1>Allow Flow Test to use your Campaign Memory?</h1>");
      expect(html).toContain("a program on your own computer (127.0.0.1:41999)");
      expect(html).toContain("<li>Read your campaigns and what is in them (factions, locations, items, quests, journals, links)</li>");
      expect(html).toContain("<li>Create, change and delete things in your campaigns</li>");
      expect(html).not.toContain("Read your characters");
      expect(html).not.toContain("<script");
      expect(page.headers.getSetCookie()[0]).toMatch(/^cms_oauth_csrf=[A-Za-z0-9_-]{43}; Path=\/oauth; HttpOnly; SameSite=Strict; Max-Age=3600$/);
    });

    test("an unknown client or an unregistered redirect URI is shown as an error page, never redirected to", async () => {
      for (const params of [{ ...base(), client_id: "nobody" }, { ...base(), redirect_uri: "https://evil.example/cb" }, { ...base(), redirect_uri: "http://127.0.0.1:41999/other" }]) {
        const page = await call("GET", new URL(authorizeUrl(params)).pathname + new URL(authorizeUrl(params)).search);
        expect(page.status).toBe(400);
        expect(page.headers.get("location")).toBeNull();
        expect(await page.text()).toContain("<h1>This request was stopped</h1>");
      }
    });

    test("plain PKCE, no PKCE, missing state, an unknown scope and another resource go back as errors", async () => {
      expect(await errorBack({ ...base(), code_challenge_method: "plain" })).toEqual({ error: "invalid_request", error_description: "code_challenge_method must be S256 (plain is not supported)", state: "xyz", iss: BASE });
      expect(await errorBack({ ...base(), code_challenge: undefined, code_challenge_method: undefined })).toEqual({ error: "invalid_request", error_description: "code_challenge is required (PKCE with S256)", state: "xyz", iss: BASE });
      expect(await errorBack({ ...base(), state: undefined })).toEqual({ error: "invalid_request", error_description: "state is required", iss: BASE });
      expect(await errorBack({ ...base(), scope: "worlds_read admin" })).toEqual({ error: "invalid_scope", error_description: "Unknown scope: admin; the scopes are profile, worlds_read, sessions_read, characters_read, agent_write", state: "xyz", iss: BASE });
      expect(await errorBack({ ...base(), resource: "https://other.example/mcp" })).toEqual({ error: "invalid_target", error_description: `This server is the resource ${BASE}/mcp; a token for https://other.example/mcp cannot be issued here`, state: "xyz", iss: BASE });
      expect(await errorBack({ ...base(), response_type: "token" })).toEqual({ error: "unsupported_response_type", error_description: "response_type must be code", state: "xyz", iss: BASE });
    });

    test("denying sends access_denied back with the state", async () => {
      const outcome = await driveConsent(authorizeUrl(base()), userKey, { fetch: fetcher, answer: "deny" });
      expect(outcome.status).toBe(303);
      expect(Object.fromEntries(new URL(outcome.location!).searchParams)).toEqual({ error: "access_denied", error_description: "The user denied the request", state: "xyz", iss: BASE });
    });

    test("a wrong key is refused on the page; a forged or missing CSRF token stops the form", async () => {
      const jar = new Jar();
      const opened = await fetcher(authorizeUrl(base()), { headers: { cookie: jar.header } });
      jar.take(opened);
      const { fields } = formOf(await opened.text());
      const post = (extra: Record<string, string>, cookie = jar.header, origin = BASE) =>
        fetcher(`${BASE}/oauth/authorize`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin }, body: new URLSearchParams({ ...fields, ...extra }) });
      const wrongKey = await post({ action: "signin", api_key: "cms_notakeynotakeynotakeynotakey" });
      expect(wrongKey.status).toBe(401);
      expect(await wrongKey.text()).toContain('<p class="notice" role="alert">That API key is not valid. Check it and try again.</p>');
      const forged = await post({ action: "signin", api_key: userKey, csrf: "A".repeat(43) });
      expect(forged.status).toBe(403);
      expect(await forged.text()).toContain("This form did not come from this page, or it has expired.");
      const noCookie = await post({ action: "signin", api_key: userKey }, "");
      expect(noCookie.status).toBe(403);
      const crossSite = await post({ action: "signin", api_key: userKey }, jar.header, "https://evil.example");
      expect(crossSite.status).toBe(403);
      // Approving without signing in first shows the sign-in form again, and issues nothing.
      const unsigned = await post({ action: "approve", grant_scope: "worlds_read" });
      expect(unsigned.status).toBe(401);
      expect(await unsigned.text()).toContain("Your sign-in has expired. Sign in again.");
    });
  });

  describe("the token endpoint", () => {
    const oauthError = (error: string, description: string) => ({ status: 400, body: { error, error_description: description, detail: description } });

    test("code + verifier gives tokens; they act as the user (agent profile) on REST", async () => {
      const tokens = await tokensFor(["worlds_read", "agent_write"]);
      expect(tokens).toEqual({ access_token: expect.stringMatching(/^cmsat_/), token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^cmsrt_/), scope: "worlds_read agent_write" } as never);
      const campaign = await json(await call("GET", `/v1/campaigns/${campaignId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } }));
      expect(campaign).toMatchObject({ status: 200, body: { id: campaignId, title: "Tal'Dorei" } });
    });

    test("a loopback redirect on another port is the same redirect (RFC 8252)", async () => {
      const { code, verifier } = await codeFor(undefined, "http://127.0.0.1:50123/callback");
      expect((await exchange(code, verifier, "http://127.0.0.1:50123/callback")).status).toBe(200);
    });

    test("a wrong verifier, a mismatched redirect URI and another resource are refused; the code still works after", async () => {
      const { code, verifier } = await codeFor();
      expect(await json(await exchange(code, pkcePair().verifier))).toEqual(oauthError("invalid_grant", "code_verifier does not match the code_challenge"));
      expect(await json(await exchange(code, verifier, "http://127.0.0.1:41999/elsewhere"))).toEqual(oauthError("invalid_grant", "redirect_uri does not match the one the code was issued for"));
      expect(await json(await exchange(code, verifier, REDIRECT, { resource: "https://other.example/mcp" }))).toEqual(oauthError("invalid_target", "This server cannot issue a token for https://other.example/mcp"));
      expect(await json(await exchange(code, verifier, REDIRECT, { client_id: "someone-else" }))).toEqual(oauthError("invalid_grant", "The authorization code was issued to another client"));
      expect((await exchange(code, verifier)).status).toBe(200);
    });

    test("a code used twice is refused and revokes the tokens it bought", async () => {
      const { code, verifier } = await codeFor();
      const first = await json(await exchange(code, verifier));
      expect((await me(first.body.access_token)).status).toBe(200);
      expect(await json(await exchange(code, verifier))).toEqual(oauthError("invalid_grant", "The authorization code was already used; the tokens issued for it are revoked"));
      expect(await json(await me(first.body.access_token))).toEqual({ status: 401, body: { detail: "Invalid API key" } });
      expect(await json(await form("/oauth/token", { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: clientId }))).toEqual(
        oauthError("invalid_grant", "The grant behind this refresh token was revoked; authorize again"),
      );
    });

    test("an expired code is refused", async () => {
      const { code, verifier } = await codeFor();
      ahead = 2;
      try {
        expect(await json(await exchange(code, verifier))).toEqual(oauthError("invalid_grant", "The authorization code has expired; start the authorization again"));
      } finally {
        ahead = 0;
      }
    });

    test("refresh rotates; a replayed refresh token revokes the grant", async () => {
      const first = await tokensFor(["profile", "worlds_read"]);
      const second = await json(await form("/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: clientId }));
      expect(second.status).toBe(200);
      expect(second.body.scope).toBe("profile worlds_read");
      expect((await me(second.body.access_token)).status).toBe(200);
      expect(await json(await form("/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: clientId }))).toEqual(
        oauthError("invalid_grant", "The refresh token was already used; the grant is revoked, authorize again"),
      );
      expect(await json(await me(second.body.access_token))).toEqual({ status: 401, body: { detail: "Invalid API key" } });
      expect(await json(await form("/oauth/token", { grant_type: "refresh_token", refresh_token: second.body.refresh_token, client_id: clientId }))).toEqual(
        oauthError("invalid_grant", "The grant behind this refresh token was revoked; authorize again"),
      );
    });

    test("an expired access token is refused", async () => {
      const tokens = await tokensFor(["profile"]);
      ahead = 61;
      try {
        expect(await json(await me(tokens.access_token))).toEqual({ status: 401, body: { detail: "Invalid API key" } });
      } finally {
        ahead = 0;
      }
      expect((await me(tokens.access_token)).status).toBe(200);
    });

    test("unknown grant types and missing fields are refused by name", async () => {
      expect(await json(await form("/oauth/token", { grant_type: "password" }))).toEqual(oauthError("unsupported_grant_type", "grant_type password is not supported (authorization_code, refresh_token)"));
      expect(await json(await form("/oauth/token", { grant_type: "authorization_code", code: "x", client_id: clientId, redirect_uri: REDIRECT }))).toEqual(oauthError("invalid_request", "code_verifier is required (PKCE)"));
      expect(await json(await form("/oauth/token", {}))).toEqual(oauthError("invalid_request", "grant_type is required"));
    });

    test("revoking an access token ends it alone; revoking the refresh token ends the grant", async () => {
      const tokens = await tokensFor(["profile"]);
      const revoked = await form("/oauth/revoke", { token: tokens.access_token, client_id: clientId });
      expect(revoked.status).toBe(200);
      expect((await me(tokens.access_token)).status).toBe(401);
      const refreshed = await json(await form("/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId }));
      expect(refreshed.status).toBe(200);
      expect((await form("/oauth/revoke", { token: refreshed.body.refresh_token })).status).toBe(200);
      expect((await me(refreshed.body.access_token)).status).toBe(401);
      // Unknown tokens are "revoked" too (RFC 7009 2.2).
      expect((await form("/oauth/revoke", { token: "cmsat_unknown" })).status).toBe(200);
    });
  });

  describe("scopes on REST", () => {
    test("a read-scoped token reads, and a write is refused naming agent_write; API keys keep full access", async () => {
      const tokens = await tokensFor(["worlds_read", "characters_read"]);
      const headers = { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" };
      expect((await call("GET", `/v1/characters?campaign_id=${campaignId}`, { headers })).status).toBe(200);
      const write = await call("POST", "/v1/characters", { headers, body: JSON.stringify({ campaign_id: campaignId, character_name: "Percy" }) });
      expect(write.status).toBe(403);
      expect(write.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="agent_write"');
      expect(await write.json()).toEqual({ detail: "Insufficient scope: this operation needs the agent_write scope, which this token was not granted" });
      expect(await json(await me(tokens.access_token))).toEqual({ status: 403, body: { detail: "Insufficient scope: this operation needs the profile scope, which this token was not granted" } });
      const sessions = await call("GET", `/v1/sessions?campaign_id=${campaignId}`, { headers });
      expect(await sessions.json()).toEqual({ detail: "Insufficient scope: this operation needs the sessions_read scope, which this token was not granted" });
      // Nothing was written; the user's key still writes.
      const listed = await json(await call("GET", `/v1/characters?campaign_id=${campaignId}`, { headers }));
      expect(listed.body.total).toBe(0);
      expect((await call("POST", "/v1/characters", { headers: { "x-api-key": userKey }, body: JSON.stringify({ campaign_id: campaignId, character_name: "Percy" }) })).status).toBe(201);
      // A token never reaches first-party routes.
      expect(await json(await call("GET", `/internal/v1/users/${userId}/keys`, { headers }))).toEqual({ status: 403, body: { detail: "This route needs a first-party key with the product_write scope" } });
    });
  });

  describe("grants", () => {
    test("the user lists and revokes grants with a key; the tokens stop at once; tokens cannot manage grants", async () => {
      const tokens = await tokensFor(["profile"]);
      const key = { "x-api-key": userKey };
      const listed = await json(await call("GET", "/v1/users/me/grants", { headers: key }));
      expect(listed.status).toBe(200);
      const grant = listed.body.data[0];
      expect(grant).toEqual({ id: expect.any(String), client_id: clientId, client_name: "Flow Test", scopes: ["profile"], resource: `${BASE}/mcp`, created_at: expect.any(String), revoked_at: null });
      expect(await json(await call("GET", "/v1/users/me/grants", { headers: { authorization: `Bearer ${tokens.access_token}` } }))).toEqual({ status: 403, body: { detail: "Grants are managed with an API key, not an OAuth token" } });
      // Another user's key does not see or reach it.
      const other = await json(await call("POST", "/internal/v1/users", { body: JSON.stringify({ name: "Pike", email: `pike.${crypto.randomUUID()}@example.test` }), headers: { "x-api-key": service.adminKey } }));
      const otherKey = (await json(await call("POST", `/internal/v1/users/${other.body.id}/keys`, { body: "{}", headers: { "x-api-key": service.adminKey } }))).body.key;
      expect(await json(await call("DELETE", `/v1/users/me/grants/${grant.id}`, { headers: { "x-api-key": otherKey } }))).toEqual({ status: 404, body: { detail: "Grant not found" } });
      expect((await me(tokens.access_token)).status).toBe(200);

      expect((await call("DELETE", `/v1/users/me/grants/${grant.id}`, { headers: key })).status).toBe(204);
      expect(await json(await me(tokens.access_token))).toEqual({ status: 401, body: { detail: "Invalid API key" } });
      expect(await json(await call("DELETE", `/v1/users/me/grants/${grant.id}`, { headers: key }))).toEqual({ status: 404, body: { detail: "Grant not found" } });
      const after = await json(await call("GET", `/internal/v1/users/${userId}/grants`, { headers: { "x-api-key": service.adminKey } }));
      expect(after.body.data.find((g: { id: string }) => g.id === grant.id).revoked_at).toEqual(expect.any(String));
    });

    test("a one-time sign-in link signs a browser in on the consent page, once", async () => {
      const link = await json(await call("POST", `/internal/v1/users/${userId}/login-links`, { headers: { "x-api-key": service.adminKey } }));
      expect(link.status).toBe(201);
      expect(link.body.url).toMatch(/^http:\/\/localhost:8000\/oauth\/signin\?code=cmsli_[A-Za-z0-9_-]{43}$/);
      const jar = new Jar();
      const opened = await fetcher(link.body.url);
      jar.take(opened);
      const { fields } = formOf(await opened.text());
      const signIn = () => fetcher(`${BASE}/oauth/signin`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header, origin: BASE }, body: new URLSearchParams(fields) });
      const signed = await signIn();
      expect(signed.status).toBe(200);
      jar.take(signed);
      expect(await signed.text()).toContain("You are signed in as Keyleth.");
      // The consent page now offers Allow at once.
      const page = await fetcher(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "l", code_challenge: pkcePair().challenge, code_challenge_method: "S256" }), { headers: { cookie: jar.header } });
      expect(await page.text()).toContain("Signed in as <strong>Keyleth</strong>");
      const again = await signIn();
      expect(again.status).toBe(401);
      expect(await again.text()).toContain("That sign-in link is unknown, used or expired. Ask for a new link.");
    });
  });
});
