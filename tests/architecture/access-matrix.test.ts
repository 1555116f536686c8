// The access matrix, generated from the operation table: every operation on REST and every MCP
// tool, called by the owner, an admin, a player, a viewer, a non-member, no key and a revoked key
// (first-party routes: the admin key, an ordinary key, no key). What each caller must get comes
// from the documented rules (docs/decisions.md, DESIGN section 7), not from the rows' declarations:
// a row whose declared level drifts from them fails here, and a new operation is covered the day
// it is added. Success bodies are not checked here; refusals are, status and detail exactly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import type { InputPart, Operation } from "../../adapters/operations/operation.ts";
import { inProcessService } from "../support/inprocess.ts";
import { seedOneOfEach } from "../support/seed.ts";
import { mcpAnswer, mcpRequest, restRequest, typedClient } from "../support/typed.ts";
import { sampleOf } from "../support/samples.ts";

type Level = "read" | "write" | "manage" | "owner";
type Rule = { kind: "none" } | { kind: "user" } | { kind: "first_party" } | { kind: "campaign"; level: Level; hidden: boolean };
type CallerName = "owner" | "admin" | "player" | "viewer" | "non-member" | "no key" | "revoked key";

const MEMBERS: CallerName[] = ["owner", "admin", "player", "viewer"];
const CALLERS: CallerName[] = [...MEMBERS, "non-member", "no key", "revoked key"];
/** DESIGN section 7: what each role may do. */
const HELD: Record<CallerName, number> = { owner: 4, admin: 3, player: 2, viewer: 1, "non-member": 0, "no key": -1, "revoked key": -1 };
const NEEDED: Record<Level, number> = { read: 1, write: 2, manage: 3, owner: 4 };
const DENIED: Record<Level, string> = {
  read: "Access denied to this campaign",
  write: "Write access denied for this campaign",
  manage: "Manage access (owner or admin) is required for this campaign",
  owner: "Only the campaign owner can do this",
};
const INVALID_KEY = "Invalid API key";
const NOT_FIRST_PARTY = "This route needs a first-party key with the product_write scope";

const SYSTEM_PATHS = new Set(["/health", "/health/database", "/", "/v1"]);
/** Any valid key, no campaign: the caller's own campaigns and profile. */
const NO_CAMPAIGN = new Set(["listCampaigns", "createCampaign", "getCurrentUser", "getAskQuota", "listMyGrants", "revokeMyGrant"]);
/** Levels the documents name; otherwise reads need read and every change needs write. */
const DOCUMENTED_LEVEL: Record<string, Level> = {
  updateCampaign: "manage",
  deleteCampaign: "owner",
  // "manage access is needed for image generation" (interface spec, Authentication 5).
  generateImage: "manage",
  // Journal entries: campaign read access, then the entry's own permission (docs/decisions.md).
  updateJournal: "read",
  deleteJournal: "read",
  // A task of a campaign is readable by the campaign's readers.
  getTask: "read",
  // Webhooks and the whole-campaign export's default are for managers (issue 14).
  createWebhook: "manage",
  listWebhooks: "manage",
  deleteWebhook: "manage",
  enableWebhook: "manage",
  listWebhookDeliveries: "manage",
  // Asking reads the campaign (a POST for its body); gm_permissions and asker_id are checked in the use case.
  askCampaign: "read",
};
/** Entries a caller may not see are "not found", whoever asks (docs/decisions.md, journals). */
const HIDDEN: Record<string, string> = { getJournal: "Journal entry not found", updateJournal: "Journal entry not found", deleteJournal: "Journal entry not found" };

function documentedRule(op: Operation): Rule {
  if (op.http && SYSTEM_PATHS.has(op.http.path)) return { kind: "none" };
  if (op.internal) return { kind: "first_party" };
  if (NO_CAMPAIGN.has(op.id)) return { kind: "user" };
  const reads = op.http ? op.http.method === "GET" : op.mcp!.readOnly;
  return { kind: "campaign", level: DOCUMENTED_LEVEL[op.id] ?? (reads ? "read" : "write"), hidden: op.id in HIDDEN };
}

