// Black-box: request bodies under limits (size, time) and slow clients on the embedded database.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildHttpApp } from "../../adapters/http/app.ts";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import { EMBEDDED, serverWithUsers, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";
import { inProcessService } from "../support/inprocess.ts";
import { rawRequest, rssMb } from "../support/raw.ts";
import type { TestServer } from "../support/server.ts";

const LIMIT_1MIB = "Request body too large: this route accepts at most 1,048,576 bytes (1 MiB)";
const LIMIT_16MIB = "Request body too large: this route accepts at most 16,777,216 bytes (16 MiB)";
const LIMIT_32MIB = "Request body too large: this route accepts at most 33,554,432 bytes (32 MiB)";
const MB = 1024 * 1024;

/** `count` pieces of `size` bytes each: a JSON object's opening, then padding that never closes. */
function* padding(count: number, size: number) {
  yield '{"title":"Flood","padding":"';
  const piece = Buffer.alloc(size, "x");
  for (let i = 0; i < count; i++) yield piece;
}

describe("request bodies over HTTP (embedded database)", () => {
  let server: TestServer;
  let admin: Client;
  let gm: User;
  let viewer: User;
  let campaignId: string;

  serverWithUsers(EMBEDDED, ["Matt", "Viewer"], async (fixture) => {
    ({ server, admin, users: { Matt: gm, Viewer: viewer } } = fixture);
    campaignId = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body.id;
    expect((await admin.post(`/internal/v1/campaigns/${campaignId}/members`, { user_id: viewer.id, role: "viewer" })).status).toBe(201);
  });

  test("a declared length over the route's limit is refused with 413 and a detail naming it, before a byte is sent", async () => {
    const json = await rawRequest(server.url, { method: "POST", path: "/v1/campaigns", headers: { "x-api-key": gm.key, "content-type": "application/json", "content-length": String(200 * MB) } });
    expect(json.status).toBe(413);
    expect(JSON.parse(json.body)).toEqual({ detail: LIMIT_1MIB });
    expect(json.sentBeforeAnswer).toBe(0);

    const journal = await rawRequest(server.url, { method: "POST", path: "/v1/journals", headers: { "x-api-key": gm.key, "content-length": String(20 * MB) } });
    expect(journal.status).toBe(413);
    expect(JSON.parse(journal.body)).toEqual({ detail: LIMIT_16MIB });

    const transcript = await rawRequest(server.url, { method: "POST", path: "/internal/v1/sessions/any/transcript", headers: { "x-api-key": server.adminKey, "content-length": String(40 * MB) } });
    expect(transcript.status).toBe(413);
    expect(JSON.parse(transcript.body)).toEqual({ detail: LIMIT_32MIB });

    const mcp = await rawRequest(server.url, { method: "POST", path: "/mcp", headers: { authorization: `Bearer ${gm.key}`, "content-length": String(200 * MB) } });
    expect(mcp.status).toBe(413);
    expect(JSON.parse(mcp.body)).toEqual({ detail: LIMIT_16MIB });
  });

  test("the OpenAPI document states each route's body limit", async () => {
    const paths = (await (await fetch(`${server.url}/openapi.json`)).json()).paths;
    expect(paths["/v1/journals"].post.responses["413"].description).toBe("The request body is over this route's limit of 16,777,216 bytes");
    expect(paths["/v1/campaigns"].post.responses["413"].description).toBe("The request body is over this route's limit of 1,048,576 bytes");
    expect(paths["/v1/campaigns"].post.responses["408"].description).toBe("The request body stalled (no data for 10 s) or took over 120 s");
    expect(paths["/v1/campaigns"].get.responses["413"]).toBeUndefined();
  });

  test("a chunked body without a length is cut off with 413 once it grows past the limit", async () => {
    // 1 GiB offered; the answer comes long before, and sending stops there.
    const reply = await rawRequest(server.url, { method: "POST", path: "/v1/campaigns", headers: { "x-api-key": gm.key, "content-type": "application/json" }, chunked: true, pieces: padding(16 * 1024, 64 * 1024) });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ detail: LIMIT_1MIB });
    // The server leaves the rest unread while the answer lingers, so TCP stops the client within the
    // socket buffers (6–7 MB seen; 29–101 MB, once > 256 MB, while the server discarded at full
    // speed); a quarter of what was offered proves it was cut short.
    expect(reply.sentBeforeAnswer).toBeLessThan(256 * MB);

    const mcp = await rawRequest(server.url, { method: "POST", path: "/mcp", headers: { authorization: `Bearer ${gm.key}`, accept: "application/json, text/event-stream" }, chunked: true, pieces: padding(400, 64 * 1024) });
    expect(mcp.status).toBe(413);
    expect(JSON.parse(mcp.body)).toEqual({ detail: LIMIT_16MIB });
  });

  test("the limit is exact: 1,048,576 bytes pass, one more is refused", async () => {
    const bodyOf = (size: number) => {
      const head = '{"title":"Exactly","padding":"';
      return head + "x".repeat(size - head.length - 2) + '"}';
    };
    const atLimit = await gm.api.call("POST", "/v1/campaigns", bodyOf(MB));
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.title).toBe("Exactly");
    const over = await gm.api.call("POST", "/v1/campaigns", bodyOf(MB + 1));
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ detail: LIMIT_1MIB });
  });

  test("journal bodies may be larger: content over 2,000,000 characters reaches the journal rule (400), not the size limit", async () => {
    const reply = await gm.api.post("/v1/journals", { world_id: campaignId, title: "Long", content: "a".repeat(2_000_001) });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ detail: "Journal content exceeds the limit of 2,000,000 characters per request" });
  });

  test("an invalid key is refused with 401 without the body being read", async () => {
    for (const path of ["/v1/campaigns", "/mcp", "/internal/v1/sessions/any/transcript"]) {
      const reply = await rawRequest(server.url, { method: "POST", path, headers: { "x-api-key": "not-a-key", "content-type": "application/json", "content-length": String(500_000) } });
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toEqual({ detail: "Invalid API key" });
      expect(reply.sentBeforeAnswer).toBe(0);
    }
  });

  test("a few parallel oversized bodies from a read-only viewer leave the server's memory bounded", async () => {
    const pid = server.process.pid;
    const before = await rssMb(pid);
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssMb(pid));
        await Bun.sleep(20);
      }
    })();
    const path = `/v1/campaigns/${campaignId}`;
    const size = 120 * MB;
    const pieces = () => padding(size / (256 * 1024), 256 * 1024);
    const headers = { "x-api-key": viewer.key, "content-type": "application/json" };
    const replies = await Promise.all([
      rawRequest(server.url, { method: "PATCH", path, headers: { ...headers, "content-length": String(size + 28) }, pieces: pieces() }),
      rawRequest(server.url, { method: "PATCH", path, headers: { ...headers, "content-length": String(size + 28) }, pieces: pieces() }),
      rawRequest(server.url, { method: "PATCH", path, headers, chunked: true, pieces: pieces() }),
      rawRequest(server.url, { method: "PATCH", path, headers, chunked: true, pieces: pieces() }),
    ]);
    sampling = false;
    await sampler;
    expect(peak - before).toBeLessThan(150);
    for (const reply of replies) {
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body)).toEqual({ detail: LIMIT_1MIB });
    }
    // Still serving.
    expect((await viewer.api.get(`/v1/campaigns/${campaignId}`)).body.title).toBe("Vox Machina");
  });

  // Measured while the body trickles in. The import's own write (one transaction, after the last
  // piece) holds the embedded database as long as any import of that size does.
  test("a transcript trickling in over seconds delays other requests by under 100 ms (9 in 10), none by 300 ms", async () => {
    const session = (await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "Slow", session_date: "2015-03-12T19:00:00Z" })).body;
    const lines = Array.from({ length: 300 }, (_, i) => `${i % 2 ? "Matt" : "Laura"}: Line number ${i} of a session that arrives slowly.\n`);
    const pieces = Array.from({ length: 30 }, (_, i) => lines.slice(i * 10, i * 10 + 10).join(""));
    const importing = rawRequest(server.url, {
      method: "POST",
      path: `/internal/v1/sessions/${session.id}/transcript`,
      headers: { "x-api-key": server.adminKey, "content-type": "text/plain" },
      chunked: true,
      pieces,
      delayMs: 100,
      onSent: () => (sent = true),
    });
    let sent = false;
    const latencies: number[] = [];
    while (!sent) {
      const started = performance.now();
      const me = await gm.api.get("/v1/users/me");
      latencies.push(performance.now() - started);
      expect(me.body.name).toBe("Matt");
      await Bun.sleep(50);
    }
    // On the shared two-core machine, with other test files running beside this one (npm test runs
    // them in parallel), one or two requests of ~45 were seen at 100–160 ms. A request waiting for the
    // trickle would wait seconds; the token counter's old cold start stalled requests 0.45–1.3 s.
    const sorted = [...latencies].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)]!).toBeLessThan(100);
    expect(sorted.at(-1)!).toBeLessThan(300);
    expect(latencies.length).toBeGreaterThan(20); // the trickle took seconds
    const imported = await importing;
    expect(imported.status).toBe(201);
    expect(JSON.parse(imported.body)).toEqual({ utterance_count: 300, speakers: ["Laura", "Matt"] });
  });
});

