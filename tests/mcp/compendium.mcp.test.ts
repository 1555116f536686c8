import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { User } from "../support/backends.ts";
import { mcpGameMaster, payload } from "../support/mcp.ts";
import { expectRefused } from "../support/refusals.ts";

describe("MCP compendium tools", () => {
  let gm: User;
  let mcp: Client;
  let campaignId: string;

  mcpGameMaster("MCP compendium", (fixture) => {
    ({ gm, mcp, campaignId } = fixture);
  });

  test("tools/list shows every compendium and link tool with the right hints", async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const kind of ["character", "faction", "location", "item"]) {
      const plural = `${kind}s`;
      expect(byName.get(`list_${plural}`)?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(byName.get(`get_${kind}`)?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get(`create_${kind}`)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(byName.get(`update_${kind}`)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(byName.get(`delete_${kind}`)?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      expect(byName.get(`get_${kind}`)?.inputSchema.properties).toHaveProperty("with_links");
    }
    for (const name of ["list_links", "create_link", "update_link", "delete_link", "bulk_link_maintenance"]) expect(byName.has(name)).toBe(true);
    expect(byName.get("delete_link")?.annotations?.destructiveHint).toBe(true);
    expect(tools.every((tool) => tool.title && tool.annotations?.openWorldHint === false)).toBe(true);
  });

  test("create through MCP, read through REST: the same record; wikilinks behave the same", async () => {
    const mira = payload(await mcp.callTool({ name: "create_character", arguments: { campaign_id: campaignId, character_name: "Mira", type: "NPC" } }));
    const created = await mcp.callTool({ name: "create_character", arguments: { campaign_id: campaignId, character_name: "Dockhand", description: "Met [[Mira]] at the docks" } });
    expect(created.isError).toBeFalsy();
    const viaMcp = payload(created);
    expect(viaMcp.description).toBe("Met Mira at the docks");
    const viaRest = await gm.api.get(`/v1/characters/${viaMcp.id}`);
    expect(viaRest.body).toEqual(viaMcp);
    const withLinks = payload(await mcp.callTool({ name: "get_character", arguments: { character_id: viaMcp.id, with_links: true } }));
    expect(withLinks.description).toBe("Met [[Mira]] at the docks");
    const links = payload(await mcp.callTool({ name: "list_links", arguments: { campaign_id: campaignId, from_id: viaMcp.id } }));
    expect(links.data[0]).toMatchObject({ to_id: mira.id, alias: "Mira" });

    const place = payload(await mcp.callTool({ name: "create_location", arguments: { campaign_id: campaignId, name: "Emon", type: "city" } }));
    expect((await gm.api.get(`/v1/locations/${place.id}`)).body).toEqual(place);
    const listed = await mcp.callTool({ name: "list_locations", arguments: { campaign_id: campaignId, fields: "card" } });
    expect(listed.structuredContent).toEqual((await gm.api.get(`/v1/locations?campaign_id=${campaignId}&fields=card`)).body);

    const task = payload(await mcp.callTool({ name: "bulk_link_maintenance", arguments: { operation: "add", campaign_id: campaignId, target_id: place.id, target_type: "Location" } }));
    expect(task).toMatchObject({ success: true, task_id: expect.any(String) });

    const removed = await mcp.callTool({ name: "delete_location", arguments: { location_id: place.id } });
    expect(removed.isError).toBeFalsy();
    expectRefused(await gm.api.get(`/v1/locations/${place.id}`), 404, "Location not found");
  });
});
