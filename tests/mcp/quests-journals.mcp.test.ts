import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { User } from "../support/backends.ts";
import { mcpGameMaster, payload } from "../support/mcp.ts";

describe("MCP quest and journal tools", () => {
  let gm: User;
  let mcp: Client;
  let campaignId: string;

  mcpGameMaster("MCP quests", (fixture) => {
    ({ gm, mcp, campaignId } = fixture);
  });

  test("the quest, journal and folder tools are listed with their hints", async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const kind of ["quest", "journal", "journal_folder"]) {
      expect(byName.get(`list_${kind}s`)?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get(`get_${kind}`)?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get(`create_${kind}`)?.annotations?.readOnlyHint).toBe(false);
      expect(byName.get(`update_${kind}`)?.annotations?.readOnlyHint).toBe(false);
      expect(byName.get(`delete_${kind}`)?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true, openWorldHint: false });
    }
  });

  test("a quest made through MCP reads the same through REST; patch rules hold", async () => {
    const quest = payload(await mcp.callTool({ name: "create_quest", arguments: { campaign_id: campaignId, quest_name: "Save Emon", objectives: ["Find allies", { text: "Kill the dragon", status: "in-progress" }] } }));
    expect(quest.status).toBe("in-progress");
    expect((await gm.api.get(`/v1/quests/${quest.id}`)).body).toEqual(quest);
    const patched = payload(await mcp.callTool({ name: "update_quest", arguments: { quest_id: quest.id, status: "done" } }));
    expect(patched.status).toBe("done");
    const empty = await mcp.callTool({ name: "update_quest", arguments: { quest_id: quest.id, quest_name: " " } });
    expect(payload(empty)).toEqual({ status: 400, detail: "quest_name cannot be empty" });
  });

  test("journal entries and folders through MCP", async () => {
    const folder = payload(await mcp.callTool({ name: "create_journal_folder", arguments: { world_id: campaignId, name: "Lore", path: "/Lore/" } }));
    expect(folder).toEqual({ success: true, id: expect.any(String) });
    const created = payload(await mcp.callTool({ name: "create_journal", arguments: { world_id: campaignId, title: "Notes", content: "Emon stands", folder_id: folder.id } }));
    const viaMcp = payload(await mcp.callTool({ name: "get_journal", arguments: { entry_id: created.id } }));
    expect(viaMcp).toEqual((await gm.api.get(`/v1/journals/${created.id}`)).body);
    expect(viaMcp).toMatchObject({ content: "Emon stands", permission_level: "manage", folder_id: folder.id });
    const updated = payload(await mcp.callTool({ name: "update_journal", arguments: { id: created.id, title: "Renamed" } }));
    expect(updated).toEqual({ success: true, id: created.id });
    const folders = payload(await mcp.callTool({ name: "list_journal_folders", arguments: { campaign_id: campaignId } }));
    expect(folders.data[0].path).toBe("Lore");
    expect(payload(await mcp.callTool({ name: "delete_journal", arguments: { id: created.id } }))).toEqual({ success: true });
  });
});
