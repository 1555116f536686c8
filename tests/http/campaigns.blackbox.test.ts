// Black-box: a real server process per backend, driven only through its HTTP routes.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import { client, newUser, type Client } from "../support/client.ts";
import { PROJECT_ROOT, type TestServer } from "../support/server.ts";

// Counted from the folder, not from the migration runner the route reports on.
const MIGRATION_FILES = readdirSync(join(PROJECT_ROOT, "infra", "migrations")).filter((name) => /^\d{4}_.+\.sql$/.test(name)).sort();

await forEachBackend("campaigns over HTTP", (backend) => {
  let server: TestServer;
  let alice: User;
  let bob: User;
  let admin: Client;
  let anonymous: Client;

  serverWithUsers(backend, ["Alice", "Bob"], (fixture) => {
    ({ server, admin, users: { Alice: alice, Bob: bob } } = fixture);
    anonymous = client(server.url);
  });

  const createCampaign = async (owner: Client, body: Record<string, unknown> = { title: "Vox Machina" }) => {
    const reply = await owner.post("/v1/campaigns", body);
    expect(reply.status).toBe(201);
    return reply.body;
  };

  describe("system routes", () => {
    test("/health answers without a key, with the documented shape", async () => {
      const reply = await anonymous.get("/health");
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status: "ok", service: "campaign-memory-service", version: "1.0.0", port: server.port });
      expect(typeof reply.body.environment).toBe("string");
      expect(Number.isNaN(Date.parse(reply.body.timestamp))).toBe(false);
    });

    test("/health/database names the backend and the migrations", async () => {
      const started = performance.now();
      const reply = await anonymous.get("/health/database");
      const elapsed = performance.now() - started;
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status: "ok", backend: backend.name, migrations: { applied: MIGRATION_FILES.length, latest: MIGRATION_FILES.at(-1)!.replace(/\.sql$/, "") } });
      // The database round trip happens inside the request: it cannot have taken longer than the whole request did.
      expect(typeof reply.body.latency_ms).toBe("number");
      expect(reply.body.latency_ms).toBeGreaterThanOrEqual(0);
      expect(reply.body.latency_ms).toBeLessThanOrEqual(elapsed);
    });

    test("/ and /v1 describe the service", async () => {
      const root = await anonymous.get("/");
      expect(root.status).toBe(200);
      expect(root.body).toMatchObject({ name: "campaign-memory-service", docs: expect.stringContaining("/docs"), mcp: expect.stringContaining("/mcp") });
      const v1 = await anonymous.get("/v1");
      expect(v1.body).toMatchObject({ api: "v1", resources: expect.arrayContaining(["campaigns", "worlds"]) });
    });

    test("/openapi.json and /docs are served", async () => {
      const doc = await anonymous.get("/openapi.json");
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toStartWith("3.1");
      expect(Object.keys(doc.body.paths)).toContain("/v1/campaigns/{campaign_id}");
      expect(Object.keys(doc.body.paths).some((p) => p.startsWith("/internal"))).toBe(false);
      const docs = await anonymous.call("GET", "/docs");
      expect(docs.headers.get("content-type")).toContain("text/html");
      expect(docs.text).toContain("/openapi.json");
    });

    test("unknown routes get a JSON 404, wrong methods a JSON 405", async () => {
      const missing = await anonymous.get("/v1/nothing-here");
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: "Not Found" });
      const wrongMethod = await alice.api.call("PUT", "/v1/campaigns");
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.body).toEqual({ detail: "Method Not Allowed" });
    });
  });

  describe("authentication", () => {
    test("no key: 401, Invalid API key, WWW-Authenticate: Bearer", async () => {
      const reply = await anonymous.get("/v1/campaigns");
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ detail: "Invalid API key" });
      expect(reply.headers.get("www-authenticate")).toStartWith("Bearer");
    });

    test("a wrong or malformed key: 401", async () => {
      for (const key of ["cms_" + "x".repeat(43), "short", "with spaces in it and more than twenty"]) {
        const reply = await client(server.url, key).get("/v1/campaigns");
        expect(reply.status).toBe(401);
        expect(reply.body).toEqual({ detail: "Invalid API key" });
      }
    });

    test("the key works as x-api-key and as a Bearer token", async () => {
      expect((await client(server.url, alice.key, "x-api-key").get("/v1/users/me")).status).toBe(200);
      const me = await client(server.url, alice.key, "bearer").get("/v1/users/me");
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: alice.id, name: "Alice", email: alice.email, role: "user", scopes: [], api_profile: "developer" });
      expect(me.body.key).toBeUndefined();
    });

    test("a revoked key stops working on the next request", async () => {
      const extra = await admin.post(`/internal/v1/users/${alice.id}/keys`, {});
      const extraClient = client(server.url, extra.body.key);
      expect((await extraClient.get("/v1/campaigns")).status).toBe(200);
      expect((await admin.delete(`/internal/v1/keys/${extra.body.id}`)).status).toBe(204);
      expect((await extraClient.get("/v1/campaigns")).status).toBe(401);
      expect((await admin.delete(`/internal/v1/keys/${extra.body.id}`)).status).toBe(404);
      expect((await alice.api.get("/v1/campaigns")).status).toBe(200);
    });

    test("rotation: the new key works, the old one stops, in one step", async () => {
      const first = await admin.post(`/internal/v1/users/${bob.id}/keys`, {});
      const rotated = await admin.post(`/internal/v1/keys/${first.body.id}/rotate`);
      expect(rotated.status).toBe(201);
      expect(rotated.body.key).not.toBe(first.body.key);
      expect(rotated.body.user_id).toBe(bob.id);
      expect((await client(server.url, first.body.key).get("/v1/users/me")).status).toBe(401);
      expect((await client(server.url, rotated.body.key).get("/v1/users/me")).body.id).toBe(bob.id);
      expect((await admin.post(`/internal/v1/keys/${first.body.id}/rotate`)).status).toBe(404);
    });

    test("first-party routes need product_write", async () => {
      const reply = await alice.api.post("/internal/v1/users", { name: "Mallory", email: "m@example.test" });
      expect(reply.status).toBe(403);
      expect(reply.body.detail).toContain("product_write");
      expect((await anonymous.post("/internal/v1/users", { name: "M", email: "m@example.test" })).status).toBe(401);
    });
  });

  describe("campaign routes", () => {
    test("create: 201 with every field, system fields and unknown fields ignored, title trimmed", async () => {
      const reply = await alice.api.post("/v1/campaigns", {
        title: "  Vox Machina  ",
        description: "Heroes of Emon",
        system: "D&D 5e",
        id: "chosen-by-client",
        created_at: "2000-01-01T00:00:00Z",
        public: true,
        owner_id: bob.id,
        surprise: { nested: true },
      });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({ title: "Vox Machina", description: "Heroes of Emon", system: "D&D 5e", public: false, mature: false, language: "en", owner_id: alice.id, updated_at: null });
      expect(reply.body.id).not.toBe("chosen-by-client");
      expect(reply.body.created_at).not.toStartWith("2000");
      expect(reply.body.surprise).toBeUndefined();
      expect((await alice.api.get(`/v1/campaigns/${reply.body.id}`)).body).toEqual(reply.body);
    });

    test("create: validation errors are 422 lists with type, loc, msg, input", async () => {
      const missing = await alice.api.post("/v1/campaigns", { description: "no title" });
      expect(missing.status).toBe(422);
      expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "title"], msg: "Field required", input: { description: "no title" } }]);

      const wrongType = await alice.api.post("/v1/campaigns", { title: 42 });
      expect(wrongType.status).toBe(422);
      expect(wrongType.body.detail[0]).toMatchObject({ type: "string_type", loc: ["body", "title"], input: 42 });

      const blank = await alice.api.post("/v1/campaigns", { title: "   " });
      expect(blank.status).toBe(422);
      expect(blank.body.detail[0].loc).toEqual(["body", "title"]);

      const http = await alice.api.post("/v1/campaigns", { title: "T", image: "http://example.com/a.png" });
      expect(http.status).toBe(422);
      expect(http.body.detail[0]).toMatchObject({ loc: ["body", "image"], msg: expect.stringContaining("HTTPS"), input: "http://example.com/a.png" });

      const tooLong = await alice.api.post("/v1/campaigns", { title: "T", image: `https://example.com/${"a".repeat(2048)}` });
      expect(tooLong.status).toBe(422);

      const badJson = await alice.api.post("/v1/campaigns", "{not json");
      expect(badJson.status).toBe(422);
      expect(badJson.body.detail[0].type).toBe("json_invalid");

      const notObject = await alice.api.post("/v1/campaigns", [1, 2]);
      expect(notObject.status).toBe(422);
      expect(notObject.body.detail[0].loc).toEqual(["body"]);
    });

    test("list: only your campaigns, newest first, with the pagination envelope and bounds", async () => {
      const carol = await newUser(server.url, server.adminKey, "Carol");
      const titles = ["One", "Two", "Three"];
      for (const title of titles) await createCampaign(carol.api, { title });
      await createCampaign(bob.api, { title: "Bob's" });

      const page1 = await carol.api.get("/v1/campaigns?size=2");
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ total: 3, page: 1, size: 2, pages: 2 });
      expect(page1.body.data.map((c: any) => c.title)).toEqual(["Three", "Two"]);
      const page2 = await carol.api.get("/v1/campaigns?size=2&page=2");
      expect(page2.body.data.map((c: any) => c.title)).toEqual(["One"]);
      const beyond = await carol.api.get("/v1/campaigns?size=2&page=5");
      expect(beyond.body).toEqual({ data: [], total: 3, page: 5, size: 2, pages: 2 });
      const defaults = await carol.api.get("/v1/campaigns");
      expect(defaults.body).toMatchObject({ page: 1, size: 20 });

      for (const query of ["page=0", "size=0", "size=101", "page=-1", "page=abc", "size=1.5"]) {
        const reply = await carol.api.get(`/v1/campaigns?${query}`);
        expect(reply.status).toBe(422);
        expect(reply.body.detail[0].loc[0]).toBe("query");
      }
      expect((await carol.api.get("/v1/campaigns?size=100")).status).toBe(200);
      expect((await carol.api.get("/v1/campaigns?search=tw")).body.data.map((c: any) => c.title)).toEqual(["Two"]);

      const empty = await newUser(server.url, server.adminKey, "Dora");
      expect((await empty.api.get("/v1/campaigns")).body).toEqual({ data: [], total: 0, page: 1, size: 20, pages: 0 });
    });

    test("patch: changes only what is sent; system fields ignored; empty body is a no-op", async () => {
      const campaign = await createCampaign(alice.api, { title: "Before", description: "keep me", system: "PF2e" });
      const reply = await alice.api.patch(`/v1/campaigns/${campaign.id}`, { title: "After", id: "x", owner_id: bob.id, public: true, created_at: "2000-01-01T00:00:00Z", nonsense: 1 });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ id: campaign.id, title: "After", description: "keep me", system: "PF2e", owner_id: alice.id, public: false, created_at: campaign.created_at });
      expect(reply.body.updated_at).not.toBeNull();
      const cleared = await alice.api.patch(`/v1/campaigns/${campaign.id}`, { description: null });
      expect(cleared.body.description).toBeNull();
      const noop = await alice.api.patch(`/v1/campaigns/${campaign.id}`, {});
      expect(noop.status).toBe(200);
      expect(noop.body.title).toBe("After");
      const invalid = await alice.api.patch(`/v1/campaigns/${campaign.id}`, { title: "" });
      expect(invalid.status).toBe(422);
      expect((await alice.api.get(`/v1/campaigns/${campaign.id}`)).body.title).toBe("After");
    });

    test("stats: every count, zero for an empty campaign", async () => {
      const campaign = await createCampaign(alice.api);
      const stats = await alice.api.get(`/v1/campaigns/${campaign.id}/stats`);
      expect(stats.status).toBe(200);
      expect(stats.body).toEqual({
        campaign_id: campaign.id,
        title: campaign.title,
        public: false,
        created_at: campaign.created_at,
        characters: 0,
        sessions: 0,
        moments: 0,
        beats: 0,
        factions: 0,
        locations: 0,
        items: 0,
      });
    });

    test("unknown campaign: 404 with detail", async () => {
      for (const path of ["/v1/campaigns/nope", "/v1/campaigns/nope/stats", "/v1/worlds/nope"]) {
        const reply = await alice.api.get(path);
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ detail: "Campaign not found" });
      }
      expect((await alice.api.patch("/v1/campaigns/nope", { title: "x" })).status).toBe(404);
      expect((await alice.api.delete("/v1/campaigns/nope")).status).toBe(404);
    });
  });

  describe("access across users", () => {
    test("a stranger can neither read, list, change, count nor delete someone else's campaign", async () => {
      const campaign = await createCampaign(alice.api, { title: "Secret", description: "for Alice only" });
      for (const path of [`/v1/campaigns/${campaign.id}`, `/v1/campaigns/${campaign.id}/stats`, `/v1/worlds/${campaign.id}`]) {
        const reply = await bob.api.get(path);
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual({ detail: "Access denied to this campaign" });
        expect(reply.text).not.toContain("Secret");
      }
      expect((await bob.api.patch(`/v1/campaigns/${campaign.id}`, { title: "Mine" })).status).toBe(403);
      expect((await bob.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(403);
      const list = await bob.api.get("/v1/campaigns?size=100");
      expect(list.body.data.some((c: any) => c.id === campaign.id)).toBe(false);
      expect((await alice.api.get(`/v1/campaigns/${campaign.id}`)).body.title).toBe("Secret");
    });

    test("roles: viewer reads, player cannot manage, admin manages, only the owner deletes", async () => {
      const campaign = await createCampaign(alice.api, { title: "Roles" });
      const setRole = async (role: string) => {
        const reply = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role });
        expect(reply.status).toBe(201);
        expect(reply.body).toMatchObject({ campaign_id: campaign.id, user_id: bob.id, role });
      };
      await setRole("viewer");
      expect((await bob.api.get(`/v1/campaigns/${campaign.id}`)).status).toBe(200);
      expect((await bob.api.get("/v1/campaigns?size=100")).body.data.some((c: any) => c.id === campaign.id)).toBe(true);
      expect((await bob.api.patch(`/v1/campaigns/${campaign.id}`, { title: "x" })).status).toBe(403);

      await setRole("player");
      const asPlayer = await bob.api.patch(`/v1/campaigns/${campaign.id}`, { title: "x" });
      expect(asPlayer.status).toBe(403);
      expect(asPlayer.body.detail).toBeString();

      await setRole("admin");
      expect((await bob.api.patch(`/v1/campaigns/${campaign.id}`, { title: "By the GM" })).body.title).toBe("By the GM");
      const adminDelete = await bob.api.delete(`/v1/campaigns/${campaign.id}`);
      expect(adminDelete.status).toBe(403);
      expect(adminDelete.body.detail).toBe("Only the campaign owner can do this");

      expect((await admin.delete(`/internal/v1/campaigns/${campaign.id}/members/${bob.id}`)).status).toBe(204);
      expect((await bob.api.get(`/v1/campaigns/${campaign.id}`)).status).toBe(403);
      expect((await admin.delete(`/internal/v1/campaigns/${campaign.id}/members/${bob.id}`)).status).toBe(404);
    });

    test("the owner cannot be removed; role owner hands the campaign over", async () => {
      const campaign = await createCampaign(alice.api, { title: "Handover" });
      const removeOwner = await admin.delete(`/internal/v1/campaigns/${campaign.id}/members/${alice.id}`);
      expect(removeOwner.status).toBe(400);
      expect(removeOwner.body.detail).toContain("owner");
      expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "owner" })).status).toBe(201);
      expect((await bob.api.get(`/v1/campaigns/${campaign.id}`)).body.owner_id).toBe(bob.id);
      expect((await alice.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(403);
      expect((await alice.api.patch(`/v1/campaigns/${campaign.id}`, { title: "still GM" })).status).toBe(200);
      expect((await bob.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(204);
    });

    test("member routes validate their input", async () => {
      const campaign = await createCampaign(alice.api);
      const badRole = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "emperor" });
      expect(badRole.status).toBe(422);
      expect(badRole.body.detail[0].loc).toEqual(["body", "role"]);
      expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: "nobody", role: "viewer" })).status).toBe(404);
      expect((await admin.post(`/internal/v1/campaigns/nope/members`, { user_id: bob.id, role: "viewer" })).status).toBe(404);
    });

    test("owner delete removes the campaign for everyone", async () => {
      const campaign = await createCampaign(alice.api, { title: "Gone" });
      await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "player" });
      const deleted = await alice.api.delete(`/v1/campaigns/${campaign.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expect((await alice.api.get(`/v1/campaigns/${campaign.id}`)).status).toBe(404);
      expect((await bob.api.get(`/v1/campaigns/${campaign.id}`)).status).toBe(404);
    });
  });

  describe("the /v1/worlds alias family", () => {
    test("create, list, read, patch and stats through worlds; no world DELETE", async () => {
      const created = await alice.api.post("/v1/worlds", { title: "Exandria" });
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect((await alice.api.get(`/v1/campaigns/${id}`)).body.title).toBe("Exandria");
      expect((await alice.api.get(`/v1/worlds/${id}`)).body).toEqual(created.body);
      expect((await alice.api.get("/v1/worlds?size=100")).body.data.some((w: any) => w.id === id)).toBe(true);
      expect((await alice.api.patch(`/v1/worlds/${id}`, { title: "Exandria II" })).body.title).toBe("Exandria II");
      expect((await alice.api.get(`/v1/worlds/${id}/stats`)).body).toMatchObject({ campaign_id: id, characters: 0 });
      const del = await alice.api.delete(`/v1/worlds/${id}`);
      expect(del.status).toBe(405);
      expect((await alice.api.get(`/v1/worlds/${id}`)).status).toBe(200);
      expect((await bob.api.get(`/v1/worlds/${id}`)).status).toBe(403);
    });
  });

  describe("first-party user and key routes", () => {
    test("users: created once per email, validated", async () => {
      const email = `eve.${crypto.randomUUID().slice(0, 6)}@example.test`;
      const created = await admin.post("/internal/v1/users", { name: "Eve", email });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(["created_at", "email", "id", "name"]);
      const again = await admin.post("/internal/v1/users", { name: "Eve", email: email.toUpperCase() });
      expect(again.status).toBe(409);
      expect(again.body.detail).toContain("email");
      expect((await admin.post("/internal/v1/users", { name: "Eve" })).status).toBe(422);
      expect((await admin.post("/internal/v1/users", { name: "Eve", email: "not-an-email" })).status).toBe(422);
    });

    test("keys: shown once, listed by prefix only, unknown scopes refused", async () => {
      const issued = await admin.post(`/internal/v1/users/${bob.id}/keys`, {});
      expect(issued.status).toBe(201);
      expect(issued.body.key).toStartWith("cms_");
      expect(issued.body.key.length).toBeGreaterThanOrEqual(40);
      expect(issued.body.key).toStartWith(issued.body.prefix);
      const listing = await admin.get(`/internal/v1/users/${bob.id}/keys`);
      expect(listing.status).toBe(200);
      expect(listing.text).not.toContain(issued.body.key);
      expect(listing.body.data.some((k: any) => k.id === issued.body.id && k.prefix === issued.body.prefix)).toBe(true);
      expect((await admin.post(`/internal/v1/users/${bob.id}/keys`, { scopes: ["root"] })).status).toBe(422);
      expect((await admin.post(`/internal/v1/users/nobody/keys`, {})).status).toBe(404);
      expect(server.output()).not.toContain(issued.body.key);
    });
  });

  describe("bad input never breaks the service or half-writes", () => {
    test("random bodies to create and patch: a 2xx or a 4xx with detail, never a 5xx", async () => {
      const fuzzer = await newUser(server.url, server.adminKey, "Fuzz");
      const target = await createCampaign(fuzzer.api, { title: "Target" });
      const before = (await fuzzer.api.get("/v1/campaigns")).body.total;
      let created = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.record({ title: fc.jsonValue(), description: fc.jsonValue(), image: fc.jsonValue(), mature: fc.jsonValue() }, { requiredKeys: [] }),
          ),
          async (body) => {
            const create = await fuzzer.api.post("/v1/campaigns", JSON.stringify(body));
            expect(create.status).toBeLessThan(500);
            if (create.status === 201) created++;
            else {
              expect(create.status).toBeGreaterThanOrEqual(400);
              expect(create.body.detail).toBeDefined();
            }
            const patch = await fuzzer.api.patch(`/v1/campaigns/${target.id}`, JSON.stringify(body));
            expect(patch.status).toBeLessThan(500);
            if (patch.status >= 400) expect(patch.body.detail).toBeDefined();
          },
        ),
        { numRuns: 60 },
      );
      expect((await fuzzer.api.get("/v1/campaigns")).body.total).toBe(before + created);
    });
  });
});
