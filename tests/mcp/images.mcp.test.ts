// The four image tools: listed with their hints, and an upload done through MCP (the bytes PUT
// with plain fetch to the URL the tool returned: MCP never carries image bytes).
import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import sharp from "sharp";
import type { User } from "../support/backends.ts";
import { jpegWithGps } from "../support/images.ts";
import { mcpGameMaster, payload } from "../support/mcp.ts";

describe("MCP image tools", () => {
  let gm: User;
  let mcp: Client;
  let campaignId: string;

  mcpGameMaster("MCP images", async (fixture) => {
    ({ gm, mcp, campaignId } = fixture);
  });

  test("the four image tools are listed with their hints; generation has no tool", async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("get_image_usage")!.annotations).toEqual({ title: "Get image generation usage", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(byName.get("init_image_upload")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(byName.get("complete_image_upload")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(byName.get("delete_entity_image")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect([...byName.keys()].filter((name) => /image/.test(name)).sort()).toEqual(["complete_image_upload", "delete_entity_image", "get_image_usage", "init_image_upload"]);
    expect(Object.keys(byName.get("complete_image_upload")!.inputSchema.properties!).sort()).toEqual(["attach", "campaign_id", "entity_id", "entity_type", "object_key"]);
  });

  test("init, PUT, complete (twice), usage and delete through the tools", async () => {
    const faction = (await gm.api.post("/v1/factions", { campaign_id: campaignId, name: "Clasp" })).body;
    const grant = payload(await mcp.callTool({ name: "init_image_upload", arguments: { campaign_id: campaignId, entity_type: "faction", entity_id: faction.id, file_name: "sigil.jpg", content_type: "image/jpeg" } }));
    expect(grant.expires_in_seconds).toBe(900);
    const put = await fetch(grant.upload_url, { method: "PUT", body: await jpegWithGps(), headers: { "content-type": "image/jpeg" } });
    expect(put.status).toBe(200);
    const args = { campaign_id: campaignId, object_key: grant.object_key, entity_type: "faction", entity_id: faction.id };
    const done = payload(await mcp.callTool({ name: "complete_image_upload", arguments: args }));
    expect(done).toEqual({ url: grant.public_url, attached: true });
    expect(payload(await mcp.callTool({ name: "complete_image_upload", arguments: args }))).toEqual(done);
    expect((await gm.api.get(`/v1/factions/${faction.id}`)).body.image).toBe(done.url);
    expect((await sharp(Buffer.from(await (await fetch(done.url)).arrayBuffer())).metadata()).exif).toBeUndefined();

    const usage = payload(await mcp.callTool({ name: "get_image_usage", arguments: { campaign_id: campaignId } }));
    expect(usage).toMatchObject({ used: 0, limit: 25, can_access: false, tier: "self-hosted" });
    expect(usage.billing_cycle_start).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);

    expect(payload(await mcp.callTool({ name: "delete_entity_image", arguments: { campaign_id: campaignId, entity_type: "faction", entity_id: faction.id } }))).toEqual({ removed: true });
    expect((await fetch(done.url)).status).toBe(404);
    const bad = await mcp.callTool({ name: "delete_entity_image", arguments: { campaign_id: campaignId, image_url: "https://example.com/x.png" } });
    expect(bad.isError).toBe(true);
    expect(payload(bad).status).toBe(422);
  });
});
