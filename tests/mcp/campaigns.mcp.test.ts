// MCP over streamable HTTP with the SDK's own client, against a real server process.
import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { EMBEDDED, serverWithUsers, type User } from "../support/backends.ts";
import { connectMcp, payload } from "../support/mcp.ts";
import type { TestServer } from "../support/server.ts";

const CAMPAIGN_TOOLS = ["list_campaigns", "get_campaign", "get_campaign_stats", "create_campaign", "update_campaign"];

const connect = connectMcp;


describe("MCP campaign tools", () => {
  let server: TestServer;
  let alice: User;
  let bob: User;
  let mcp: Client;

  serverWithUsers(EMBEDDED, ["Alice", "Bob"], async (fixture) => {
    ({ server, users: { Alice: alice, Bob: bob } } = fixture);
    mcp = await connect(server.url, alice.key);
    return () => mcp.close();
  });

  test("the server introduces itself and explains wikilinks", () => {
    expect(mcp.getServerVersion()?.name).toBe("campaign-memory-service");
    expect(mcp.getInstructions()).toContain("with_links");
  });

  test("tools/list: the five campaign tools with titles, closed-world hints and schemas", async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of CAMPAIGN_TOOLS) {
      const tool = byName.get(name);
      expect(tool).toBeDefined();
      expect(tool!.title).toBeString();
      expect(tool!.annotations?.title).toBe(tool!.title);
      expect(tool!.annotations?.openWorldHint).toBe(false);
      expect(tool!.description!.length).toBeGreaterThan(20);
      expect(tool!.inputSchema.type).toBe("object");
    }
    for (const name of ["list_campaigns", "get_campaign", "get_campaign_stats"]) {
      expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    }
    expect(byName.get("create_campaign")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("update_campaign")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("get_campaign")!.inputSchema.required).toEqual(["campaign_id"]);
    expect(byName.get("create_campaign")!.inputSchema.required).toEqual(["title"]);
    expect(Object.keys(byName.get("update_campaign")!.inputSchema.properties!)).toEqual(expect.arrayContaining(["campaign_id", "title", "description"]));
    // Not tools: campaign delete and every first-party operation.
    expect(byName.has("delete_campaign")).toBe(false);
    expect(tools.some((tool) => tool.name.includes("internal") || tool.name.includes("user"))).toBe(false);
  });

  test("calls give the same results as REST", async () => {
    const created = await mcp.callTool({ name: "create_campaign", arguments: { title: "Tal'Dorei", system: "5e" } });
    expect(created.isError).toBeFalsy();
    const campaign = payload(created);
    expect(created.structuredContent).toEqual(campaign);
    expect(campaign).toMatchObject({ title: "Tal'Dorei", system: "5e", owner_id: alice.id });

    const rest = await alice.api.get(`/v1/campaigns/${campaign.id}`);
    expect(payload(await mcp.callTool({ name: "get_campaign", arguments: { campaign_id: campaign.id } }))).toEqual(rest.body);

    const updated = payload(await mcp.callTool({ name: "update_campaign", arguments: { campaign_id: campaign.id, description: "A continent" } }));
    expect(updated).toEqual((await alice.api.get(`/v1/campaigns/${campaign.id}`)).body);
    expect(updated.description).toBe("A continent");

    const stats = payload(await mcp.callTool({ name: "get_campaign_stats", arguments: { campaign_id: campaign.id } }));
    expect(stats).toEqual((await alice.api.get(`/v1/campaigns/${campaign.id}/stats`)).body);

    const listed = payload(await mcp.callTool({ name: "list_campaigns", arguments: { size: 5 } }));
    expect(listed).toEqual((await alice.api.get(`/v1/campaigns?size=5`)).body);
  });

  test("errors come back as tool errors with the REST status and detail", async () => {
    const missing = await mcp.callTool({ name: "get_campaign", arguments: { campaign_id: "nope" } });
    expect(missing.isError).toBe(true);
    expect(payload(missing)).toEqual({ status: 404, detail: "Campaign not found" });

    const invalid = await mcp.callTool({ name: "create_campaign", arguments: { title: 7 } });
    expect(invalid.isError).toBe(true);
    expect(payload(invalid)).toMatchObject({ status: 422, detail: [{ type: "string_type", loc: ["body", "title"] }] });

    const badPage = await mcp.callTool({ name: "list_campaigns", arguments: { size: 1000 } });
    expect(payload(badPage)).toMatchObject({ status: 422, detail: [{ loc: ["query", "size"] }] });
  });

  test("another user's campaign is off limits through MCP too", async () => {
    const secret = (await alice.api.post("/v1/campaigns", { title: "Secret" })).body;
    const bobMcp = await connect(server.url, bob.key);
    try {
      const denied = await bobMcp.callTool({ name: "get_campaign", arguments: { campaign_id: secret.id } });
      expect(payload(denied)).toEqual({ status: 403, detail: "Access denied to this campaign" });
      const listed = payload(await bobMcp.callTool({ name: "list_campaigns", arguments: {} }));
      expect(listed.data.some((c: any) => c.id === secret.id)).toBe(false);
      const update = await bobMcp.callTool({ name: "update_campaign", arguments: { campaign_id: secret.id, title: "Mine" } });
      expect(payload(update).status).toBe(403);
    } finally {
      await bobMcp.close();
    }
  });

  test("no key or a wrong key: HTTP 401 with WWW-Authenticate: Bearer", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
    for (const headers of [{}, { authorization: "Bearer cms_wrongwrongwrongwrongwrongwrong" }] as Record<string, string>[]) {
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
      expect(await response.json()).toEqual({ detail: "Invalid API key" });
    }
    await expect(connect(server.url, "cms_wrongwrongwrongwrongwrongwrong")).rejects.toThrow();
  });
});
