// The MCP transport: a second interpreter of the operation table. Every SDK import lives in this file.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { authenticate } from "../../application/auth.ts";
import type { Deps } from "../../application/deps.ts";
// MCP rides on HTTP: a refused key or body is answered as an HTTP response.
import { failureResponse } from "../http/app.ts";
import { BodyRejected, boundedRequest } from "../http/body.ts";
import { presentedKey } from "../shared/credentials.ts";
import { bodyOf, STATUS_OF } from "../shared/failures.ts";
import { selfContainedSchema } from "../shared/json-schema.ts";
import { BODY_LIMITS, flatInputSchema, invoke, RawResponse, splitFlatInput, type Operation, type ServiceInfo } from "../operations/operation.ts";

export const MCP_INSTRUCTIONS = `Campaign Memory Service: the memory of tabletop role-playing campaigns (campaigns, characters, sessions, beats, key moments, quests, factions, locations, items, journals).
Start with list_campaigns to find the campaign_id every other tool needs.
Text fields may hold wikilinks: [[Target]] or [[Target|shown text]]. Reads strip them to the shown text unless you pass with_links: true; read with with_links: true before editing text that contains wikilinks, so you do not erase them.`;

/** A tool call carries what the matching REST route takes; journal entries are the largest. */
export const MCP_BODY_LIMIT = BODY_LIMITS.journal;

/** Tools as MCP lists them; a pure function of the table, so tests can compare it to OpenAPI. */
export function toolsOf(operations: readonly Operation[]): Tool[] {
  return operations
    .filter((operation) => operation.mcp && !operation.internal)
    .map((operation) => {
      const mcp = operation.mcp!;
      const output = operation.output && mcp.structuredOutput !== false ? selfContainedSchema(operation.output) : undefined;
      return {
        name: mcp.name,
        title: mcp.title,
        description: operation.description,
        inputSchema: selfContainedSchema(flatInputSchema(operation)) as Tool["inputSchema"],
        ...(output?.type === "object" ? { outputSchema: output as Tool["outputSchema"] } : {}),
        annotations: {
          title: mcp.title,
          readOnlyHint: mcp.readOnly,
          destructiveHint: mcp.readOnly ? false : (mcp.destructive ?? false),
          idempotentHint: mcp.readOnly ? true : (mcp.idempotent ?? false),
          openWorldHint: false,
        },
      };
    });
}

export function mcpEndpoint({ deps, info, operations }: { deps: Deps; info: ServiceInfo; operations: readonly Operation[] }) {
  const tools = toolsOf(operations);
  const byName = new Map(operations.filter((op) => op.mcp && !op.internal).map((op) => [op.mcp!.name, op]));
  const withStructuredOutput = new Set(tools.filter((tool) => tool.outputSchema).map((tool) => tool.name));
  const context = { deps, info };

  return async (request: Request): Promise<Response> => {
    const authenticated = await authenticate(deps, presentedKey(request.headers));
    if (!authenticated.ok) return failureResponse(authenticated.error);
    const caller = authenticated.value;
    // The SDK reads the whole body itself: read it first, within the largest JSON route's limit.
    try {
      request = await boundedRequest(request, MCP_BODY_LIMIT);
    } catch (error) {
      if (error instanceof BodyRejected) return error.response();
      throw error;
    }

    // Stateless: a fresh server and transport per HTTP request, so any instance can answer any call.
    const server = new Server({ name: info.name, version: info.version }, { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const operation = byName.get(call.params.name);
      if (!operation) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`);
      const args = (call.params.arguments ?? {}) as Record<string, unknown>;
      // The key was checked above; the standing in the tool's campaign is resolved by invoke(), as on REST.
      const result = await invoke(operation, context, { caller }, splitFlatInput(operation, args));
      if (!result.ok) {
        const error = { status: STATUS_OF[result.error.failure], ...bodyOf(result.error) };
        return { isError: true, content: [{ type: "text", text: JSON.stringify(error) }] };
      }
      if (result.value instanceof RawResponse)
        return { content: [{ type: "text", text: typeof result.value.body === "string" ? result.value.body : `(${result.value.contentType}${result.value.body instanceof Uint8Array ? `, ${result.value.body.length} bytes` : ", streamed: REST only"})` }] };
      const value = result.value ?? { success: true };
      return {
        content: [{ type: "text", text: JSON.stringify(value) }],
        ...(withStructuredOutput.has(operation.mcp!.name) ? { structuredContent: value as Record<string, unknown> } : {}),
      };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}
