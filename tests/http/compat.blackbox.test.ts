// Black-box: what real clients of the live service rely on — session PUT, campaign archive.
import { describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import { client, newUser, type Client } from "../support/client.ts";
import type { TestServer } from "../support/server.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

await forEachBackend("client compatibility over HTTP", (backend) => {
  let server: TestServer;
  let gm: User;
  let viewer: User;
  let admin: Client;

  serverWithUsers(backend, ["Matt", "Viewer"], (fixture) => {
    ({ server, admin, users: { Matt: gm, Viewer: viewer } } = fixture);
  });

  const newCampaign = async (title: string) => {
    const reply = await gm.api.post("/v1/campaigns", { title });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  describe("PUT /v1/sessions/{session_id}", () => {
    test("is the session PATCH: the three fields change, others are ignored, the same validation and access", async () => {
      const campaign = await newCampaign("Put sessions");
      const created = await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Kraghammer", session_date: "2015-03-12T19:00:00Z", summary: "Old" });
      expect(created.status).toBe(201);
      const session = created.body;

      const put = await gm.api.put(`/v1/sessions/${session.id}`, { title: "Kraghammer, renamed", summary: "They meet [[Grog]]", session_date: "2015-03-13T20:00:00Z", type: "other", notes: "no", public: true });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        ...session,
        title: "Kraghammer, renamed",
        summary: "They meet Grog",
        session_date: "2015-03-13T20:00:00.000Z",
        index: 1,
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect((await gm.api.get(`/v1/sessions/${session.id}?with_links=true`)).body).toMatchObject({ title: "Kraghammer, renamed", summary: "They meet [[Grog]]", type: "chatVoice", notes: null, public: false });

      // Fields left out stay as they are (like PATCH, not a full replacement).
      const partial = await gm.api.put(`/v1/sessions/${session.id}`, { title: "Only the title" });
      expect(partial.status).toBe(200);
      expect(partial.body).toMatchObject({ title: "Only the title", summary: "They meet Grog", session_date: "2015-03-13T20:00:00.000Z" });

      const invalid = await gm.api.put(`/v1/sessions/${session.id}`, { session_date: "yesterday" });
      expect(invalid.status).toBe(422);
      expect(invalid.body).toEqual({ detail: [{ type: "string_format", loc: ["body", "session_date"], msg: "Expected string to match 'date-time' format", input: "yesterday" }] });
      for (const method of ["PUT", "PATCH"] as const)
        expect(await viewer.api.call(method, `/v1/sessions/${session.id}`, { title: "Mine" })).toMatchObject({ status: 403, body: { detail: "Write access denied for this campaign" } });
      expect(await gm.api.put("/v1/sessions/does-not-exist", { title: "x" })).toMatchObject({ status: 404, body: { detail: "Session not found" } });
      expect(await client(server.url).put(`/v1/sessions/${session.id}`, { title: "x" })).toMatchObject({ status: 401, body: { detail: "Invalid API key" } });
      // The other methods still say which ones exist.
      const post = await gm.api.post(`/v1/sessions/${session.id}`, {});
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")!.split(", ").sort()).toEqual(["GET", "OPTIONS", "PATCH", "PUT"]);
    });

    test("is documented in /openapi.json as its own operation with the PATCH body", async () => {
      const doc = (await client(server.url).get("/openapi.json")).body;
      const operations = doc.paths["/v1/sessions/{session_id}"];
      expect(operations.put.operationId).toBe("putSession");
      expect(operations.put.requestBody).toEqual(operations.patch.requestBody);
      expect(Object.keys(operations.put.requestBody.content["application/json"].schema.properties).sort()).toEqual(["session_date", "summary", "title"]);
      expect(operations.put.responses["200"]).toEqual(operations.patch.responses["200"]);
    });
  });

  describe("campaign archive", () => {
    test("new campaigns are active; PATCH archived true sets archived_at, false clears it; every read shape carries both", async () => {
      const campaign = await newCampaign("Shelf");
      expect(campaign).toMatchObject({ archived: false, archived_at: null });

      const archived = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: true });
      expect(archived.status).toBe(200);
      expect(archived.body).toEqual({ ...campaign, archived: true, archived_at: expect.stringMatching(ISO_MS), updated_at: expect.stringMatching(ISO_MS) });
      const at = archived.body.archived_at;
      expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
      expect(archived.body.updated_at).toBe(at);
      for (const path of [`/v1/campaigns/${campaign.id}`, `/v1/worlds/${campaign.id}`]) expect((await gm.api.get(path)).body).toEqual(archived.body);

      // Archiving again keeps the first time; the legacy route archives the same way.
      expect((await gm.api.patch(`/v1/worlds/${campaign.id}`, { archived: true })).body).toMatchObject({ archived: true, archived_at: at });

      const restored = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: false });
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ archived: false, archived_at: null, title: "Shelf" });
    });

    test("an explicit archived_at archives at that time, null unarchives; contradictions are 422", async () => {
      const campaign = await newCampaign("Imported");
      const dated = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived_at: "2024-12-24T18:00:00Z" });
      expect(dated.body).toMatchObject({ archived: true, archived_at: "2024-12-24T18:00:00.000Z" });
      expect((await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: true, archived_at: "2024-12-25T08:00:00+01:00" })).body).toMatchObject({ archived: true, archived_at: "2024-12-25T07:00:00.000Z" });
      expect((await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived_at: null })).body).toMatchObject({ archived: false, archived_at: null });

      const contradiction = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: false, archived_at: "2024-12-24T18:00:00Z", title: "Not applied" });
      expect(contradiction.status).toBe(422);
      expect(contradiction.body).toEqual({ detail: [{ type: "value_error", loc: ["body", "archived_at"], msg: "archived_at must be null when archived is false", input: "2024-12-24T18:00:00Z" }] });
      const other = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: true, archived_at: null });
      expect(other.body).toEqual({ detail: [{ type: "value_error", loc: ["body", "archived_at"], msg: "archived_at cannot be null when archived is true", input: null }] });
      const wrongType = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { archived: "yes" });
      expect(wrongType.status).toBe(422);
      expect(wrongType.body.detail[0]).toMatchObject({ type: "bool_type", loc: ["body", "archived"], msg: "Input should be a valid boolean" });
      // Nothing of a refused PATCH was written.
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}`)).body).toMatchObject({ title: "Imported", archived: false, archived_at: null });
    });

    test("only managers archive: a player member gets 403 and nothing changes", async () => {
      const campaign = await newCampaign("Guarded");
      const membership = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: viewer.id, role: "player" });
      expect(membership.status).toBe(201);
      expect(await viewer.api.patch(`/v1/campaigns/${campaign.id}`, { archived: true })).toMatchObject({ status: 403 });
      expect((await viewer.api.get(`/v1/campaigns/${campaign.id}`)).body).toMatchObject({ archived: false, archived_at: null });
    });

    test("lists show archived campaigns unless archived=false; archived=true shows only them; both families", async () => {
      const owner = await newUser(server.url, server.adminKey, "Lister");
      const ids: Record<string, string> = {};
      for (const title of ["One", "Two", "Three"]) ids[title] = (await owner.api.post("/v1/campaigns", { title })).body.id;
      expect((await owner.api.patch(`/v1/campaigns/${ids.Two}`, { archived: true })).status).toBe(200);
      for (const family of ["/v1/campaigns", "/v1/worlds"]) {
        const titles = async (query: string) => {
          const reply = await owner.api.get(`${family}${query}`);
          expect(reply.status).toBe(200);
          return [reply.body.total, reply.body.data.map((c: any) => [c.title, c.archived])];
        };
        expect(await titles("")).toEqual([3, [["Three", false], ["Two", true], ["One", false]]]);
        expect(await titles("?archived=true")).toEqual([1, [["Two", true]]]);
        expect(await titles("?archived=false")).toEqual([2, [["Three", false], ["One", false]]]);
        expect(await titles("?archived=false&search=thr")).toEqual([1, [["Three", false]]]);
        const bad = await owner.api.get(`${family}?archived=maybe`);
        expect(bad.status).toBe(422);
        expect(bad.body.detail[0]).toMatchObject({ type: "bool_type", loc: ["query", "archived"], input: "maybe" });
      }
    });
  });
});
