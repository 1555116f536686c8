// The SDK's own MCP client over streamable HTTP, with a key as bearer token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ValidateFunction } from "ajv";
import { EMBEDDED, serverWithUsers, type User } from "./backends.ts";
import type { Client as TestClient } from "./client.ts";
import { describeErrors, schemaValidator } from "./jsonschema.ts";
import type { TestServer } from "./server.ts";

/**
 * Every tool's schemas, compiled by a standard validator (so each must be self-contained), and a
 * `callTool` that checks each successful result's `structuredContent` against the tool's
 * advertised `outputSchema`, as strict MCP clients do. Every suite's calls are checked this way.
 */
async function checkOutputs(mcp: Client) {
  const ajv = schemaValidator();
  const outputs = new Map<string, ValidateFunction>();
  for (const tool of (await mcp.listTools()).tools) {
    try {
      ajv.compile(tool.inputSchema);
      if (tool.outputSchema) outputs.set(tool.name, ajv.compile(tool.outputSchema));
    } catch (error) {
      throw new Error(`tool ${tool.name}: its schema does not compile: ${(error as Error).message}`);
    }
  }
  const callTool = mcp.callTool.bind(mcp);
  mcp.callTool = (async (...args: Parameters<Client["callTool"]>) => {
    const result = await callTool(...args);
    const name = args[0].name;
    const validate = outputs.get(name);
    if (!validate || result.isError) return result;
    if (!result.structuredContent) throw new Error(`tool ${name} has an outputSchema but answered without structuredContent`);
    if (!validate(result.structuredContent)) throw new Error(`tool ${name}: structuredContent does not match its outputSchema: ${describeErrors(validate)}`);
    const text = (result.content as { type: string; text?: string }[])[0]?.text;
    if (JSON.stringify(JSON.parse(text ?? "null")) !== JSON.stringify(result.structuredContent)) throw new Error(`tool ${name}: text and structuredContent differ`);
    return result;
  }) as Client["callTool"];
}

export async function connectMcp(baseUrl: string, key: string): Promise<Client> {
  const mcp = new Client({ name: "cms-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  await checkOutputs(mcp);
  return mcp;
}

/** A tool result's JSON (the text content every tool answers with). */
export const payload = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text);

export interface McpGameMaster {
  server: TestServer;
  admin: TestClient;
  gm: User;
  mcp: Client;
  campaignId: string;
}

/**
 * What the MCP suites start from, for the enclosing describe block: a server on the embedded
 * database, a game master with a key, their MCP client and a campaign; closed after the block.
 */
export function mcpGameMaster(campaignTitle: string, ready: (fixture: McpGameMaster) => Promise<void> | void): void {
  serverWithUsers(EMBEDDED, ["Matt"], async ({ server, admin, users: { Matt: gm } }) => {
    const mcp = await connectMcp(server.url, gm.key);
    const campaignId: string = (await gm.api.post("/v1/campaigns", { title: campaignTitle })).body.id;
    await ready({ server, admin, gm, mcp, campaignId });
    return () => mcp.close();
  });
}
