// Rate limits (DESIGN 9) on real server processes: a burst from one key gets 429 with Retry-After
// and RateLimit-* while another key is unaffected, the refused request is not executed, the OAuth
// endpoints are limited per client address, and two instances on one database share the buckets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { announceSkip } from "../support/backends.ts";
import { client, newUser } from "../support/client.ts";
import { postgresUnavailableReason, scratchDatabase, type ScratchDatabase } from "../support/postgres.ts";
import { randomAdminKey, startServer, type TestServer } from "../support/server.ts";

// 5 at once, then one every 10 s: small enough to reach in a test, slow enough not to refill during it.
const LIMITS = { RATE_LIMIT_PER_MINUTE: "6", RATE_LIMIT_BURST: "5", OAUTH_RATE_LIMIT_PER_MINUTE: "6", OAUTH_RATE_LIMIT_BURST: "3" };

describe("rate limits on one instance", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(LIMITS);
  });
  afterAll(() => server?.stop());

  test("a burst from one key gets 429 with Retry-After and RateLimit-*; another key is unaffected; the refused write is not executed", async () => {
    // Users are made with the admin key, which has its own bucket: 2 calls each.
    const [a, b] = [await newUser(server.url, server.adminKey, "Vax"), await newUser(server.url, server.adminKey, "Pike")];
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${server.url}/v1/campaigns`, { headers: { "x-api-key": a.key } });
      expect(answer.status).toBe(200);
      remaining.push(answer.headers.get("ratelimit-remaining")!);
      expect(answer.headers.get("ratelimit-limit")).toBe("5");
      expect(answer.headers.get("ratelimit-policy")).toBe("5;w=50");
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);

    const refused = await fetch(`${server.url}/v1/campaigns`, { method: "POST", headers: { "x-api-key": a.key, "content-type": "application/json", origin: "https://vtt.example" }, body: JSON.stringify({ title: "Never" }) });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: "Rate limit exceeded" });
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-reset")).toBe("10");
    // A browser page can read why (CORS exposes the headers).
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("retry-after");

    // MCP draws from the same bucket.
    const mcp = await fetch(`${server.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcp.status).toBe(429);
    expect(await mcp.json()).toEqual({ detail: "Rate limit exceeded" });

    // Another key is unaffected.
    expect((await b.api.get("/v1/campaigns")).status).toBe(200);
    // The refused create did not happen: a second key of the same user sees no campaign.
    const second = await client(server.url, server.adminKey).post(`/internal/v1/users/${a.id}/keys`, {});
    const listed = await client(server.url, second.body.key).get("/v1/campaigns");
    expect(listed.body.total).toBe(0);
  }, 60_000);

  test("the OAuth endpoints are limited per client address", async () => {
    const register = () => fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Spam", redirect_uris: ["https://spam.example/cb"] }) });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await register()).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await register();
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(await refused.json()).toEqual({ detail: "Rate limit exceeded" });
    // Discovery is not an OAuth endpoint: still answered.
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
  }, 60_000);
});

const postgresReason = await postgresUnavailableReason();
if (postgresReason) announceSkip("rate limits shared by instances", { name: "postgres", skipReason: postgresReason });

describe.skipIf(Boolean(postgresReason))("rate limits shared by two instances on one PostgreSQL database", () => {
  let scratch: ScratchDatabase;
  let one: TestServer;
  let two: TestServer;
  beforeAll(async () => {
    scratch = await scratchDatabase("ratelimit");
    const adminKey = randomAdminKey();
    one = await startServer({ ...LIMITS, DATABASE_URL: scratch.url, CMS_ADMIN_KEY: adminKey });
    two = await startServer({ ...LIMITS, DATABASE_URL: scratch.url, CMS_ADMIN_KEY: adminKey });
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await scratch?.drop();
  });

  test("a key that spent its burst on one instance is refused on the other once they have synced", async () => {
    const user = await newUser(one.url, one.adminKey, "Grog");
    for (let i = 0; i < 5; i++) expect((await fetch(`${one.url}/v1/campaigns`, { headers: { "x-api-key": user.key } })).status).toBe(200);
    expect((await fetch(`${one.url}/v1/campaigns`, { headers: { "x-api-key": user.key } })).status).toBe(429);
    // The second instance has not heard of this key yet: it admits one request, writes it, and
    // learns from the shared bucket that nothing is left.
    await Bun.sleep(1200);
    expect((await fetch(`${two.url}/v1/campaigns`, { headers: { "x-api-key": user.key } })).status).toBe(200);
    await Bun.sleep(1200);
    const refused = await fetch(`${two.url}/v1/campaigns`, { headers: { "x-api-key": user.key } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
