// The SDK's own MCP client over streamable HTTP, with a key as bearer token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { newUser } from "./client.ts";
import { startServer } from "./server.ts";

export async function connectMcp(baseUrl: string, key: string): Promise<Client> {
  const mcp = new Client({ name: "cms-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return mcp;
}

/** A tool result's JSON (the text content every tool answers with). */
export const payload = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text);

/** What the MCP suites start from: a server, a game master with a key, their MCP client, a campaign. */
export async function mcpGameMaster(campaignTitle: string) {
  const server = await startServer();
  const gm = await newUser(server.url, server.adminKey, "Matt");
  const mcp = await connectMcp(server.url, gm.key);
  const campaignId: string = (await gm.api.post("/v1/campaigns", { title: campaignTitle })).body.id;
  const close = async () => {
    await mcp.close();
    await server.stop();
  };
  return { server, gm, mcp, campaignId, close };
}
