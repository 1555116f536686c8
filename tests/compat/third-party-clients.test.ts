// Compatibility replay: the HTTP calls real third-party clients of the hosted Archivist API make,
// replayed in the order those clients make them, against a real service process (PGlite).
//
// Clients replayed (read from their public source; request shapes re-typed here, no code copied):
//   - archivist-sync: Foundry VTT module camrun91/archivist-sync, scripts/services/archivist-api.js
//     (campaign era: base URL .../v1, headers `x-api-key`, `Accept: */*`, `X-Requested-With:
//     XMLHttpRequest`, `Content-Type: application/json` only on writes; `mode: 'cors'`) and the
//     payload builders in scripts/modules/utils.js, world-setup-dialog.js, sheets/page-sheet-v2.js.
//   - archivist-sync (world era): older versions of the same file (/v1/worlds, `world_id` query).
//   - obsidian: archivist-gg/archivist-obsidian-plugin src api.ts (Content-Type on every call).
//   - php-mcp-bridge: Astrotomic/mcp.myarchivist.ai app/Actions/Archivist/** (Laravel HTTP client).
//   - api-examples: the official "Archivist API — Common operations as cURL commands" basics.sh.
// Not replayed (not built yet): POST /v1/ask, POST /ask, GET /v1/ask/quota, images, OAuth.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client, newUser, type Client, type Reply } from "../support/client.ts";
import { startServer, type TestServer } from "../support/server.ts";

const FOUNDRY_ORIGIN = "http://localhost:30000";

// Bun's toMatchObject writes the asymmetric matchers into the received object, so assertions get a copy.
const E = (x: unknown) => expect(typeof x === "object" && x !== null ? structuredClone(x) : x);
const oneOf = (value: unknown, allowed: unknown[]) => (allowed.includes(value) ? "one of the allowed values" : value);

// What a failing assertion prints: status and body, so the report can quote them.
const seen = (r: Reply) => ({ status: r.status, body: r.body });
const ok2xx = (r: Reply) => E({ ...seen(r), ok: r.status >= 200 && r.status < 300 }).toMatchObject({ ok: true });

// How the lists of archivist-sync read a page: an array, or `data`; `pages` when it is a number.
const listItems = (body: any): any[] => (Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : []);

