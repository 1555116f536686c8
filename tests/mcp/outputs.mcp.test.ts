// Strict MCP clients reject a result whose structuredContent does not match the tool's own
// outputSchema. tests/support/mcp.ts checks every callTool with Ajv; this suite makes sure every
// tool with an outputSchema is called at least once, on records with their optional parts filled.
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { User } from "../support/backends.ts";
import { mcpGameMaster, payload } from "../support/mcp.ts";
import type { TestServer } from "../support/server.ts";

describe("MCP tool results match their output schemas", () => {
  let server: TestServer;
  let gm: User;
  let mcp: Client;
  let campaignId: string;
  let sessionId: string;
  const called = new Set<string>();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${(result.content as { text: string }[])[0]!.text}`);
    called.add(name);
    return payload(result);
  };

  mcpGameMaster("MCP outputs", async (fixture) => {
    ({ server, gm, mcp, campaignId } = fixture);
    const admin = fixture.admin;
    sessionId = (await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "Episode 1", session_date: "2015-03-12T19:00:00Z" })).body.id;
    await admin.call("POST", `/internal/v1/sessions/${sessionId}/transcript`, "Matt: Welcome to Emon.\nLaura: Vex looks for the bow.", { "content-type": "text/plain" });
    expect((await admin.post(`/internal/v1/sessions/${sessionId}/handout`)).status).toBe(201);
  });

  test("get_session with include_beats and include_moments: nested beats carry game_session_id", async () => {
    const major = await call("create_beat", { campaign_id: campaignId, label: "Arrival", type: "major", game_session_id: sessionId, metadata: { act: 1 } });
    const minor = await call("create_beat", { campaign_id: campaignId, label: "The gate", type: "minor", game_session_id: sessionId, parent_id: major.id, description: "At [[Emon]]" });
    const moment = await call("create_moment", { campaign_id: campaignId, session_id: sessionId, label: "The toast", content: "Cheers", categories: ["key-moment"], style: "ember" });
    const detail = await call("get_session", { session_id: sessionId, include_beats: true, include_moments: true, with_links: true });
    expect(detail.id).toBe(sessionId);
    const beats = [...detail.beats].sort((a: any, b: any) => a.label.localeCompare(b.label));
    expect(beats.map((b: any) => [b.id, b.game_session_id, b.game_session_ids, b.parent_id])).toEqual([
      [major.id, sessionId, [sessionId], null],
      [minor.id, sessionId, [sessionId], major.id],
    ]);
    expect(beats[1].description).toBe("At [[Emon]]");
    expect(detail.moments.map((m: any) => [m.id, m.session_id, m.metadata])).toEqual([[moment.id, sessionId, { style: "ember" }]]);
    // The same answer over REST (same operation), whose own response schema the client checks.
    const rest = await gm.api.get(`/v1/sessions/${sessionId}?include_beats=true&include_moments=true&with_links=true`);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual(detail);
    // Without the flags both are null, as the contract says.
    expect(await call("get_session", { session_id: sessionId })).toMatchObject({ beats: null, moments: null });
  });

  test("campaign archive through MCP: update_campaign and list_campaigns take it from the table", async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("update_campaign")!.inputSchema.properties).toMatchObject({ archived: { type: "boolean" }, archived_at: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] } });
    expect(byName.get("list_campaigns")!.inputSchema.properties).toMatchObject({ archived: { type: "boolean" } });
    expect(byName.get("list_campaigns")!.inputSchema.required).toBeUndefined();

    const shelved = await call("create_campaign", { title: "Shelved through MCP" });
    expect(shelved).toMatchObject({ archived: false, archived_at: null });
    const archived = await call("update_campaign", { campaign_id: shelved.id, archived: true });
    expect(archived).toMatchObject({ id: shelved.id, archived: true, archived_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    expect(await call("get_campaign", { campaign_id: shelved.id })).toEqual(archived);
    const titles = async (args: Record<string, unknown>) => (await call("list_campaigns", args)).data.map((c: any) => c.title);
    expect(await titles({ archived: true })).toEqual(["Shelved through MCP"]);
    expect(await titles({ archived: false })).not.toContain("Shelved through MCP");
    expect(await titles({})).toContain("Shelved through MCP");
    const refused = await mcp.callTool({ name: "update_campaign", arguments: { campaign_id: shelved.id, archived: false, archived_at: "2024-01-01T00:00:00Z" } });
    expect(refused.isError).toBe(true);
    expect(payload(refused)).toEqual({ status: 422, detail: [{ type: "value_error", loc: ["body", "archived_at"], msg: "archived_at must be null when archived is false", input: "2024-01-01T00:00:00Z" }] });
  });

  test("every tool with an outputSchema, called once on filled-in records", async () => {
    // Campaigns.
    await call("list_campaigns", {});
    const campaign = await call("create_campaign", { title: "Second", description: "d", system: "D&D 5e" });
    await call("get_campaign", { campaign_id: campaign.id });
    await call("update_campaign", { campaign_id: campaign.id, summary: "s", image: "https://example.com/a.png", mature: true });
    await call("get_campaign_stats", { campaign_id: campaignId });
    // Compendium.
    const vex = await call("create_character", { campaign_id: campaignId, character_name: "Vex", character_aliases: ["Vex'ahlia"], type: "PC", description: "Ranger of [[Emon]]" });
    await call("get_character", { character_id: vex.id, with_links: true });
    await call("update_character", { character_id: vex.id, backstory: "Twin" });
    await call("list_characters", { campaign_id: campaignId });
    await call("list_characters", { campaign_id: campaignId, fields: "card" });
    const ids: Record<string, string> = {};
    for (const kind of ["faction", "location", "item"]) {
      const made = await call(`create_${kind}`, { campaign_id: campaignId, name: `A ${kind}`, aliases: ["x"], type: "t" });
      ids[kind] = made.id;
      await call(`get_${kind}`, { [`${kind}_id`]: made.id });
      await call(`update_${kind}`, { [`${kind}_id`]: made.id, description: "More" });
      await call(`list_${kind}s`, { campaign_id: campaignId });
      await call(`list_${kind}s`, { campaign_id: campaignId, fields: "card" });
    }
    const link = await call("create_link", { campaign_id: campaignId, from_id: vex.id, from_type: "Character", to_id: ids.faction, to_type: "Faction", alias: "Guild" });
    await call("update_link", { campaign_id: campaignId, link_id: link.id, alias: "The guild" });
    await call("list_links", { campaign_id: campaignId });
    await call("bulk_link_maintenance", { operation: "add", campaign_id: campaignId, target_id: vex.id, target_type: "Character" });
    // Quests and journals.
    const quest = await call("create_quest", { campaign_id: campaignId, quest_name: "Save Emon", quest_giver: "Vex", objectives: ["Find allies"], progress_log: [{ text: "Met", session_id: sessionId }], related_entity_refs: [{ entity_type: "character", entity_id: vex.id }] });
    await call("get_quest", { quest_id: quest.id });
    await call("update_quest", { quest_id: quest.id, status: "done" });
    await call("list_quests", { campaign_id: campaignId });
    const folder = await call("create_journal_folder", { world_id: campaignId, name: "Lore", path: "Lore" });
    await call("get_journal_folder", { folder_id: folder.id });
    await call("update_journal_folder", { id: folder.id, description: "All of it" });
    await call("list_journal_folders", { campaign_id: campaignId });
    const entry = await call("create_journal", { world_id: campaignId, title: "Notes", content: "Emon stands", folder_id: folder.id, tags: ["a"] });
    await call("get_journal", { entry_id: entry.id });
    await call("update_journal", { id: entry.id, status: "published" });
    await call("list_journals", { campaign_id: campaignId });
    await call("list_journals", { campaign_id: campaignId, fields: "card" });
    await call("delete_journal", { id: entry.id });
    await call("delete_journal_folder", { id: folder.id });
    // Sessions and the story.
    await call("list_sessions", { campaign_id: campaignId });
    await call("patch_session", { session_id: sessionId, summary: "They arrive" });
    await call("get_session_cast_analysis", { session_id: sessionId });
    await call("get_session_handout", { session_id: sessionId });
    const beat = await call("create_beat", { campaign_id: campaignId, label: "Later", type: "step" });
    await call("get_beat", { beat_id: beat.id });
    await call("update_beat", { beat_id: beat.id, metadata: { mood: "grim" } });
    const moment = await call("create_moment", { campaign_id: campaignId, label: "Bow", customTheme: { accent: "#ff0000" }, variant: "portrait" });
    await call("get_moment", { moment_id: moment.id });
    await call("update_moment", { moment_id: moment.id, index: 3 });
    await call("list_moments", { campaign_id: campaignId });
    await call("list_moments", { campaign_id: campaignId, fields: "card" });
    const award = await call("create_hero_award", { session_id: sessionId, title: "Best shot", description: "One arrow", character_name: "Vex", custom_theme: { accent: "#00ff00" } });
    await call("get_hero_award", { award_id: award.id });
    await call("update_hero_award", { award_id: award.id, order_index: 2 });
    await call("list_hero_awards", { session_id: sessionId });
    const quote = await call("create_quote", { session_id: sessionId, text: "Welcome.", speaker: "Matt" });
    await call("get_quote", { quote_id: quote.id });
    await call("update_quote", { quote_id: quote.id, context: "Opening" });
    await call("list_quotes", { session_id: sessionId });
    const spotlight = await call("create_spotlight", { session_id: sessionId, title: "Hello", source_moment_id: moment.id });
    await call("get_spotlight", { spotlight_id: spotlight.id });
    await call("update_spotlight", { spotlight_id: spotlight.id, description: "Said hi" });
    await call("list_spotlights", { session_id: sessionId });
    // Ask (offline): an answer with citations, checked against its output schema like the rest.
    const answer = await call("ask_campaign", { campaign_id: campaignId, messages: [{ role: "user", content: "Who is Vex, the ranger of Emon?" }] });
    expect(answer.citations.length).toBeGreaterThan(0);

    // Images: a real upload of a small PNG, so complete_image_upload answers with its own output.
    const grant = await call("init_image_upload", { campaign_id: campaignId, entity_type: "character", entity_id: vex.id, file_name: "vex.png", content_type: "image/png" });
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } }).png().toBuffer();
    expect((await fetch(grant.upload_url, { method: "PUT", body: png, headers: { "content-type": "image/png" } })).status).toBe(200);
    const uploaded = await call("complete_image_upload", { campaign_id: campaignId, object_key: grant.object_key, entity_type: "character", entity_id: vex.id });
    expect(uploaded).toEqual({ url: grant.public_url, attached: true });
    await call("get_image_usage", { campaign_id: campaignId });
    expect(await call("delete_entity_image", { campaign_id: campaignId, entity_type: "character", entity_id: vex.id })).toEqual({ removed: true });

    const { tools } = await mcp.listTools();
    const withOutput = tools.filter((tool) => tool.outputSchema).map((tool) => tool.name);
    expect(withOutput.filter((name) => !called.has(name))).toEqual([]);
  });
});