describe("request bodies that stall (in process, short time limits)", () => {
  let service: Awaited<ReturnType<typeof inProcessService>>;
  let app: ReturnType<typeof buildHttpApp>;
  beforeAll(async () => {
    service = await inProcessService();
    app = buildHttpApp({ deps: service.deps, info: service.info, operations: OPERATIONS, bodyTimeouts: { idleMs: 300, totalMs: 1500 } });
  });
  afterAll(() => service?.close());

  const post = (body: ReadableStream<Uint8Array>) =>
    app.handle(new Request("http://localhost/v1/campaigns", { method: "POST", headers: { "x-api-key": service.adminKey, "content-type": "application/json" }, body, duplex: "half" } as RequestInit));

  test("no data for longer than the idle limit: 408", async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"title":'));
      },
    });
    const reply = await post(stalled);
    expect(reply.status).toBe(408);
    expect(await reply.json()).toEqual({ detail: "Request body timed out: no data for 0.3 s" });
  });

  test("data that keeps coming but never ends: 408 at the total limit", async () => {
    let timer: ReturnType<typeof setInterval>;
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"title":"'));
        timer = setInterval(() => controller.enqueue(new TextEncoder().encode("x")), 100);
      },
      cancel() {
        clearInterval(timer);
      },
    });
    const started = Date.now();
    const reply = await post(endless);
    clearInterval(timer!);
    expect(reply.status).toBe(408);
    expect(await reply.json()).toEqual({ detail: "Request body timed out: the whole body must arrive within 1.5 s" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });
});