/** What a caller must get: allowed, or exactly this refusal. */
function expected(op: Operation, rule: Rule, caller: CallerName): { allowed: true } | { allowed: false; status: number; detail: string } {
  if (rule.kind === "none") return { allowed: true };
  if (caller === "no key" || caller === "revoked key") return { allowed: false, status: 401, detail: INVALID_KEY };
  if (rule.kind === "user") return { allowed: true };
  if (rule.kind === "first_party") return caller === "owner" ? { allowed: true } : { allowed: false, status: 403, detail: NOT_FIRST_PARTY };
  if (HELD[caller] >= NEEDED[rule.level]) return { allowed: true };
  if (rule.hidden && HELD[caller] < 1) return { allowed: false, status: 404, detail: HIDDEN[op.id]! };
  // Members and non-members alike are told the level they lack (tests/http/compendium.blackbox.test.ts pins it).
  return { allowed: false, status: 403, detail: DENIED[rule.level] };
}

const fieldsOf = (op: Operation) =>
  (["path", "query", "body"] as const).flatMap((part) =>
    Object.entries(op.input[part]?.properties ?? {}).map(([name, schema]) => ({ part, name, schema: schema as Record<string, any>, required: op.input[part]?.required?.includes(name) ?? false })),
  );

const isDestructive = (op: Operation) => op.http?.method === "DELETE";

let service: Awaited<ReturnType<typeof inProcessService>>;
const keys: Partial<Record<CallerName, string>> = {};
const ids: Record<string, string> = {};
/** Creates a fresh record of the kind an id names, for a destructive call that succeeds. */
let fresh: (name: string, op: Operation) => Promise<string>;

beforeAll(async () => {
  service = await inProcessService();
  const admin = service.as().must;
  const people: Record<string, Awaited<ReturnType<typeof service.newUser>>> = {};
  for (const name of ["owner", "admin", "player", "viewer", "outsider", "scratch"]) people[name] = await service.newUser(name, `${name}@example.test`);
  const owner = service.as(people.owner!.key).must;
  keys.owner = people.owner!.key;
  keys.admin = people.admin!.key;
  keys.player = people.player!.key;
  keys.viewer = people.viewer!.key;
  keys["non-member"] = people.outsider!.key;
  const revoked = await admin("POST", `/internal/v1/users/${people.player!.id}/keys`, {});
  await admin("DELETE", `/internal/v1/keys/${revoked.id}`);
  keys["revoked key"] = revoked.key;

  const campaign = async () => {
    const id = (await owner("POST", "/v1/campaigns", { title: "Matrix" })).id as string;
    for (const role of ["admin", "player", "viewer"]) await admin("POST", `/internal/v1/campaigns/${id}/members`, { user_id: people[role]!.id, role });
    return id;
  };
  ids.campaign_id = await campaign();
  // First-party rows act on a user and a key of their own, never the callers'.
  ids.user_id = people.scratch!.id;
  ids.key_id = people.scratch!.keyId;
  const makers: Record<string, () => Promise<string>> = { campaign_id: campaign, ...(await seedOneOfEach(owner, admin, ids)) };
  fresh = async (name, op) => {
    const key = name === "id" ? (op.id.includes("Folder") ? "folder_id" : "entry_id") : name;
    return makers[key] ? makers[key]!() : ids[key]!;
  };
});
afterAll(() => service?.close());

