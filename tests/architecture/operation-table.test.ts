// Walks the operation table: every operation is routed, documented, listed as a tool with the same
// schema, guarded by auth, and fails the same way on both transports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openApiDocument } from "../../adapters/http/openapi.ts";
import { toolsOf } from "../../adapters/mcp/server.ts";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import { flatInputSchema, routesOf, type Operation } from "../../adapters/operations/operation.ts";
import { inProcessService } from "../support/inprocess.ts";

// DESIGN section 10: the 81 tools the finished service offers. Every tool we list must be one of them.
const DOCUMENTED_TOOLS = new Set(
  `list_campaigns get_campaign get_campaign_stats ask_campaign list_characters get_character list_sessions get_session
   get_session_cast_analysis get_session_handout get_session_transcript list_beats get_beat list_moments get_moment
   list_hero_awards get_hero_award list_quotes get_quote list_spotlights get_spotlight list_factions get_faction
   list_locations get_location list_items get_item list_quests get_quest list_journals get_journal list_journal_folders
   get_journal_folder list_links get_image_usage create_campaign update_campaign patch_session
   ${["beat", "moment", "hero_award", "quote", "spotlight", "character", "faction", "location", "item", "quest", "journal", "journal_folder"]
     .flatMap((kind) => [`create_${kind}`, `update_${kind}`, `delete_${kind}`])
     .join(" ")}
   create_link update_link delete_link bulk_link_maintenance init_image_upload complete_image_upload delete_entity_image`
    .split(/\s+/)
    .filter(Boolean),
);

const fillPath = (path: string) => path.replace(/\{[^}]+\}/g, "00000000-0000-7000-8000-000000000000");
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

let service: Awaited<ReturnType<typeof inProcessService>>;
let userKey: string;

beforeAll(async () => {
  service = await inProcessService();
  const user = await (await service.request("POST", "/internal/v1/users", { key: service.adminKey, body: { name: "T", email: "t@example.test" } })).json();
  userKey = (await (await service.request("POST", `/internal/v1/users/${user.id}/keys`, { key: service.adminKey, body: {} })).json()).key;
});
afterAll(() => service?.close());

