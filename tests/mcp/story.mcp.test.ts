import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { User } from "../support/backends.ts";
import { mcpGameMaster, payload } from "../support/mcp.ts";
import type { TestServer } from "../support/server.ts";

describe("MCP session and story tools", () => {
  let server: TestServer;
  let gm: User;
  let mcp: Client;
  let campaignId: string;
  let sessionId: string;

  mcpGameMaster("MCP story", async (fixture) => {
    ({ server, gm, mcp, campaignId } = fixture);
    const admin = fixture.admin;
    sessionId = (await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "Episode", session_date: "2015-03-12T19:00:00Z" })).body.id;
    await admin.call("POST", `/internal/v1/sessions/${sessionId}/transcript`, "Matt: Welcome.\nLaura: Hi!", { "content-type": "text/plain" });
  });

  test("every tool of the design is served; every one is closed-world with a title", async () => {
    const { tools } = await mcp.listTools();
    const names = new Set(tools.map((tool) => tool.name));
    for (const name of ["list_sessions", "get_session", "patch_session", "get_session_cast_analysis", "get_session_handout", "get_session_transcript"]) expect(names.has(name)).toBe(true);
    for (const kind of ["beat", "moment", "hero_award", "quote", "spotlight"]) {
      for (const verb of ["create", "update", "delete", "get"]) expect(names.has(`${verb}_${kind}`)).toBe(true);
      expect(names.has(`list_${kind}s`)).toBe(true);
    }
    expect(tools).toHaveLength(81);
    expect(tools.filter((t) => t.annotations?.readOnlyHint)).toHaveLength(35); // the design's 35 read tools
    expect(tools.every((t) => t.title && t.annotations?.openWorldHint === false)).toBe(true);
  });

  test("sessions, transcripts and analysis read the same as REST", async () => {
    const session = payload(await mcp.callTool({ name: "get_session", arguments: { session_id: sessionId } }));
    expect(session).toEqual((await gm.api.get(`/v1/sessions/${sessionId}`)).body);
    const transcript = payload(await mcp.callTool({ name: "get_session_transcript", arguments: { session_id: sessionId } }));
    expect(transcript.utterances.map((u: any) => u.speaker_label)).toEqual(["Matt", "Laura"]);
    const markdown = await mcp.callTool({ name: "get_session_transcript", arguments: { session_id: sessionId, format: "markdown" } });
    expect((markdown.content as any)[0].text).toStartWith("# Transcript: Episode");
    const analysis = payload(await mcp.callTool({ name: "get_session_cast_analysis", arguments: { session_id: sessionId } }));
    expect(analysis.analysis.coreSessionMetrics.totalLines).toBe(2);
    const patched = payload(await mcp.callTool({ name: "patch_session", arguments: { session_id: sessionId, title: "Renamed" } }));
    expect(patched.title).toBe("Renamed");
    const missing = await mcp.callTool({ name: "get_session_handout", arguments: { session_id: sessionId } });
    expect(payload(missing)).toEqual({ status: 404, detail: "Handout not found for this session" });
  });

  test("beats, moments and recap cards through MCP", async () => {
    const beat = payload(await mcp.callTool({ name: "create_beat", arguments: { campaign_id: campaignId, label: "Opening", type: "major", game_session_id: sessionId } }));
    const tree = payload(await mcp.callTool({ name: "list_beats", arguments: { session_id: sessionId, include_hierarchy: true } }));
    expect(tree[0].id).toBe(beat.id);
    const moment = payload(await mcp.callTool({ name: "create_moment", arguments: { campaign_id: campaignId, label: "The toast", categories: ["key-moment"] } }));
    expect((await gm.api.get(`/v1/moments/${moment.id}`)).body).toEqual(moment);
    const award = payload(await mcp.callTool({ name: "create_hero_award", arguments: { session_id: sessionId, title: "Best toast", description: "Raised a glass" } }));
    expect(award.style).toBe("verdant");
    const quote = payload(await mcp.callTool({ name: "create_quote", arguments: { session_id: sessionId, text: "Welcome." } }));
    const spotlight = payload(await mcp.callTool({ name: "create_spotlight", arguments: { session_id: sessionId, title: "Laura's hello", source_moment_id: moment.id } }));
    expect(spotlight.pipeline_id).toBe(quote.pipeline_id);
    expect(payload(await mcp.callTool({ name: "list_spotlights", arguments: { session_id: sessionId } })).data.map((s: any) => s.id)).toEqual([spotlight.id]);
    expect((await mcp.callTool({ name: "delete_beat", arguments: { beat_id: beat.id } })).isError).toBeFalsy();
  });
});