/** The input a call sends: every required field and every id the fixture has. */
async function inputFor(op: Operation, renew: boolean): Promise<Record<InputPart, Record<string, unknown>>> {
  const input: Record<InputPart, Record<string, unknown>> = { path: {}, query: {}, body: {} };
  for (const field of fieldsOf(op)) {
    const idName = field.name === "id" ? (op.id.includes("Folder") ? "folder_id" : "entry_id") : field.name;
    const isTarget = field.part === "path" ? op.http?.path.endsWith(`{${field.name}}`) : field.name === "id";
    if (ids[idName] !== undefined) input[field.part][field.name] = renew && isTarget ? await fresh(field.name, op) : ids[idName];
    else if (field.required) input[field.part][field.name] = sampleOf(field.schema, "Matrix value");
  }
  return input;
}

const keyOf = (op: Operation, rule: Rule, caller: CallerName) => (rule.kind === "first_party" && caller === "owner" ? service.adminKey : keys[caller]);

describe("the access matrix: every operation × every caller, REST and MCP", () => {
  test("every row declares what the documents say: its auth, level and OAuth scope", () => {
    for (const op of OPERATIONS) {
      const rule = documentedRule(op);
      const declared = op.access;
      if (op.id === "getTask") expect(declared.auth, op.id).toBe("user"); // its campaign check stays in the use case
      else if (rule.kind === "campaign") expect(declared.auth === "campaign" ? { auth: declared.auth, level: declared.level, hidden: Boolean(declared.hidden) } : declared, op.id).toEqual({ auth: "campaign", level: rule.level, hidden: rule.hidden });
      else expect(declared.auth, op.id).toBe(rule.kind);
      // A read tool may be a POST (ask_campaign: the question is a body); otherwise non-GET routes write.
      const mutates = op.mcp ? !op.mcp.readOnly : op.http!.method !== "GET";
      if (rule.kind === "none" || rule.kind === "first_party") continue;
      if (mutates) expect(declared.scope, op.id).toBe("agent_write");
      else expect(["profile", "worlds_read", "sessions_read", "characters_read"], op.id).toContain(declared.scope!);
    }
  });

  for (const op of OPERATIONS) {
    const rule = documentedRule(op);
    for (const transport of ["REST", "MCP"] as const) {
      if (transport === "REST" && !op.http) continue;
      if (transport === "MCP" && (!op.mcp || op.internal)) continue;
      test(`${op.id} on ${transport}`, async () => {
        const outcomes: string[] = [];
        for (const caller of CALLERS) {
          const want = expected(op, rule, caller);
          const renew = want.allowed && isDestructive(op);
          const input = await inputFor(op, renew);
          const key = keyOf(op, rule, caller);
          const request = transport === "REST" ? restRequest(op, input, key) : mcpRequest(op, input, key);
          const response = await service.app.handle(request);
          const { status, detail } =
            transport === "REST"
              ? await response.text().then((text) => ({ status: response.status, detail: (text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : {}).detail }))
              : await mcpAnswer(response).then((answer) => ({ status: answer.status, detail: answer.body.detail }));
          const got = `${caller}: ${status} ${typeof detail === "string" ? detail : ""}`.trim();
          if (want.allowed) outcomes.push(status === 401 || status === 403 || status >= 500 ? `${got} (must be allowed)` : `${caller}: allowed`);
          else outcomes.push(status === want.status && detail === want.detail ? `${caller}: ${want.status} ${want.detail}` : `${got} (must be ${want.status} ${want.detail})`);
        }
        expect(outcomes.filter((line) => line.includes("(must"))).toEqual([]);
      });
    }
  }
});

describe("the typed client", () => {
  test("reads a campaign with the output schema's type, and refuses a non-member", async () => {
    const call = typedClient(service.app, keys.viewer);
    const read = await call("getCampaign", { path: { campaign_id: ids.campaign_id! } });
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.body.title).toBe("Matrix"); // `title` is typed: a misspelt field does not compile
    const refused = await call("getCampaign", { path: { campaign_id: ids.campaign_id! } }, keys["non-member"]);
    expect(refused).toEqual({ status: 403, ok: false, body: { detail: "Access denied to this campaign" } });
  });
});
