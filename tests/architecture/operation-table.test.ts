// Walks the operation table: every operation is routed, documented, listed as a tool with the same
// schema, guarded by auth, and fails the same way on both transports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openApiDocument } from "../../adapters/http/openapi.ts";
import { toolsOf } from "../../adapters/mcp/server.ts";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import { flatInputSchema, routesOf, type Operation } from "../../adapters/operations/operation.ts";
import sharp from "sharp";
import { inProcessService } from "../support/inprocess.ts";
import { scenarios, type Args, type Case, type Fixture } from "./operation-parity.scenarios.ts";

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
  userKey = (await service.newUser("T", "t@example.test")).key;
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
      if (op.internal) expect(op.access.auth).toBe("first_party");
    }
  });

  for (const op of OPERATIONS) {
    describe(op.id, () => {
      test("is routed on every path it declares", async () => {
        expect(op.http).toBeDefined();
        for (const { method, path } of routesOf(op.http!)) {
          const response = await service.request(method, fillPath(path), method === "GET" || method === "DELETE" ? {} : { body: {} });
          if (op.access.auth === "none") expect(response.status).toBe(200);
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
        if (op.access.auth !== "none") expect(Object.keys(entry.responses)).toContain("401");
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
          // Reads are GETs, but for Ask: its question (a conversation) is a body, and it changes nothing but the caller's token counters.
          if (op.mcp!.readOnly) expect(op.http!.method).toBe(op.id === "askCampaign" ? "POST" : "GET");
        });
      }
    });
  }
});

