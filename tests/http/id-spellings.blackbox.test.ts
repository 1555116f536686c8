// Clients spell the campaign id four ways (the published examples and the MCP bridge send
// campaign_id to journal routes that the spec writes with world_id). Every spelling works everywhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newUser } from "../support/client.ts";
import { connectMcp, payload } from "../support/mcp.ts";
import { startServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let gm: Awaited<ReturnType<typeof newUser>>;
let campaignId: string;

beforeAll(async () => {
  server = await startServer();
  gm = await newUser(server.url, server.adminKey, "Matt");
  campaignId = (await gm.api.post("/v1/campaigns", { title: "Spellings" })).body.id;
});
afterAll(async () => {
  await server?.stop();
});

describe("campaign id spellings", () => {
  test.each(["campaign_id", "world_id", "campaignId", "worldId"])("POST /v1/journals with %s", async (spelling) => {
    const created = await gm.api.post("/v1/journals", { [spelling]: campaignId, title: `Entry via ${spelling}` });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, id: expect.any(String) });
    const entry = await gm.api.get(`/v1/journals/${created.body.id}`);
    expect(entry.body).toMatchObject({ campaign_id: campaignId, title: `Entry via ${spelling}` });
  });

  test.each(["campaign_id", "world_id", "campaignId", "worldId"])("POST /v1/journal-folders with %s", async (spelling) => {
    const created = await gm.api.post("/v1/journal-folders", { [spelling]: campaignId, name: spelling, path: `by/${spelling}` });
    expect(created.status).toBe(201);
    const folder = await gm.api.get(`/v1/journal-folders/${created.body.id}`);
    expect(folder.body).toMatchObject({ campaign_id: campaignId, name: spelling, path: `by/${spelling}` });
  });

  test.each(["campaign_id", "world_id", "campaignId", "worldId"])("POST /v1/characters and GET /v1/characters with %s", async (spelling) => {
    const created = await gm.api.post("/v1/characters", { [spelling]: campaignId, character_name: `Hero ${spelling}` });
    expect(created.status).toBe(201);
    expect(created.body.campaign_id).toBe(campaignId);
    const listed = await gm.api.get(`/v1/characters?${spelling}=${campaignId}&search=${encodeURIComponent(`Hero ${spelling}`)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { character_name: string }) => c.character_name)).toEqual([`Hero ${spelling}`]);
  });

  test("the declared spelling wins when two are sent", async () => {
    const other = (await gm.api.post("/v1/campaigns", { title: "Other" })).body.id;
    const created = await gm.api.post("/v1/journals", { world_id: campaignId, campaign_id: other, title: "Declared wins" });
    expect(created.status).toBe(201);
    expect((await gm.api.get(`/v1/journals/${created.body.id}`)).body.campaign_id).toBe(campaignId);
  });

  test("no spelling at all is still a 422 naming the declared field", async () => {
    const missing = await gm.api.post("/v1/journals", { title: "Nowhere" });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "world_id"], msg: "Field required", input: { title: "Nowhere" } }]);
  });

  test("MCP tools take the other spellings too", async () => {
    const mcp = await connectMcp(server.url, gm.key);
    try {
      const journal = await mcp.callTool({ name: "create_journal", arguments: { campaign_id: campaignId, title: "Via MCP" } });
      expect(journal.isError).toBeFalsy();
      expect(payload(journal)).toEqual({ success: true, id: expect.any(String) });
      const listed = await mcp.callTool({ name: "list_characters", arguments: { world_id: campaignId, search: "Hero campaign_id" } });
      expect(listed.isError).toBeFalsy();
      expect(payload(listed).data.map((c: { character_name: string }) => c.character_name)).toEqual(["Hero campaign_id"]);
    } finally {
      await mcp.close();
    }
  });
});
