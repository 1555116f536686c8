// Webhooks end to end: a receiver on 127.0.0.1 (allowed by the operator setting), signatures checked
// independently, order per record, retries with backoff, disabling and re-enabling, a service killed
// mid-delivery and restarted; and the SSRF guard without the setting.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpWebhookSender, isNonPublicAddress } from "../../adapters/webhooks/http.ts";
import { announceSkip, recordBackends } from "../support/backends.ts";
import { client, newUser } from "../support/client.ts";
import { scratchDatabase } from "../support/postgres.ts";
import { startServer, type TestServer } from "../support/server.ts";

interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: any;
}

/** A receiver whose answer the test chooses; it records every request. */
function receiver() {
  const got: Received[] = [];
  let answer = 200;
  let delayMs = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      got.push({ id: request.headers.get("webhook-id")!, timestamp: request.headers.get("webhook-timestamp")!, signature: request.headers.get("webhook-signature")!, body, json: JSON.parse(body) });
      if (delayMs) await Bun.sleep(delayMs);
      return new Response(null, { status: answer });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    got,
    answer: (status: number, delay = 0) => {
      answer = status;
      delayMs = delay;
    },
    stop: () => server.stop(true),
  };
}

/** Standard Webhooks verification, written from the scheme, not from the service's code. */
const verifies = (secret: string, r: Received) => {
  const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`${r.id}.${r.timestamp}.${r.body}`).digest("base64");
  return r.signature.split(" ").includes(`v1,${expected}`);
};

const until = async (what: string, check: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
};

