// The MCP transport: a second interpreter of the operation table. Every SDK import lives in this file.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { authenticate } from "../../application/auth.ts";
import type { Deps } from "../../application/deps.ts";
// MCP rides on HTTP: a refused key or body is answered as an HTTP response.
import { failureResponse, jsonResponse } from "../http/app.ts";
import { resourceMetadataUrl } from "../http/oauth.ts";
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

  const resourceMetadata = resourceMetadataUrl(info.publicBaseUrl);
  return async (request: Request): Promise<Response> => {
    const presented = presentedKey(request.headers);
    const authenticated = await authenticate(deps, presented);
    // MCP authorization: the 401 tells an OAuth client where to start (RFC 9728 5.1).
    if (!authenticated.ok)
      return failureResponse(authenticated.error, {
        "www-authenticate": `Bearer resource_metadata="${resourceMetadata}"${presented ? `, error="invalid_token", error_description="The access token or API key is not valid"` : ""}`,
      });
    const caller = authenticated.value;
    // The SDK reads the whole body itself: read it first, within the largest JSON route's limit.
    try {
      request = await boundedRequest(request, MCP_BODY_LIMIT);
    } catch (error) {
      if (error instanceof BodyRejected) return error.response();
      throw error;
    }
    // A token without a tool's scope is refused at the HTTP level, as the MCP authorization spec
    // asks, so the client can step up; the challenge names what it holds plus what it lacks.
    if (caller.profile === "agent") {
      const lacking = await lackingScope(request, byName, caller.scopes);
      if (lacking) {
        const wanted = [...new Set([...caller.scopes, lacking.scope])].join(" ");
        const detail = `Insufficient scope: the tool ${lacking.tool} needs the ${lacking.scope} scope, which this token was not granted`;
        return jsonResponse(403, { detail }, {
          "www-authenticate": `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${resourceMetadata}", error_description="${detail}"`,
        });
      }
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

/** The first tool call in a JSON-RPC message (or batch) whose tool needs a scope the token lacks. */
async function lackingScope(request: Request, byName: Map<string, Operation>, scopes: readonly string[]): Promise<{ tool: string; scope: string } | null> {
  let message: unknown;
  try {
    message = await request.clone().json();
  } catch {
    return null; // the SDK answers the parse error
  }
  for (const item of Array.isArray(message) ? message : [message]) {
    const call = item as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== "tools/call" || typeof call.params?.name !== "string") continue;
    const scope = byName.get(call.params.name)?.access.scope;
    if (scope && !scopes.includes(scope)) return { tool: call.params.name, scope };
  }
  return null;
}
