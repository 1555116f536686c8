// The whole OAuth flow driven by a client nobody here wrote: the MCP SDK's own client-side OAuth
// (auth() and an OAuthClientProvider) with StreamableHTTPClientTransport, against a real server:
// discovery from the 401, registration, PKCE, consent, token exchange, tool calls, refresh, revoke.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { User } from "../support/backends.ts";
import { newUser } from "../support/client.ts";
import { driveConsent } from "../support/oauth.ts";
import { startServer, type TestServer } from "../support/server.ts";

/** A provider as an application keeps one: in memory, the consent page driven with the user's key. */
class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  code: string | null = null;
  visits: string[] = [];
  /** What the user allows on the consent page (all offered when null). */
  constructor(
    private readonly key: string,
    private readonly allow: string[] | null = null,
  ) {}
  get redirectUrl() {
    return "http://127.0.0.1:53682/callback";
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "SDK Test Client", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return crypto.randomUUID();
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.visits.push(url.toString());
    const outcome = await driveConsent(url.toString(), this.key, this.allow ? { scopes: this.allow } : {});
    if (!outcome.location) throw new Error(`consent ended with ${outcome.status}: ${outcome.html.slice(0, 3000)}`);
    const back = new URL(outcome.location);
    if (back.searchParams.get("state") !== url.searchParams.get("state")) throw new Error("state was not echoed");
    this.code = back.searchParams.get("code");
  }
}

/** Connects as an application does: the first attempt sends the user to consent, then the code is exchanged. */
async function connectWithOAuth(server: TestServer, provider: TestProvider): Promise<Client> {
  const endpoint = new URL(`${server.url}/mcp`);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await expect(new Client({ name: "sdk-oauth", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.code).toMatch(/^cmsac_/);
  await first.finishAuth(provider.code!);
  const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  return client;
}

const textOf = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text);

describe("the MCP SDK's OAuth client against a running server", () => {
  let server: TestServer;
  let gm: User;
  let campaignId: string;

  beforeAll(async () => {
    server = await startServer();
    gm = await newUser(server.url, server.adminKey, "Matt");
    campaignId = (await gm.api.post("/v1/campaigns", { title: "Exandria" })).body.id;
  });
  afterAll(() => server?.stop());

  test("discovery, registration, PKCE, consent, tokens, a read and a write tool, refresh, replay, revoke", async () => {
    const provider = new TestProvider(gm.key);
    const client = await connectWithOAuth(server, provider);

    // What the SDK found and did on the way.
    expect(provider.client?.client_id).toBeString();
    const visit = new URL(provider.visits[0]!);
    expect(visit.origin + visit.pathname).toBe(`${server.url}/oauth/authorize`);
    expect(visit.searchParams.get("code_challenge_method")).toBe("S256");
    expect(visit.searchParams.get("resource")).toBe(`${server.url}/mcp`);
    expect(visit.searchParams.get("scope")).toBe("profile worlds_read sessions_read characters_read agent_write");
    expect(provider.saved?.access_token).toMatch(/^cmsat_/);
    expect(provider.saved?.refresh_token).toMatch(/^cmsrt_/);
    expect(provider.saved?.scope).toBe("profile worlds_read sessions_read characters_read agent_write");
    expect(provider.saved?.expires_in).toBe(3600);

    const listed = textOf(await client.callTool({ name: "list_campaigns", arguments: {} }));
    expect(listed.data.map((c: { title: string }) => c.title)).toEqual(["Exandria"]);
    const created = textOf(await client.callTool({ name: "create_character", arguments: { campaign_id: campaignId, character_name: "Vex'ahlia" } }));
    expect(created.character_name).toBe("Vex'ahlia");

    // The token works on REST too, as an agent.
    const me = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: gm.id, api_profile: "agent", scopes: ["profile", "worlds_read", "sessions_read", "characters_read", "agent_write"] });

    // Refresh through the SDK: new tokens, the old refresh token spent.
    const before = provider.saved!;
    expect(await auth(provider, { serverUrl: `${server.url}/mcp` })).toBe("AUTHORIZED");
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect(textOf(await client.callTool({ name: "get_campaign", arguments: { campaign_id: campaignId } })).title).toBe("Exandria");

    // Revoking the refresh token (RFC 7009) ends the grant: the access token is refused at once.
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: provider.saved!.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const refused = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="The access token or API key is not valid"`,
    );
    expect(await refused.json()).toEqual({ detail: "Invalid API key" });
    await client.close();
  }, 60_000);

  test("a read-only grant reads, and a write tool is refused with 403 insufficient_scope naming agent_write", async () => {
    const provider = new TestProvider(gm.key, ["worlds_read", "characters_read"]);
    const client = await connectWithOAuth(server, provider);
    expect(provider.saved?.scope).toBe("worlds_read characters_read");
    expect(textOf(await client.callTool({ name: "list_characters", arguments: { campaign_id: campaignId } })).data[0].character_name).toBe("Vex'ahlia");

    const write = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "create_character", arguments: { campaign_id: campaignId, character_name: "Grog" } } }),
    });
    expect(write.status).toBe(403);
    expect(write.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="worlds_read characters_read agent_write", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", error_description="Insufficient scope: the tool create_character needs the agent_write scope, which this token was not granted"`,
    );
    expect(await write.json()).toEqual({ detail: "Insufficient scope: the tool create_character needs the agent_write scope, which this token was not granted" });
    // Nothing was written.
    expect((await gm.api.get(`/v1/characters?campaign_id=${campaignId}`)).body.data.map((c: { character_name: string }) => c.character_name)).toEqual(["Vex'ahlia"]);

    // The SDK client meets the same refusal, tries to step up (its auth() refreshes the grant it
    // has), meets it again and gives up with the 403, writing nothing.
    await expect(client.callTool({ name: "create_character", arguments: { campaign_id: campaignId, character_name: "Grog" } })).rejects.toThrow("Server returned 403 after trying upscoping");
    expect((await gm.api.get(`/v1/characters?campaign_id=${campaignId}`)).body.total).toBe(1);
    await client.close();
  }, 60_000);
});