describe("third-party Archivist clients replayed against the service", () => {
  let server: TestServer;
  let admin: Client;
  let gm: Awaited<ReturnType<typeof newUser>>;
  let key: string;
  // Fixtures made with the canonical spellings, so that one client's failure does not cascade.
  const fx = {} as Record<string, string> & { campaign: string };

  // archivist-sync's _request: the headers it sends, Content-Type only with a body, Origin as a browser would.
  const sync = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { Accept: "*/*", "x-api-key": key, "X-Requested-With": "XMLHttpRequest", Origin: FOUNDRY_ORIGIN };
    if (body !== undefined || ["POST", "PUT", "PATCH"].includes(method)) headers["Content-Type"] = "application/json";
    const response = await fetch(`${server.url}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store", keepalive: method !== "GET" });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, body: parsed, headers: response.headers, text } as Reply;
  };
  // The Obsidian plugin: Content-Type: application/json and x-api-key on every request, GET included.
  const obsidian = (method: "GET" | "POST", path: string, body?: unknown) =>
    client(server.url, key).call(method, path, body, body === undefined ? { "content-type": "application/json" } : {});
  // The PHP bridge (Laravel Http::withHeaders(['x-api-key' => ...])->acceptJson()): JSON body, Accept: application/json.
  const php = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    client(server.url, key).call(method, path, body, { accept: "application/json" });
  // Laravel's GET sends query parameters the http_build_query way: booleans become 1/0.
  const qs = (params: Record<string, unknown>) =>
    Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === "boolean" ? (v ? "1" : "0") : String(v))}`)
      .join("&");

  beforeAll(async () => {
    server = await startServer();
    admin = client(server.url, server.adminKey);
    gm = await newUser(server.url, server.adminKey, "FoundryGM");
    key = gm.key;
    const campaign = await gm.api.post("/v1/campaigns", { title: "Fixture Campaign", description: "made with canonical spellings" });
    if (campaign.status !== 201) throw new Error(`fixture campaign: ${campaign.status} ${campaign.text}`);
    fx.campaign = campaign.body.id;
    const make = async (name: string, path: string, body: Record<string, unknown>) => {
      const r = await gm.api.post(path, { campaign_id: fx.campaign, ...body });
      if (r.status !== 201) throw new Error(`fixture ${name}: ${r.status} ${r.text}`);
      fx[name] = r.body.id;
    };
    await make("character", "/v1/characters", { character_name: "Fixture Hero", type: "PC" });
    await make("location", "/v1/locations", { name: "Fixture Keep" });
    await make("faction", "/v1/factions", { name: "Fixture Guild" });
    await make("item", "/v1/items", { name: "Fixture Blade" });
    const session = await admin.post("/internal/v1/sessions", { campaign_id: fx.campaign, type: "rawNotes", title: "Session 1", session_date: "2024-01-05T19:00:00Z", summary: "The party meets." });
    if (session.status !== 201) throw new Error(`fixture session: ${session.status} ${session.text}`);
    fx.session = session.body.id;
    await make("beat", "/v1/beats", { label: "Fixture beat", type: "major", game_session_id: fx.session });
    await make("moment", "/v1/moments", { label: "Fixture moment", session_id: fx.session, content: "Something happened." });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  // ---------------------------------------------------------------------------------------------
  // archivist-sync (Foundry VTT), current campaign-era API client, in the order the module runs:
  // connection test, campaign pick/create, world setup (list all, create missing), sheet edits,
  // drag-and-drop links, recap edits, reconcile, deletes.
  describe("archivist-sync (Foundry VTT module)", () => {
    const ids: Record<string, string> = {};

    test("archivist-sync: CORS preflight OPTIONS /v1/campaigns from the Foundry origin (x-api-key, x-requested-with)", async () => {
      const r = await fetch(`${server.url}/v1/campaigns`, {
        method: "OPTIONS",
        headers: { Origin: FOUNDRY_ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key,x-requested-with" },
      });
      const allowHeaders = (r.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      E({
        status: oneOf(r.status, [200, 204]),
        allowOrigin: oneOf(r.headers.get("access-control-allow-origin"), ["*", FOUNDRY_ORIGIN]),
        allowsApiKey: allowHeaders.includes("x-api-key") || allowHeaders === "*",
        allowsRequestedWith: allowHeaders.includes("x-requested-with") || allowHeaders === "*",
      }).toEqual({ status: "one of the allowed values", allowOrigin: "one of the allowed values", allowsApiKey: true, allowsRequestedWith: true });
    });

    test("archivist-sync: CORS preflight OPTIONS /v1/characters/{id} for PATCH with content-type", async () => {
      const r = await fetch(`${server.url}/v1/characters/${fx.character}`, {
        method: "OPTIONS",
        headers: { Origin: FOUNDRY_ORIGIN, "Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "content-type,x-api-key,x-requested-with" },
      });
      const methods = (r.headers.get("access-control-allow-methods") ?? "").toUpperCase();
      E({ status: oneOf(r.status, [200, 204]), allowOrigin: oneOf(r.headers.get("access-control-allow-origin"), ["*", FOUNDRY_ORIGIN]), allowsPatch: methods.includes("PATCH") || methods === "*" }).toEqual({
        status: "one of the allowed values",
        allowOrigin: "one of the allowed values",
        allowsPatch: true,
      });
    });

    test("archivist-sync: GET /v1/campaigns (testConnection / fetchCampaignsList) reads data[] and CORS allow-origin", async () => {
      const r = await sync("GET", "/campaigns");
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
      E(oneOf(r.headers.get("access-control-allow-origin"), ["*", FOUNDRY_ORIGIN])).toBe("one of the allowed values");
      // The campaign picker shows `name || title` and keeps `id`.
      E(listItems(r.body).find((c: any) => c.id === fx.campaign)).toMatchObject({ id: fx.campaign, title: "Fixture Campaign" });
    });

    test("archivist-sync: POST /v1/campaigns {title, description} (createCampaign) reads data.id", async () => {
      const r = await sync("POST", "/campaigns", { title: "Foundry World", description: "" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), title: "Foundry World" });
      ids.campaign = r.body.id;
    });

    test("archivist-sync: GET /v1/campaigns/{id} (fetchCampaignDetails)", async () => {
      const r = await sync("GET", `/campaigns/${encodeURIComponent(ids.campaign ?? fx.campaign ?? "")}`);
      E(seen(r)).toMatchObject({ status: 200, body: { id: ids.campaign ?? fx.campaign, title: expect.any(String) } });
    });

    test("archivist-sync: PATCH /v1/campaigns/{id} {title, description} (syncCampaignTitle)", async () => {
      const r = await sync("PATCH", `/campaigns/${ids.campaign ?? fx.campaign}`, { title: "Foundry World (renamed)", description: "Synced from **Foundry**" });
      E(seen(r)).toMatchObject({ status: 200, body: { title: "Foundry World (renamed)", description: "Synced from **Foundry**" } });
    });

    const campaign = () => ids.campaign ?? fx.campaign;

    test("archivist-sync: GET lists with campaign_id&page=1&size=100 (world setup: characters, items, locations, factions, sessions)", async () => {
      for (const kind of ["characters", "items", "locations", "factions", "sessions"]) {
        const r = await sync("GET", `/${kind}?campaign_id=${encodeURIComponent(fx.campaign)}&page=1&size=100`);
        E({ kind, ...seen(r) }).toMatchObject({ kind, status: 200, body: { data: expect.any(Array), pages: expect.any(Number) } });
      }
    });

    test("archivist-sync: POST /v1/characters {character_name, player_name:'', description, type:'PC', campaign_id} (toApiCharacterPayload)", async () => {
      const r = await sync("POST", "/characters", { character_name: "Tharivol", player_name: "", description: "An elven *ranger*.", type: "PC", campaign_id: campaign() });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), character_name: "Tharivol", type: "PC" });
      ids.character = r.body.id;
    });

    test("archivist-sync: POST /v1/characters NPC from a world-setup job (mapped fields + type + campaign_id)", async () => {
      const r = await sync("POST", "/characters", { character_name: "Innkeeper Bram", description: "", type: "NPC", campaign_id: campaign() });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), type: "NPC" });
    });

    test("archivist-sync: POST /v1/items {name, description, campaign_id}", async () => {
      const r = await sync("POST", "/items", { name: "Bag of Holding", description: "<p>Bigger inside.</p>", campaign_id: campaign() });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), name: "Bag of Holding" });
      ids.item = r.body.id;
    });

    test("archivist-sync: POST /v1/locations {name, image (https scene thumb), campaign_id} without description", async () => {
      const r = await sync("POST", "/locations", { name: "Phandalin", image: "https://example.com/scenes/phandalin.webp", campaign_id: campaign() });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), name: "Phandalin" });
      ids.location = r.body.id;
    });

    test("archivist-sync: POST /v1/factions {name, description, campaign_id} (toApiFactionPayload)", async () => {
      const r = await sync("POST", "/factions", { name: "Zhentarim", description: "Black Network.", campaign_id: campaign() });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), name: "Zhentarim" });
      ids.faction = r.body.id;
    });

    test("archivist-sync: GET /v1/characters?campaign_id&page&size reads id, character_name, type, player_name, description", async () => {
      const r = await sync("GET", `/characters?campaign_id=${encodeURIComponent(campaign())}&page=1&size=100`);
      E(seen(r)).toMatchObject({ status: 200 });
      const row = listItems(r.body).find((c: any) => c.id === ids.character);
      E(row).toMatchObject({ id: ids.character, character_name: "Tharivol", type: "PC", description: expect.any(String) });
      E(row).toHaveProperty("player_name");
    });

    test("archivist-sync: GET /v1/items, /v1/locations, /v1/factions?campaign_id&page&size read id, name, description, image", async () => {
      for (const [kind, id] of [["items", ids.item], ["locations", ids.location], ["factions", ids.faction]] as const) {
        const r = await sync("GET", `/${kind}?campaign_id=${encodeURIComponent(campaign())}&page=1&size=100`);
        const row = listItems(r.body).find((x: any) => x.id === id);
        E({ kind, status: r.status, row }).toMatchObject({ kind, status: 200, row: { id, name: expect.any(String) } });
        E(row).toHaveProperty("image");
      }
      const loc = listItems((await sync("GET", `/locations?campaign_id=${campaign()}&page=1&size=100`)).body).find((x: any) => x.id === ids.location);
      E(loc).toHaveProperty("parent_id"); // ReconcileService reads Location.parent_id
    });

    test("archivist-sync: PATCH /v1/characters/{id} {description} (sheet edit)", async () => {
      const r = await sync("PATCH", `/characters/${encodeURIComponent(ids.character ?? fx.character ?? "")}`, { description: "Now a **veteran** ranger." });
      E(seen(r)).toMatchObject({ status: 200, body: { description: "Now a **veteran** ranger." } });
    });

    test("archivist-sync: PATCH /v1/characters/{id} with the full payload again (campaign_id included, re-sync)", async () => {
      const r = await sync("PATCH", `/characters/${ids.character ?? fx.character}`, { character_name: "Tharivol", player_name: "Sam", description: "Re-synced.", type: "PC", campaign_id: campaign() });
      E(seen(r)).toMatchObject({ status: 200, body: { player_name: "Sam", description: "Re-synced." } });
    });

    test("archivist-sync: PATCH /v1/items/{id}, /v1/locations/{id}, /v1/factions/{id} {name, description}", async () => {
      for (const [kind, id] of [["items", ids.item ?? fx.item], ["locations", ids.location ?? fx.location], ["factions", ids.faction ?? fx.faction]] as const) {
        const r = await sync("PATCH", `/${kind}/${id}`, { name: `Renamed ${kind}`, description: "Edited in Foundry." });
        E({ kind, ...seen(r) }).toMatchObject({ kind, status: 200, body: { name: `Renamed ${kind}`, description: "Edited in Foundry." } });
      }
    });

    test("archivist-sync: GET /v1/sessions?campaign_id&page&size reads id, title, summary, session_date (Recaps)", async () => {
      const r = await sync("GET", `/sessions?campaign_id=${encodeURIComponent(fx.campaign)}&page=1&size=100`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body).find((s: any) => s.id === fx.session)).toMatchObject({ id: fx.session, title: "Session 1", summary: "The party meets.", session_date: expect.any(String) });
    });

    test("archivist-sync: PATCH /v1/sessions/{id} {title, summary} (recap page edit)", async () => {
      const r = await sync("PATCH", `/sessions/${encodeURIComponent(fx.session ?? "")}`, { title: "Session 1: The Meeting", summary: "The party meets at the **Stonehill Inn**." });
      E(seen(r)).toMatchObject({ status: 200, body: { title: "Session 1: The Meeting", summary: "The party meets at the **Stonehill Inn**." } });
    });

    test("archivist-sync: PATCH /v1/sessions/{id} {title, summary, session_date:'YYYY-MM-DDT00:00:00'} (no time zone)", async () => {
      const r = await sync("PATCH", `/sessions/${fx.session}`, { title: "Session 1: The Meeting", summary: "Recap.", session_date: "2024-01-06T00:00:00" });
      E(seen(r)).toMatchObject({ status: 200, body: { session_date: expect.stringMatching(/^2024-01-06T00:00:00/) } });
    });

    test("archivist-sync: GET /v1/campaigns/{id}/links?page&size (listLinks)", async () => {
      const r = await sync("GET", `/campaigns/${encodeURIComponent(fx.campaign)}/links?page=1&size=100`);
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
    });

    test("archivist-sync: POST /v1/campaigns/{id}/links {to_id, to_type, from_id, from_type, alias, campaign_id} (sheet drop)", async () => {
      const r = await sync("POST", `/campaigns/${encodeURIComponent(fx.campaign)}/links`, {
        to_id: fx.location,
        to_type: "Location",
        from_id: fx.character,
        from_type: "Character",
        alias: "Fixture Keep",
        campaign_id: fx.campaign,
      });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), from_id: fx.character, to_id: fx.location });
      ids.link = r.body.id;
    });

    test("archivist-sync: GET /v1/campaigns/{id}/links?from_id&page&size (listLinksByFromId) reads from_id, to_id, from_type, to_type, alias", async () => {
      const r = await sync("GET", `/campaigns/${fx.campaign}/links?from_id=${encodeURIComponent(fx.character ?? "")}&page=1&size=100`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body).find((l: any) => l.id === ids.link)).toMatchObject({ from_id: fx.character, from_type: "Character", to_id: fx.location, to_type: "Location", alias: expect.any(String) });
    });

    test("archivist-sync: GET /v1/quests?campaign_id&page&size and /v1/journals?campaign_id&page&size (ReconcileService, newest versions)", async () => {
      for (const kind of ["quests", "journals"]) {
        const r = await sync("GET", `/${kind}?campaign_id=${encodeURIComponent(fx.campaign)}&page=1&size=100`);
        E({ kind, ...seen(r) }).toMatchObject({ kind, status: 200, body: { data: expect.any(Array), pages: expect.any(Number) } });
      }
    });

    test("archivist-sync: DELETE /v1/campaigns/{id}/links/{link_id} (deleteLink; 204 or JSON)", async () => {
      const r = await sync("DELETE", `/campaigns/${fx.campaign}/links/${encodeURIComponent(ids.link ?? "missing")}`);
      ok2xx(r);
      if (r.status !== 204) E(() => JSON.parse(r.text)).not.toThrow(); // the client parses any non-204 body as JSON
    });

    test("archivist-sync: DELETE /v1/characters|items|locations|factions/{id} (204 or JSON)", async () => {
      for (const [kind, id] of [["characters", ids.character], ["items", ids.item], ["locations", ids.location], ["factions", ids.faction]] as const) {
        const r = await sync("DELETE", `/${kind}/${encodeURIComponent(id ?? "missing")}`);
        E({ kind, ...seen(r), ok: r.status >= 200 && r.status < 300 }).toMatchObject({ kind, ok: true });
        if (r.status !== 204) E(() => JSON.parse(r.text)).not.toThrow();
      }
    });

    test("archivist-sync: a 422 for an over-long description carries `detail` mentioning description (client parses it)", async () => {
      const r = await sync("POST", "/characters", { character_name: "Verbose", description: "x".repeat(10_001), type: "NPC", campaign_id: fx.campaign });
      // The module accepts either outcome; it only needs a `detail` or `message` it can show when refused.
      if (r.status >= 400) E(r.body?.detail ?? r.body?.message).toBeDefined();
      else ok2xx(r);
    });
  });

  // ---------------------------------------------------------------------------------------------
  // archivist-sync, older "world" era of the same client (still installed in some Foundry worlds).
  describe("archivist-sync, world-era versions", () => {
    let worldId = "";
    test("archivist-sync (world era): GET /v1/worlds reads data[] (or array, or `worlds`)", async () => {
      const r = await sync("GET", "/worlds");
      E(seen(r)).toMatchObject({ status: 200 });
      const rows = Array.isArray(r.body) ? r.body : r.body?.worlds ?? r.body?.data;
      E(Array.isArray(rows)).toBe(true);
    });

    test("archivist-sync (world era): POST /v1/worlds {title, description} (createWorld)", async () => {
      const r = await sync("POST", "/worlds", { title: "Old World", description: "" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String) });
      worldId = r.body.id;
    });

    test("archivist-sync (world era): GET /v1/worlds/{id} and PATCH /v1/worlds/{id} {title, description}", async () => {
      const id = worldId || fx.campaign;
      E(seen(await sync("GET", `/worlds/${id}`))).toMatchObject({ status: 200, body: { id } });
      E(seen(await sync("PATCH", `/worlds/${id}`, { title: "Old World 2", description: "d" }))).toMatchObject({ status: 200, body: { title: "Old World 2" } });
    });

    test("archivist-sync (world era): GET /v1/characters|factions|locations?world_id&page&size", async () => {
      for (const kind of ["characters", "factions", "locations"]) {
        const r = await sync("GET", `/${kind}?world_id=${encodeURIComponent(fx.campaign)}&page=1&size=100`);
        E({ kind, ...seen(r) }).toMatchObject({ kind, status: 200, body: { data: expect.any(Array) } });
        E(listItems(r.body).length).toBeGreaterThan(0);
      }
    });

    // The module's first release called two routes that neither the live API nor the contract has
    // (every later release uses /v1/campaigns and the per-kind routes above); they stay unknown,
    // answered like any unknown route rather than half-emulated (docs/decisions.md).
    test("archivist-sync (v0.1 placeholder): PUT /v1/worlds/{id}/title and POST /v1/worlds/{id}/characters are unknown routes", async () => {
      const title = await sync("PUT", `/worlds/${fx.campaign}/title`, { title: "Fixture Campaign", description: "" });
      E(seen(title)).toMatchObject({ status: 404, body: { detail: "Not Found" } });
      const bulk = await sync("POST", `/worlds/${fx.campaign}/characters`, { characters: [{ foundryId: "abc123", name: "Legacy Hero" }] });
      E(seen(bulk)).toMatchObject({ status: 404, body: { detail: "Not Found" } });
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Obsidian plugin (archivist-gg/archivist-obsidian-plugin), import of a vault into a campaign.
  describe("archivist obsidian plugin", () => {
    let campaignId = "";
    test("obsidian: GET /v1/campaigns?page=1&size=100 with Content-Type on a GET, reads data, total", async () => {
      const r = await obsidian("GET", "/v1/campaigns?page=1&size=100");
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array), total: expect.any(Number) } });
    });

    test("obsidian: POST /v1/campaigns {title} reads id", async () => {
      const r = await obsidian("POST", "/v1/campaigns", { title: "Vault Campaign" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String) });
      campaignId = r.body.id;
    });

    test("obsidian: POST /v1/characters {campaign_id, character_name, description, type} reads id", async () => {
      const r = await obsidian("POST", "/v1/characters", { campaign_id: campaignId || fx.campaign, character_name: "Vault NPC", description: "From a note.", type: "NPC" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String) });
    });

    test("obsidian: POST /v1/items|locations|factions {campaign_id, name, description} reads id", async () => {
      for (const kind of ["items", "locations", "factions"]) {
        const r = await obsidian("POST", `/v1/${kind}`, { campaign_id: campaignId || fx.campaign, name: `Vault ${kind}`, description: "From a note." });
        E({ kind, ...seen(r), ok: r.status >= 200 && r.status < 300 }).toMatchObject({ kind, ok: true, body: { id: expect.any(String) } });
      }
    });

    test("obsidian: POST /v1/journals {world_id, title, content, summary, tags, status} reads id", async () => {
      const r = await obsidian("POST", "/v1/journals", { world_id: campaignId || fx.campaign, title: "Session notes", content: "We went to [[Vault locations]].", summary: "notes", tags: ["obsidian"], status: "published" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String) });
    });
  });

  // ---------------------------------------------------------------------------------------------
  // PHP MCP bridge (Astrotomic/mcp.myarchivist.ai): each MCP tool it serves is one REST call to the API.
  // Response DTOs validate required fields, so the fields listed as `required` there are checked here.
  describe("php-mcp-bridge (Astrotomic/mcp.myarchivist.ai)", () => {
    const ids: Record<string, string> = {};

    test("php-mcp-bridge: GET /v1/campaigns?page&size reads data[] {id, title, public, mature, owner_id, created_at}, total, size, page", async () => {
      const r = await php("GET", `/v1/campaigns?${qs({ page: 1, size: 20 })}`);
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array), total: expect.any(Number), size: expect.any(Number), page: expect.any(Number) } });
      E(listItems(r.body).find((c: any) => c.id === fx.campaign)).toMatchObject({
        id: fx.campaign,
        title: expect.any(String),
        public: expect.any(Boolean),
        mature: expect.any(Boolean),
        owner_id: expect.any(String),
        created_at: expect.any(String),
      });
    });

    test("php-mcp-bridge: GET /v1/campaigns/{id}/stats", async () => {
      const r = await php("GET", `/v1/campaigns/${fx.campaign}/stats`);
      E(seen(r)).toMatchObject({ status: 200 });
    });

    test("php-mcp-bridge: PATCH /v1/campaigns/{id} {title, description, system, summary, language, public, mature}", async () => {
      const r = await php("PATCH", `/v1/campaigns/${fx.campaign}`, { title: "Fixture Campaign", description: "d", system: "D&D 5e", summary: "s", language: "en", public: false, mature: false });
      E(seen(r)).toMatchObject({ status: 200, body: { id: fx.campaign, system: "D&D 5e" } });
    });

    test("php-mcp-bridge: POST /v1/characters {campaign_id, character_name, character_aliases, player_name, player_handle, type} reads {id, campaign_id, character_name, merge, created_at}", async () => {
      const r = await php("POST", "/v1/characters", { campaign_id: fx.campaign, character_name: "Bridge Hero", character_aliases: ["BH"], player_name: "Pat", player_handle: "pat#1", description: "d", backstory: "b", type: "PC" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), campaign_id: fx.campaign, character_name: "Bridge Hero", merge: expect.any(Boolean), created_at: expect.any(String) });
    });

    test("php-mcp-bridge: GET /v1/sessions?campaign_id&public_only=0&page&size reads data[] {id, campaign_id, public, created_at}", async () => {
      const r = await php("GET", `/v1/sessions?${qs({ campaign_id: fx.campaign, public_only: false, page: 1, size: 20 })}`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body).find((s: any) => s.id === fx.session)).toMatchObject({ id: fx.session, campaign_id: fx.campaign, public: expect.any(Boolean), created_at: expect.any(String) });
    });

    test("php-mcp-bridge: GET /v1/sessions?session_type=rawNotes (its enum: audioUpload, playByPost, discordVoice, rawNotes)", async () => {
      const r = await php("GET", `/v1/sessions?${qs({ campaign_id: fx.campaign, session_type: "rawNotes" })}`);
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
    });

    test("php-mcp-bridge: GET /v1/sessions?session_type=audioUpload (a value in its enum) is accepted", async () => {
      const r = await php("GET", `/v1/sessions?${qs({ campaign_id: fx.campaign, session_type: "audioUpload" })}`);
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
    });

    test("php-mcp-bridge: PATCH /v1/sessions/{id} {title, session_date, summary} (patch_session)", async () => {
      const r = await php("PATCH", `/v1/sessions/${fx.session}`, { title: "Session 1", session_date: "2024-01-05", summary: "Patched by the bridge." });
      E(seen(r)).toMatchObject({ status: 200, body: { id: fx.session, summary: "Patched by the bridge.", public: expect.any(Boolean), created_at: expect.any(String) } });
    });

    test("php-mcp-bridge: PUT /v1/sessions/{id} {title, summary, session_date} (update_session)", async () => {
      const r = await php("PUT", `/v1/sessions/${fx.session}`, { title: "Session 1 (put)", summary: "Put by the bridge.", session_date: "2024-01-05T19:00:00Z" });
      E(seen(r)).toMatchObject({ status: 200, body: { id: fx.session, title: "Session 1 (put)", summary: "Put by the bridge." } });
    });

    test("php-mcp-bridge: POST /v1/beats {campaign_id, label, type, description, game_session_ids} reads {id, campaign_id, label, type, index, created_at}", async () => {
      const r = await php("POST", "/v1/beats", { campaign_id: fx.campaign, label: "Bridge beat", type: "major", description: "A turning point.", game_session_ids: [fx.session] });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), campaign_id: fx.campaign, label: "Bridge beat", type: "major", index: expect.any(Number), created_at: expect.any(String) });
      E(r.body.game_session_ids).toContain(fx.session);
      ids.beat = r.body.id;
    });

    test("php-mcp-bridge: POST /v1/beats without type (bridge allows it; spec requires type): refused with a 422 `detail` naming body.type", async () => {
      const r = await php("POST", "/v1/beats", { campaign_id: fx.campaign, label: "Untyped beat", game_session_id: fx.session });
      E({ status: r.status, loc: r.body?.detail?.[0]?.loc }).toEqual({ status: 422, loc: ["body", "type"] });
    });

    test("php-mcp-bridge: GET /v1/beats?campaign_id&with_links=0&page&size reads data[] BeatData", async () => {
      const r = await php("GET", `/v1/beats?${qs({ page: 1, size: 20, campaign_id: fx.campaign, with_links: false })}`);
      E(seen(r)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
      E(listItems(r.body).find((b: any) => b.id === fx.beat)).toMatchObject({ id: fx.beat, label: "Fixture beat", type: "major", index: expect.any(Number), created_at: expect.any(String) });
    });

    test("php-mcp-bridge: POST /v1/moments {campaign_id, session_id, label, content, categories}", async () => {
      const r = await php("POST", "/v1/moments", { campaign_id: fx.campaign, session_id: fx.session, label: "Bridge moment", content: "A quote was said.", categories: ["quote"] });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), session_id: fx.session, label: "Bridge moment" });
    });

    test("php-mcp-bridge: POST /v1/journal-folders {campaign_id, name, path} reads {success, id}", async () => {
      const r = await php("POST", "/v1/journal-folders", { campaign_id: fx.campaign, name: "Lore", path: "lore" });
      ok2xx(r);
      E(r.body).toMatchObject({ success: true, id: expect.any(String) });
      ids.folder = r.body.id;
    });

    test("php-mcp-bridge: POST /v1/journals {campaign_id, title, content, tags, is_public, status, folder_id} reads {success, id}", async () => {
      const r = await php("POST", "/v1/journals", { campaign_id: fx.campaign, title: "Bridge entry", content: "Some lore.", tags: ["lore"], is_public: true, status: "published", folder_id: ids.folder });
      ok2xx(r);
      E(r.body).toMatchObject({ success: true, id: expect.any(String) });
      ids.journal = r.body.id;
    });

    test("php-mcp-bridge: PUT /v1/journals {id, title, summary} reads {success, id}", async () => {
      const r = await php("PUT", "/v1/journals", { id: ids.journal ?? "missing", title: "Bridge entry (edited)", summary: "edited" });
      E(seen(r)).toMatchObject({ status: 200, body: { success: true, id: ids.journal } });
    });

    test("php-mcp-bridge: GET /v1/journals?campaign_id&page&size and GET /v1/journal-folders?campaign_id", async () => {
      const journals = await php("GET", `/v1/journals?${qs({ campaign_id: fx.campaign, page: 1, size: 20 })}`);
      E(seen(journals)).toMatchObject({ status: 200, body: { data: expect.any(Array), total: expect.any(Number) } });
      const folders = await php("GET", `/v1/journal-folders?${qs({ campaign_id: fx.campaign })}`);
      E(seen(folders)).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
    });

    test("php-mcp-bridge: POST /v1/campaigns/{id}/links Character -> Location reads {id, campaign_id, from_id, from_type, to_id, to_type, alias, created_at}", async () => {
      const r = await php("POST", `/v1/campaigns/${fx.campaign}/links`, { campaign_id: fx.campaign, from_id: fx.character, from_type: "Character", to_id: fx.faction, to_type: "Faction", alias: "Fixture Guild" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), campaign_id: fx.campaign, from_id: fx.character, from_type: "Character", to_id: fx.faction, to_type: "Faction", created_at: expect.any(String) });
    });

    for (const [fromType, fromKey] of [["Beat", "beat"], ["Moment", "moment"], ["GameSession", "session"]] as const) {
      test(`php-mcp-bridge: POST /v1/campaigns/{id}/links from_type ${fromType} -> Character`, async () => {
        const r = await php("POST", `/v1/campaigns/${fx.campaign}/links`, { campaign_id: fx.campaign, from_id: fx[fromKey], from_type: fromType, to_id: fx.character, to_type: "Character", alias: "Fixture Hero" });
        ok2xx(r);
        E(r.body).toMatchObject({ id: expect.any(String), from_type: fromType, from_id: fx[fromKey] });
      });
    }

    test("php-mcp-bridge: POST /v1/campaigns/{id}/links from_type Journal -> Location", async () => {
      const r = await php("POST", `/v1/campaigns/${fx.campaign}/links`, { campaign_id: fx.campaign, from_id: ids.journal ?? "missing", from_type: "Journal", to_id: fx.location, to_type: "Location", alias: "Fixture Keep" });
      ok2xx(r);
      E(r.body).toMatchObject({ id: expect.any(String), from_type: "Journal" });
    });

    test("php-mcp-bridge: GET /v1/campaigns/{id}/links?from_id&from_type&page&size reads data[] LinkData", async () => {
      const r = await php("GET", `/v1/campaigns/${fx.campaign}/links?${qs({ from_id: fx.character, from_type: "Character", page: 1, size: 100 })}`);
      E(seen(r)).toMatchObject({ status: 200 });
      for (const link of listItems(r.body)) E(link).toMatchObject({ id: expect.any(String), campaign_id: fx.campaign, from_id: fx.character, created_at: expect.any(String) });
    });
  });

  // ---------------------------------------------------------------------------------------------
  // The official cURL examples (basics.sh): read-only walk through the API.
  describe("api-examples (official basics.sh)", () => {
    const api = () => client(server.url, key);

    test("api-examples: GET /health without a key", async () => {
      const r = await fetch(`${server.url}/health`);
      E(r.status).toBe(200);
    });

    test("api-examples: GET /v1/campaigns?size=3 and ?size=1 reads data[0].id", async () => {
      E(seen(await api().get("/v1/campaigns?size=3"))).toMatchObject({ status: 200, body: { data: expect.any(Array) } });
      const one = await api().get("/v1/campaigns?size=1");
      E(seen(one)).toMatchObject({ status: 200, body: { data: [{ id: expect.any(String) }] } });
    });

    test("api-examples: GET /v1/campaigns/{id}/stats", async () => {
      E(seen(await api().get(`/v1/campaigns/${fx.campaign}/stats`))).toMatchObject({ status: 200 });
    });

    test("api-examples: GET /v1/campaigns/{id}/search?q=the&types=characters,locations,quests reads .characters, .locations, .quests arrays", async () => {
      const r = await api().get(`/v1/campaigns/${fx.campaign}/search?q=the&types=characters,locations,quests`);
      E(seen(r)).toMatchObject({ status: 200, body: { characters: expect.any(Array), locations: expect.any(Array), quests: expect.any(Array) } });
    });

    test("api-examples: GET /v1/characters?campaign_id&size=5 reads data[] {id, character_name, type}", async () => {
      const r = await api().get(`/v1/characters?campaign_id=${fx.campaign}&size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body)[0]).toMatchObject({ id: expect.any(String), character_name: expect.any(String), type: expect.any(String) });
    });

    test("api-examples: GET /v1/sessions?campaign_id&size=5 and ?size=1 read data[] {id, title, type, session_date}", async () => {
      const r = await api().get(`/v1/sessions?campaign_id=${fx.campaign}&size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body)[0]).toMatchObject({ id: expect.any(String), title: expect.any(String), type: expect.any(String), session_date: expect.any(String) });
      E((await api().get(`/v1/sessions?campaign_id=${fx.campaign}&size=1`)).body.data[0].id).toBe(fx.session);
    });

    test("api-examples: GET /v1/beats?campaign_id&size=5 reads data[] {id, label, type, index}", async () => {
      const r = await api().get(`/v1/beats?campaign_id=${fx.campaign}&size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body)[0]).toMatchObject({ id: expect.any(String), label: expect.any(String), type: expect.any(String), index: expect.any(Number) });
    });

    test("api-examples: GET /v1/beats?session_id&size=5 reads data[] {label, type, index}", async () => {
      const r = await api().get(`/v1/beats?session_id=${fx.session}&size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body).some((b: any) => b.id === fx.beat)).toBe(true);
    });

    test("api-examples: GET /v1/beats?session_id&include_hierarchy=true reads a bare array of {label, type, children}", async () => {
      const r = await api().get(`/v1/beats?session_id=${fx.session}&include_hierarchy=true`);
      E(seen(r)).toMatchObject({ status: 200, body: expect.any(Array) });
      E(r.body[0]).toMatchObject({ label: expect.any(String), type: expect.any(String), children: expect.any(Array) });
    });

    test("api-examples: GET /v1/entities?campaign_id&type=characters&limit=5", async () => {
      const r = await api().get(`/v1/entities?campaign_id=${fx.campaign}&type=characters&limit=5`);
      E(seen(r)).toMatchObject({ status: 200 });
    });

    test("api-examples: GET /v1/moments?campaign_id&fields=card&size=3 reads data[] {id, label, session_id}", async () => {
      const r = await api().get(`/v1/moments?campaign_id=${fx.campaign}&fields=card&size=3`);
      E(seen(r)).toMatchObject({ status: 200 });
      E(listItems(r.body)[0]).toMatchObject({ id: expect.any(String), label: expect.any(String), session_id: fx.session });
    });

    test("api-examples: GET /v1/journals?campaign_id&page=1&size=5 reads {total, page, size, pages, data}", async () => {
      const r = await api().get(`/v1/journals?campaign_id=${fx.campaign}&page=1&size=5`);
      E(seen(r)).toMatchObject({ status: 200, body: { total: expect.any(Number), page: 1, size: 5, pages: expect.any(Number), data: expect.any(Array) } });
    });

    test("api-examples: GET /v1/quests?campaign_id&size=5 reads data[] {id, quest_name, status, quest_category}", async () => {
      const made = await gm.api.post("/v1/quests", { campaign_id: fx.campaign, quest_name: "Find the mine" });
      E(made.status).toBe(201);
      const r = await api().get(`/v1/quests?campaign_id=${fx.campaign}&size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      const row = listItems(r.body)[0];
      E(row).toMatchObject({ id: expect.any(String), quest_name: "Find the mine", status: expect.any(String) });
      E(row).toHaveProperty("quest_category");
    });

    test("api-examples: GET /v1/campaigns/{id}/links?size=5 reads data[] {id, from_type, to_type, alias}", async () => {
      const r = await api().get(`/v1/campaigns/${fx.campaign}/links?size=5`);
      E(seen(r)).toMatchObject({ status: 200 });
      for (const l of listItems(r.body)) E(l).toMatchObject({ id: expect.any(String), from_type: expect.any(String), to_type: expect.any(String) });
    });
  });
});