// Every MCP tool against its REST twin, with real records: the same status and the same body for
// reads, writes and errors. Bodies differ only where two calls each create or change a record.
describe("MCP and REST answer alike", () => {
  const UNKNOWN_ID = "00000000-0000-7000-8000-000000000000";
  let tools: { name: string; inputSchema: { properties: Record<string, { type?: string }> } }[] = [];
  let fixture: Fixture;
  let outsiderKey: string;
  /** Tools whose calls were all compared, with at least one success and one error among them. */
  const compared = new Set<string>();

  const rpc = async (method: string, params: unknown, key = userKey) => {
    const response = await service.request("POST", "/mcp", { key, headers: { accept: "application/json, text/event-stream" }, body: { jsonrpc: "2.0", id: 1, method, params } });
    expect(response.status).toBe(200);
    return (await response.json()).result;
  };
  const rest = (method: string, path: string, body?: unknown, key = userKey) => service.must(method, path, key, body);

  beforeAll(async () => {
    tools = (await rpc("tools/list", {})).tools;
    outsiderKey = (await service.newUser("Outsider", "o@example.test")).key;
    const make = async (path: string, body: Args) => (await rest("POST", path, body)).id as string;
    const campaign = await make("/v1/campaigns", { title: "Parity", system: "D&D 5e" });
    const character = await make("/v1/characters", { campaign_id: campaign, character_name: "Vex", player_name: "Laura" });
    const item = await make("/v1/items", { campaign_id: campaign, name: "Fenthras" });
    const session = (await rest("POST", "/internal/v1/sessions", { campaign_id: campaign, type: "chatVoice", title: "Arrival", session_date: "2026-01-06T19:00:00Z" }, service.adminKey)).id;
    // A transcript (the cast analysis is computed on import) and a handout, through the first-party routes.
    await service.importTranscript(session, "Matt: Welcome to Emon. What do you do?\nLaura: Vex looks for the bow.\nSam: I sing a song.");
    await rest("POST", `/internal/v1/sessions/${session}/handout`, {}, service.adminKey);
    const folder = await make("/v1/journal-folders", { world_id: campaign, name: "Lore", path: "Lore" });
    const beat = await make("/v1/beats", { campaign_id: campaign, label: "The gate", type: "major", game_session_id: session });
    fixture = {
      campaign,
      character,
      item,
      faction: await make("/v1/factions", { campaign_id: campaign, name: "Slayer's Take" }),
      location: await make("/v1/locations", { campaign_id: campaign, name: "Emon" }),
      link: await make(`/v1/campaigns/${campaign}/links`, { from_id: character, from_type: "Character", to_id: item, to_type: "Item", alias: "bow" }),
      quest: await make("/v1/quests", { campaign_id: campaign, quest_name: "The Briarwoods", status: "in-progress" }),
      folder,
      journal: await make("/v1/journals", { world_id: campaign, title: "Whitestone", content: "Cold and grey. [[Vex]] was here.", folder_id: folder }),
      session,
      beat,
      moment: await make("/v1/moments", { campaign_id: campaign, session_id: session, label: "The bow sings", content: "Fenthras answers." }),
      award: await make("/v1/hero-awards", { session_id: session, title: "Sharpest eye", description: "Found the bow." }),
      quote: await make("/v1/quotes", { session_id: session, text: "I sing a song.", speaker: "Sam" }),
      spotlight: await make("/v1/spotlights", { session_id: session, title: "Vex and the bow" }),
      make,
      // The PUT of the bytes is not a tool: the parity test writes them into the store as the PUT would.
      upload: async (entityId: string) => {
        const grant = await rest("POST", `/v1/campaigns/${campaign}/images/init`, { entity_type: "character", entity_id: entityId, file_name: "p.png", content_type: "image/png" });
        await service.deps.images.store.put(grant.object_key, new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } }).png().toBuffer()), "image/png");
        return grant.object_key as string;
      },
    };
  });

  /** Both transports, one call each; the REST call is built from the operation's declared parts. */
  async function both(name: string, restArgs: Args, mcpArgs: Args, key = userKey) {
    const op = OPERATIONS.find((candidate) => candidate.mcp?.name === name)!;
    let path = op.http!.path;
    const query = new URLSearchParams();
    const body: Args = {};
    for (const [field, value] of Object.entries(restArgs)) {
      if (path.includes(`{${field}}`)) path = path.replace(`{${field}}`, encodeURIComponent(String(value)));
      else if (op.input.query?.properties[field]) query.set(field, String(value));
      else body[field] = value;
    }
    expect(path).not.toContain("{");
    const response = await service.request(op.http!.method, path + (query.size ? `?${query}` : ""), { key, ...(op.input.body ? { body } : {}) });
    const text = await response.text();
    const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
    const viaRest = { status: response.status, body: isJson ? JSON.parse(text) : text };
    const result = await rpc("tools/call", { name, arguments: mcpArgs }, key);
    const mcpText: string = result.content[0].text;
    let mcpBody: unknown = mcpText;
    try {
      mcpBody = JSON.parse(mcpText);
    } catch {}
    return { viaRest, viaMcp: { isError: Boolean(result.isError), body: mcpBody, structured: result.structuredContent } };
  }

  /** Drops the fields that necessarily differ, at any depth. */
  const without = (value: unknown, fields: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => without(item, fields));
    if (!value || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !fields.includes(key)).map(([key, item]) => [key, without(item, fields)]));
  };

  /** Compares one call on both transports; answers the REST status. */
  async function compare(name: string, call: { args: Args; mcpArgs?: Args; differ?: string[] }, key = userKey) {
    const { viaRest, viaMcp } = await both(name, call.args, call.mcpArgs ?? call.args, key);
    const differ = call.differ ?? [];
    if (viaRest.status >= 400) {
      // An MCP error carries the REST status and body.
      expect(viaMcp.isError).toBe(true);
      expect(without(viaMcp.body, differ)).toEqual(without({ status: viaRest.status, ...viaRest.body }, differ));
      expect(viaRest.body.detail).toBeDefined();
    } else {
      expect(viaMcp.isError).toBe(false);
      if (viaRest.status === 204) {
        expect(viaRest.body).toBe("");
        expect(viaMcp.body).toEqual({ success: true });
      } else {
        expect(without(viaMcp.body, differ)).toEqual(without(viaRest.body, differ));
        if (viaMcp.structured) expect(viaMcp.structured).toEqual(viaMcp.body);
      }
    }
    return viaRest.status;
  }

  /** A copy of `args` with every id the fixture made replaced by one that names nothing. */
  const unknownIds = (args: Args): Args | null => {
    const ours = new Set(Object.values(fixture).filter((value) => typeof value === "string"));
    let replaced = false;
    const out: Args = {};
    for (const [field, value] of Object.entries(args)) {
      const swap = typeof value === "string" && (ours.has(value) || /_id$|^id$/.test(field));
      out[field] = swap ? UNKNOWN_ID : value;
      replaced ||= swap;
    }
    return replaced ? out : null;
  };

  /** A copy of `args` with one field of the wrong type, and where the 422 must point. */
  const wrongType = (name: string, args: Args): { args: Args; loc: string[] } | null => {
    const op = OPERATIONS.find((candidate) => candidate.mcp?.name === name)!;
    const tool = tools.find((candidate) => candidate.name === name)!;
    for (const [field, schema] of Object.entries(tool.inputSchema.properties)) {
      if (op.http!.path.includes(`{${field}}`)) continue;
      const part = op.input.query?.properties[field] ? "query" : "body";
      // Query values travel as text, so only a type a string cannot pass for shows there.
      if (schema.type === "integer") return { args: { ...args, [field]: "many" }, loc: [part, field] };
      if (schema.type === "boolean") return { args: { ...args, [field]: "maybe" }, loc: [part, field] };
      if (schema.type === "string" && part === "body") return { args: { ...args, [field]: 12345 }, loc: [part, field] };
    }
    return null;
  };

  test("every listed tool has calls to compare, and only listed tools do", () => {
    const table = scenarios(fixture);
    expect(Object.keys(table).sort()).toEqual(tools.map((tool) => tool.name).sort());
  });

  test("each tool: the same status and body on both transports, for successes and errors", async () => {
    const table = scenarios(fixture);
    const failures: string[] = [];
    for (const tool of tools) {
      const statuses: number[] = [];
      try {
        const cases = await table[tool.name]!();
        const first = cases[0]!;
        // Errors first: they must change nothing the successes then read.
        statuses.push(await compare(tool.name, { args: first.args, differ: first.differ }, outsiderKey));
        const unknown = unknownIds(first.args);
        if (unknown) {
          const status = await compare(tool.name, { args: unknown });
          expect([403, 404]).toContain(status);
          statuses.push(status);
        }
        const wrong = wrongType(tool.name, first.args);
        if (wrong) {
          const { viaRest } = await both(tool.name, wrong.args, wrong.args);
          expect(viaRest.status).toBe(422);
          expect(viaRest.body.detail.map((issue: { loc: string[] }) => issue.loc)).toContainEqual(wrong.loc);
          statuses.push(await compare(tool.name, { args: wrong.args }));
        }
        for (const call of cases) {
          const status = await compare(tool.name, call);
          expect({ tool: tool.name, call: call.label, status }).toEqual({ tool: tool.name, call: call.label, status: call.status });
          statuses.push(status);
        }
        expect(statuses.some((status) => status < 300)).toBe(true);
        expect(statuses.some((status) => status >= 400)).toBe(true);
        compared.add(tool.name);
      } catch (error) {
        failures.push(`${tool.name}: ${(error as Error).message.split("\n").slice(0, 60).join("\n")}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("no tool was skipped: as many compared as tools/list names", () => {
    expect(tools.length).toBeGreaterThan(0);
    expect(compared.size).toBe(tools.length);
  });
});

describe("failures", () => {
  test("an unexpected exception is a 500 without internals, logged with its request id", async () => {
    const broken: Operation = {
      id: "broken",
      summary: "x",
      description: "x",
      tag: "x",
      access: { auth: "none" },
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
