// CORS and security headers as a browser client sees them, on a real server process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type TestServer } from "../support/server.ts";

const FOUNDRY = "https://foundry.example.com";
let open: TestServer;
let restricted: TestServer;

beforeAll(async () => {
  [open, restricted] = await Promise.all([startServer(), startServer({ CORS_ORIGINS: `${FOUNDRY}, http://localhost:30000` })]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), restricted?.stop()]);
});

const preflight = (server: TestServer, path: string, origin: string, method = "POST", headers = "x-api-key, content-type") =>
  fetch(`${server.url}${path}`, { method: "OPTIONS", headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers } });

const list = (value: string | null) => (value ?? "").split(",").map((item) => item.trim().toLowerCase());

describe("CORS with the default origins (*)", () => {
  test("a preflight for a write with x-api-key is answered without a key", async () => {
    const response = await preflight(open, "/v1/characters", FOUNDRY);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(list(response.headers.get("access-control-allow-methods"))).toEqual(["get", "post", "options"]);
    expect(list(response.headers.get("access-control-allow-headers"))).toEqual(expect.arrayContaining(["x-api-key", "content-type", "authorization"]));
    expect(response.headers.get("access-control-max-age")).toBe("7200");
  });

  test("a preflight on a record path names the methods that path takes", async () => {
    const response = await preflight(open, "/v1/campaigns/0190-some-id", FOUNDRY, "PATCH");
    expect(response.status).toBe(204);
    expect(list(response.headers.get("access-control-allow-methods"))).toEqual(["get", "patch", "delete", "options"]);
    const put = await preflight(open, "/v1/journals", FOUNDRY, "PUT");
    expect(list(put.headers.get("access-control-allow-methods"))).toEqual(expect.arrayContaining(["get", "post", "put", "delete"]));
  });

  test("/mcp preflights allow MCP's headers", async () => {
    const response = await preflight(open, "/mcp", "https://claude.example", "POST", "authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id");
    expect(response.status).toBe(204);
    expect(list(response.headers.get("access-control-allow-headers"))).toEqual(
      expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]),
    );
  });

  test("headers a client asks for are allowed too, a malformed request list is not echoed", async () => {
    const extra = await preflight(open, "/v1/characters", FOUNDRY, "POST", "x-api-key, x-requested-with");
    expect(list(extra.headers.get("access-control-allow-headers"))).toContain("x-requested-with");
    const malformed = await preflight(open, "/v1/characters", FOUNDRY, "POST", "x-api-key, bad header\u00e9");
    expect(list(malformed.headers.get("access-control-allow-headers"))).not.toContain("bad header\u00e9");
  });

  test("a preflight for a path that does not exist is a 404", async () => {
    const response = await preflight(open, "/v1/nothing-here", FOUNDRY);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Not Found" });
  });

  test("answers, errors included, expose the headers clients read", async () => {
    const denied = await fetch(`${open.url}/v1/campaigns`, { headers: { origin: FOUNDRY, "x-api-key": "cms_wrong" } });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ detail: "Invalid API key" });
    expect(denied.headers.get("access-control-allow-origin")).toBe("*");
    expect(list(denied.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining(["www-authenticate", "retry-after", "x-monthly-remaining-tokens", "x-hourly-remaining-tokens", "mcp-session-id", "ratelimit-remaining"]),
    );
    const ok = await fetch(`${open.url}/v1/campaigns`, { headers: { origin: FOUNDRY, "x-api-key": open.adminKey } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("CORS with configured origins", () => {
  test("an allowed origin is named in the answer, with Vary: Origin", async () => {
    const response = await preflight(restricted, "/v1/characters", FOUNDRY);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(FOUNDRY);
    expect(list(response.headers.get("vary"))).toContain("origin");
    const get = await fetch(`${restricted.url}/v1/campaigns`, { headers: { origin: "http://localhost:30000", "x-api-key": restricted.adminKey } });
    expect(get.headers.get("access-control-allow-origin")).toBe("http://localhost:30000");
  });

  test("another origin gets no permission to read", async () => {
    const response = await preflight(restricted, "/v1/characters", "https://evil.example");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(response.headers.get("access-control-allow-headers")).toBeNull();
    const get = await fetch(`${restricted.url}/v1/campaigns`, { headers: { origin: "https://evil.example", "x-api-key": restricted.adminKey } });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("security headers", () => {
  test("JSON answers: nosniff, no referrer, not cached, nothing may be loaded or framed", async () => {
    for (const [path, key] of [["/v1/campaigns", open.adminKey], ["/v1/campaigns", undefined], ["/health", undefined], ["/v1/nothing", undefined]] as const) {
      const response = await fetch(`${open.url}${path}`, { headers: key ? { "x-api-key": key } : {} });
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  test("/docs loads scripts from this server only, under a CSP that forbids framing", async () => {
    const response = await fetch(`${open.url}/docs`);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-eval");
    const html = await response.text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts).toEqual(["/docs/assets/scalar-api-reference-1.72.1.js", "/docs/assets/docs-init.js"]);
    expect(html).not.toMatch(/<script[^>]*>[^<]+<\/script>/); // no inline script
  });

  test("the reference bundle is served from the package copy, compressed and cacheable", async () => {
    const response = await fetch(`${open.url}/docs/assets/scalar-api-reference-1.72.1.js`, { headers: { "accept-encoding": "gzip" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
    const body = new Uint8Array(await response.arrayBuffer());
    // fetch decompresses: the bytes are the vendored file's, whose digest the assets README records.
    const digest = new Bun.CryptoHasher("sha256").update(body).digest("hex");
    expect(digest).toBe("bf091006bdc3af6067af77c2f534812e3e633e94a94e87138069f570f33b762c");
    const again = await fetch(`${open.url}/docs/assets/scalar-api-reference-1.72.1.js`, { headers: { "if-none-match": response.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  test("a wrong method names the allowed ones", async () => {
    const response = await fetch(`${open.url}/v1/campaigns`, { method: "PUT", headers: { "x-api-key": open.adminKey } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST, OPTIONS");
    expect(await response.json()).toEqual({ detail: "Method Not Allowed" });
  });
});