// The receiver answers before the service records the attempt: read the service's own state by polling.
const eventually = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value).slice(0, 300)}`);
    await Bun.sleep(50);
  }
};

const FLAGS = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_BASE_MS: "300", WEBHOOK_MAX_FAILURES: "3", WEBHOOK_TIMEOUT_MS: "3000" };

describe("the SSRF guard", () => {
  test("private, loopback, link-local and other non-public addresses are recognized", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1", "::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1"])
      expect([address, isNonPublicAddress(address)]).toEqual([address, true]);
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect([address, isNonPublicAddress(address)]).toEqual([address, false]);
  });

  test("targets are refused with a sentence unless the operator allows them; schemes and credentials always", async () => {
    const guarded = httpWebhookSender({ allowPrivateTargets: false, timeoutMs: 1000 });
    expect(await guarded.refusal("http://127.0.0.1:9/hook")).toStartWith("The webhook URL resolves to 127.0.0.1, a private, loopback or link-local address");
    expect(await guarded.refusal("http://[::1]/x")).toStartWith("The webhook URL resolves to ::1");
    expect(await guarded.refusal("http://localhost/x")).toContain("a private, loopback or link-local address");
    expect(await guarded.refusal("http://169.254.169.254/latest/meta-data")).toContain("169.254.169.254");
    expect(await guarded.refusal("ftp://example.com/x")).toBe("The webhook URL must be http:// or https://");
    expect(await guarded.refusal("https://user:pw@example.com/x")).toBe("The webhook URL must not carry credentials");
    // And at delivery time too (DNS may change after registration): nothing is sent.
    const attempt = await guarded.send({ url: "http://127.0.0.1:9/hook", secret: "whsec_AAAA", id: "msg_1", timestamp: 1, body: "{}" });
    expect(attempt.status).toBeNull();
    expect(attempt.error).toContain("127.0.0.1");
    const allowed = httpWebhookSender({ allowPrivateTargets: true, timeoutMs: 1000 });
    expect(await allowed.refusal("http://127.0.0.1:9/hook")).toBeNull();
  });
});

for (const backend of await recordBackends()) {
  const title = `webhooks end to end on ${backend.name}`;
  if (backend.skipReason) announceSkip(title, backend);
  describe.skipIf(Boolean(backend.skipReason))(title, () => {
    let server: TestServer;
    let env: Record<string, string>;
    let dataDir: string | undefined;
    let dropDatabase = async () => {};
    const hooks = receiver();
    let gm: Awaited<ReturnType<typeof newUser>>;
    let campaign: any;
    const start = async () => (server = await startServer(env, dataDir ? { keepDataDir: dataDir } : {}));

    beforeAll(async () => {
      if (backend.name === "postgres") {
        const scratch = await scratchDatabase("webhooks");
        dropDatabase = scratch.drop;
        env = { ...FLAGS, DATABASE_URL: scratch.url };
      } else {
        dataDir = mkdtempSync(join(tmpdir(), "cms-webhooks-"));
        env = { ...FLAGS };
      }
      env.CMS_ADMIN_KEY = `test_admin_${crypto.randomUUID().replaceAll("-", "")}`;
      await start();
      gm = await newUser(server.url, server.adminKey, "Matt");
      campaign = (await gm.api.post("/v1/campaigns", { title: "Hooked" })).body;
    });
    afterAll(async () => {
      await server?.stop();
      hooks.stop();
      await dropDatabase();
    });

    test("every change is delivered, signed, in order; the secret is shown once; private targets need the setting", async () => {
      const made = await gm.api.post(`/v1/campaigns/${campaign.id}/webhooks`, { url: hooks.url });
      expect(made.status).toBe(201);
      expect(made.body.secret).toStartWith("whsec_");
      const listed = await gm.api.get(`/v1/campaigns/${campaign.id}/webhooks`);
      expect(listed.body.data.map((w: any) => [w.id, w.url, w.enabled, "secret" in w])).toEqual([[made.body.id, hooks.url, true, false]]);

      const grog = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog" })).body;
      await gm.api.patch(`/v1/characters/${grog.id}`, { description: "Goliath" });
      await gm.api.delete(`/v1/characters/${grog.id}`);
      await until("three deliveries", () => hooks.got.length >= 3);
      const mine = hooks.got.filter((r) => r.json.data.id === grog.id);
      expect(mine.map((r) => r.json.type)).toEqual(["character.create", "character.update", "character.delete"]);
      expect(mine.map((r) => r.json.data.actor_id)).toEqual([gm.id, gm.id, gm.id]);
      expect(hooks.got.every((r) => verifies(made.body.secret, r))).toBe(true);
      expect(verifies("whsec_" + Buffer.from("not the secret").toString("base64"), hooks.got[0]!)).toBe(false);
      expect(mine[0]!.id).toBe(`msg_${campaign.id}_${mine[0]!.json.data.seq}`);
      expect(Math.abs(Number(mine[0]!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      const log = await eventually("three logged deliveries", () => gm.api.get(`/v1/campaigns/${campaign.id}/webhooks/${made.body.id}/deliveries`), (r) => r.body.data.length >= 3);
      expect(log.body.data.slice(0, 3).map((d: any) => [d.ok, d.status_code])).toEqual([[true, 200], [true, 200], [true, 200]]);

      const bad = await gm.api.post(`/v1/campaigns/${campaign.id}/webhooks`, { url: hooks.url, events: ["dragon"] });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].msg).toStartWith('Unknown event "dragon"');
      expect((await gm.api.delete(`/v1/campaigns/${campaign.id}/webhooks/${made.body.id}`)).status).toBe(204);
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/webhooks`)).body.data).toEqual([]);
    });

    test("a failing receiver is retried with backoff, then disabled with the reason; re-enabled, it gets every change it missed", async () => {
      hooks.got.length = 0;
      hooks.answer(500);
      const made = (await gm.api.post(`/v1/campaigns/${campaign.id}/webhooks`, { url: hooks.url, events: ["location"] })).body;
      const emon = (await gm.api.post("/v1/locations", { campaign_id: campaign.id, name: "Emon" })).body;
      await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Filtered out" });
      await until("the webhook to be disabled", () => hooks.got.length >= 3);
      const state = (await eventually("the webhook disabled", () => gm.api.get(`/v1/campaigns/${campaign.id}/webhooks`), (r) => r.body.data[0]?.enabled === false)).body.data[0];
      await Bun.sleep(300);
      expect(state).toMatchObject({ enabled: false, failures: 3, disabled_reason: "Disabled after 3 failed deliveries in a row; the last: HTTP 500" });
      expect(hooks.got.length).toBe(3);
      expect(new Set(hooks.got.map((r) => r.id)).size).toBe(1); // the same message, retried
      const attempts = (await gm.api.get(`/v1/campaigns/${campaign.id}/webhooks/${made.id}/deliveries`)).body.data;
      expect(attempts.map((d: any) => [d.attempt, d.ok, d.status_code, d.error])).toEqual([
        [3, false, 500, "HTTP 500"],
        [2, false, 500, "HTTP 500"],
        [1, false, 500, "HTTP 500"],
      ]);
      // Backoff: 300 ms, then 600 ms (WEBHOOK_RETRY_BASE_MS doubled), give or take the 200 ms poll.
      const times = attempts.map((d: any) => Date.parse(d.at)).reverse();
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(290);
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(590);

      hooks.answer(200);
      const enabled = await gm.api.post(`/v1/campaigns/${campaign.id}/webhooks/${made.id}/enable`);
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ enabled: true, failures: 0, disabled_reason: null });
      await until("the missed change", () => hooks.got.length >= 4);
      expect(hooks.got[3]!.json).toMatchObject({ type: "location.create", data: { id: emon.id } });
      await Bun.sleep(500);
      expect(hooks.got.every((r) => r.json.data.kind === "location")).toBe(true);
      await gm.api.delete(`/v1/campaigns/${campaign.id}/webhooks/${made.id}`);
    });

    test("the service killed mid-delivery and restarted: every change arrives at least once, in order per record", async () => {
      hooks.got.length = 0;
      hooks.answer(200, 400);
      const made = (await gm.api.post(`/v1/campaigns/${campaign.id}/webhooks`, { url: hooks.url, events: ["item"] })).body;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await gm.api.post("/v1/items", { campaign_id: campaign.id, name: `Item ${i}` })).body.id);
      for (const id of ids) await gm.api.patch(`/v1/items/${id}`, { description: "changed" });
      await until("a delivery in flight", () => hooks.got.length >= 1);
      server.process.kill(9);
      await server.process.exited;
      hooks.answer(200);
      await start();
      await until("all six changes", () => new Set(hooks.got.map((r) => r.id)).size >= 6, 60_000);
      for (const id of ids) {
        const ops = hooks.got.filter((r) => r.json.data.id === id).map((r) => r.json.data.op);
        // At least once: a repeat is allowed, but never an update before its create.
        expect(ops.indexOf("create")).toBeGreaterThanOrEqual(0);
        expect(ops.lastIndexOf("create")).toBeLessThan(ops.lastIndexOf("update"));
      }
      const seqs = hooks.got.map((r) => r.json.data.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      await client(server.url, gm.key).delete(`/v1/campaigns/${campaign.id}/webhooks/${made.id}`);
    }, 120_000);
  });
}
