// The SDK's own MCP client over streamable HTTP, with a key as bearer token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export async function connectMcp(baseUrl: string, key: string): Promise<Client> {
  const mcp = new Client({ name: "cms-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return mcp;
}

/** A tool result's JSON (the text content every tool answers with). */
export const payload = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text);
