// Clients spell the campaign id four ways (the published examples and the MCP bridge send
// campaign_id to journal routes that the spec writes with world_id). Every spelling works everywhere.
import { describe, expect, test } from "bun:test";
import { EMBEDDED, serverWithUsers, type User } from "../support/backends.ts";
import { client } from "../support/client.ts";
import { connectMcp, payload } from "../support/mcp.ts";
import type { TestServer } from "../support/server.ts";

let server: TestServer;
let gm: User;
let campaignId: string;

serverWithUsers(EMBEDDED, ["Matt"], async (fixture) => {
  ({ server, users: { Matt: gm } } = fixture);
  campaignId = (await gm.api.post("/v1/campaigns", { title: "Spellings" })).body.id;
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

  test("dates without a zone, or bare dates, are read as UTC (archivist-sync sends `${date}T00:00:00`)", async () => {
    const sessionId = (await client(server.url, server.adminKey).post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "S", session_date: "2024-01-05T19:00:00" })).body.id;
    expect((await gm.api.get(`/v1/sessions/${sessionId}`)).body.session_date).toBe("2024-01-05T19:00:00.000Z");
    for (const [sent, stored] of [["2024-01-06T00:00:00", "2024-01-06T00:00:00.000Z"], ["2024-01-07", "2024-01-07T00:00:00.000Z"], ["2024-01-08T10:30", "2024-01-08T10:30:00.000Z"], ["2024-01-09T01:00:00+02:00", "2024-01-08T23:00:00.000Z"]]) {
      const patched = await gm.api.patch(`/v1/sessions/${sessionId}`, { session_date: sent });
      expect({ sent, status: patched.status, stored: patched.body.session_date }).toEqual({ sent, status: 200, stored });
    }
    const wrong = await gm.api.patch(`/v1/sessions/${sessionId}`, { session_date: "2024-13-45" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(["body", "session_date"]);
  });

  test("discordVoice, the live service's name for a voice-chat session, is read as chatVoice", async () => {
    const admin = client(server.url, server.adminKey);
    const created = await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "discordVoice", title: "Voice", session_date: "2024-02-01T19:00:00Z" });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe("chatVoice");
    const listed = await gm.api.get(`/v1/sessions?campaign_id=${campaignId}&session_type=discordVoice`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { title: string; type: string }) => [s.title, s.type])).toEqual([["Voice", "chatVoice"], ["S", "chatVoice"]]);
    expect((await gm.api.get(`/v1/sessions?campaign_id=${campaignId}&session_type=skypeVoice`)).status).toBe(422);
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