const mcpCall = async (name: string, args: Record<string, unknown>, key = userKey) => {
  const response = await service.request("POST", "/mcp", {
    key,
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
  const message = await response.json();
  const result = message.result;
  return { isError: Boolean(result.isError), payload: JSON.parse(result.content[0].text) };
};

describe("the operation table", () => {
  test("ids, routes and tool names are unique", () => {
    const ids = OPERATIONS.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    const routes = OPERATIONS.flatMap((op) => (op.http ? routesOf(op.http).map(({ method, path }) => `${method} ${path}`) : []));
    expect(new Set(routes).size).toBe(routes.length);
    const tools = OPERATIONS.flatMap((op) => (op.mcp ? [op.mcp.name] : []));
    expect(new Set(tools).size).toBe(tools.length);
  });

  test("every MCP tool is one the design names, and internal operations are never tools", () => {
    for (const op of OPERATIONS) {
      if (op.mcp) expect(DOCUMENTED_TOOLS.has(op.mcp.name)).toBe(true);
      if (op.internal) expect(op.mcp).toBeUndefined();
      if (op.internal) expect(op.auth).toBe("first_party");
    }
  });

  for (const op of OPERATIONS) {
    describe(op.id, () => {
      test("is routed on every path it declares", async () => {
        expect(op.http).toBeDefined();
        for (const { method, path } of routesOf(op.http!)) {
          const response = await service.request(method, fillPath(path), method === "GET" || method === "DELETE" ? {} : { body: {} });
          if (op.auth === "none") expect(response.status).toBe(200);
          else {
            // A missing key is refused before anything else happens.
            expect(response.status).toBe(401);
            expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
            expect(await response.json()).toEqual({ detail: "Invalid API key" });
          }
        }
      });

      test(op.internal ? "is hidden from OpenAPI" : "is in OpenAPI with its parameters and body", () => {
        const doc = openApiDocument(OPERATIONS, service.info) as any;
        const entry = doc.paths[op.http!.path]?.[op.http!.method.toLowerCase()];
        if (op.internal) {
          expect(entry).toBeUndefined();
          return;
        }
        expect(entry.operationId).toBe(op.id);
        expect(entry.description).toBe(op.description);
        const documentedInputs: Record<string, unknown> = {};
        for (const parameter of entry.parameters) documentedInputs[parameter.name] = parameter.schema;
        Object.assign(documentedInputs, entry.requestBody?.content["application/json"].schema.properties ?? {});
        expect(documentedInputs).toEqual(plain(flatInputSchema(op).properties));
        expect(Object.keys(entry.responses)).toContain(String(op.http!.status));
        if (op.auth !== "none") expect(Object.keys(entry.responses)).toContain("401");
        for (const { method, path, alias } of routesOf(op.http!)) {
          const aliased = doc.paths[path][method.toLowerCase()];
          if (alias && typeof alias !== "string") expect(aliased.operationId).toBe(alias.operationId);
          expect(aliased.requestBody).toEqual(entry.requestBody);
          expect(aliased.responses).toEqual(entry.responses);
        }
      });

      if (op.mcp) {
        test("is an MCP tool with the same input schema and description", () => {
          const tool = toolsOf(OPERATIONS).find((t) => t.name === op.mcp!.name)!;
          expect(tool).toBeDefined();
          expect(tool.inputSchema).toEqual(plain(flatInputSchema(op)));
          expect(tool.description).toBe(op.description);
          expect(tool.annotations).toMatchObject({ title: op.mcp!.title, openWorldHint: false, readOnlyHint: op.mcp!.readOnly });
          if (op.http!.method === "DELETE") expect(tool.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
          if (op.mcp!.readOnly) expect(op.http!.method).toBe("GET");
        });

        test("answers the same on both transports (same status and body for the same input)", async () => {
          const inputs: Record<string, unknown>[] = [{}, { campaign_id: "does-not-exist" }, { campaign_id: "does-not-exist", title: 5, page: 0 }];
          for (const args of inputs) {
            const viaMcp = await mcpCall(op.mcp!.name, args);
            let path = op.http!.path;
            const query = new URLSearchParams();
            const body: Record<string, unknown> = {};
            for (const [name, value] of Object.entries(args)) {
              if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, String(value));
              else if (op.input.query?.properties[name]) query.set(name, String(value));
              else body[name] = value;
            }
            if (path.includes("{")) continue; // a path id is missing: HTTP cannot even express this call
            const qs = query.size ? `?${query}` : "";
            const viaHttp = await service.request(op.http!.method, path + qs, { key: userKey, ...(op.input.body ? { body } : {}) });
            const httpBody = viaHttp.status === 204 ? { success: true } : await viaHttp.json();
            if (viaMcp.isError) expect({ status: viaHttp.status, ...httpBody }).toEqual(viaMcp.payload);
            else {
              expect(viaHttp.status).toBeLessThan(300);
              if (op.mcp!.readOnly) expect(httpBody).toEqual(viaMcp.payload);
            }
          }
        });
      }
    });
  }
});

describe("failures", () => {
  test("an unexpected exception is a 500 without internals, logged with its request id", async () => {
    const broken: Operation = {
      id: "broken",
      summary: "x",
      description: "x",
      tag: "x",
      auth: "none",
      http: { method: "GET", path: "/broken", status: 200 },
      input: {},
      run: async () => {
        throw new Error("secret internals at /srv/db");
      },
    };
    const { buildHttpApp } = await import("../../adapters/http/app.ts");
    const app = buildHttpApp({ deps: service.deps, info: service.info, operations: [broken] });
    const response = await app.handle(new Request("http://localhost/broken", { headers: { "x-request-id": "req-123" } }));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: "Internal server error" });
    const logged = service.logged.find((line) => line.includes("req-123"));
    expect(logged).toBeDefined();
    expect(logged).toContain("secret internals");
  });

  test("API keys never reach the logs", async () => {
    await service.request("GET", "/v1/campaigns", { key: userKey });
    await service.request("GET", "/v1/campaigns", { key: "cms_not_a_real_key_but_long_enough" });
    expect(service.logged.join("\n")).not.toContain(userKey);
    expect(service.logged.join("\n")).not.toContain(service.adminKey);
  });
});
