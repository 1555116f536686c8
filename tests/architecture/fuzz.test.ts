// Every write operation in the table, fed generated bodies (mostly wrong): always a 2xx or a 4xx
// with a `detail`, never a 5xx.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import { inProcessService } from "../support/inprocess.ts";
import { seedOneOfEach } from "../support/seed.ts";

let service: Awaited<ReturnType<typeof inProcessService>>;
let key: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  service = await inProcessService();
  const user = await service.newUser("F", "f@example.test");
  key = user.key;
  ids.user_id = user.id;
  const owner = service.as(key).must;
  ids.campaign_id = (await owner("POST", "/v1/campaigns", { title: "Fuzz" })).id;
  await seedOneOfEach(owner, service.as().must, ids);
});
afterAll(() => service?.close());

const anyJson = fc.jsonValue({ maxDepth: 2 });
/** Legacy path names of an id (e.g. /v1/worlds/{world_id}). */
const aliasedId = (name: string) => (name === "world_id" ? "campaign_id" : name);

/** What every refusal must carry: a sentence, or for 422 a list of issues each naming where it is. */
const expectRefusal = (status: number, body: any) => {
  if (status === 422) {
    expect(Array.isArray(body.detail)).toBe(true);
    expect(body.detail.length).toBeGreaterThan(0);
    for (const issue of body.detail) {
      // typeof, not toMatchObject with expect.any: Bun's toMatchObject rewrites the received object.
      expect([typeof issue.type, typeof issue.msg]).toEqual(["string", "string"]);
      expect(["body", "path", "query"]).toContain(issue.loc[0]);
      for (const step of issue.loc) expect(["string", "number"]).toContain(typeof step);
      expect("input" in issue).toBe(true);
    }
  } else {
    expect(typeof body.detail).toBe("string");
    expect(body.detail.length).toBeGreaterThan(0);
  }
};

/** The routes fuzzed, as "METHOD /template", to check against what /openapi.json documents. */
const fuzzed = new Set<string>();

for (const op of OPERATIONS) {
  if (!op.http || !op.input.body || op.access.auth === "none") continue;
  if (op.id === "internalRevokeKey" || op.id === "internalRotateKey") continue; // would revoke the fuzzer's own key material
  // The operation's own route and its aliases (another path, or another method such as PUT for PATCH).
  const routes = [
    { method: op.http.method, path: op.http.path },
    ...(op.http.aliases ?? []).map((alias) => (typeof alias === "string" ? { method: op.http!.method, path: alias } : { method: alias.method, path: alias.path ?? op.http!.path })),
  ];
  for (const route of routes)
  test(`${route.method} ${route.path} (${op.id}): generated bodies never cause a 5xx`, async () => {
    const fields = Object.keys(op.input.body!.properties);
    const bodies = fc.oneof(
      anyJson,
      // Right field names with arbitrary values reach the deeper checks.
      fc.dictionary(fc.constantFrom(...fields), anyJson, { maxKeys: fields.length }),
      fc.dictionary(fc.constantFrom(...fields), fc.constantFrom(ids.campaign_id, ids.character_id, ids.session_id, ids.beat_id, "", "  ", null, -1, "https://x.io/a.png", "http://x.io", "Character", "a".repeat(300), "nul\u0000inside", ["a", "\u0000"]), { maxKeys: fields.length }),
    );
    const key_ = op.access.auth === "first_party" ? service.adminKey : key;
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (body, realIds) => {
        const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => (realIds && (ids[name] ?? ids[aliasedId(name)]) ? (ids[name] ?? ids[aliasedId(name)])! : "no-such-id"));
        const response = await service.request(route.method, path, { key: key_, body });
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) expectRefusal(response.status, await response.json());
      }),
      { numRuns: 30 },
    );
    fuzzed.add(`${route.method} ${route.path}`);
  });
}

test("NUL characters anywhere are a 422, in bodies and in query strings", async () => {
  const body = await service.request("POST", "/v1/campaigns", { key, body: { title: "a\u0000b" } });
  expect(body.status).toBe(422);
  expect((await body.json()).detail).toEqual([{ type: "string_nul", loc: ["body", "title"], msg: "Text cannot contain the NUL character (\\u0000)", input: "a\u0000b" }]);
  const query = await service.request("GET", "/v1/campaigns?search=%00", { key });
  expect(query.status).toBe(422);
  expect((await query.json()).detail).toEqual([{ type: "string_nul", loc: ["query", "search"], msg: "Text cannot contain the NUL character (\\u0000)", input: "\u0000" }]);
  const user = await service.request("POST", "/internal/v1/users", { key: service.adminKey, body: { name: "x\u0000", email: "n@example.test" } });
  expect(user.status).toBe(422);
  expect((await user.json()).detail).toEqual([{ type: "string_nul", loc: ["body", "name"], msg: "Text cannot contain the NUL character (\\u0000)", input: "x\u0000" }]);
});

// A required enum field left out used to be reported as {type: "enum"} without `input`.
test("a missing enum field is reported as missing, with the input, like any required field", async () => {
  const response = await service.request("POST", "/v1/beats", { key, body: { label: "B", campaign_id: ids.campaign_id } });
  expect(response.status).toBe(422);
  expect((await response.json()).detail).toEqual([{ type: "missing", loc: ["body", "type"], msg: "Field required", input: { label: "B", campaign_id: ids.campaign_id } }]);
});

test("path ids are decoded once; malformed escapes are a 4xx", async () => {
  const campaign = await (await service.request("POST", "/v1/campaigns", { key, body: { title: "Escapes" } })).json();
  const read = await service.request("GET", `/v1/campaigns/${campaign.id}`, { key });
  expect(read.status).toBe(200);
  expect((await read.json()).id).toBe(campaign.id);
  const doubled = await service.request("GET", `/v1/campaigns/${encodeURIComponent(encodeURIComponent(campaign.id + " "))}`, { key });
  expect(doubled.status).toBe(404);
  expect(await doubled.json()).toEqual({ detail: "Campaign not found" });
  const malformed = await service.request("GET", "/v1/campaigns/%E0%A4%A", { key });
  expect(malformed.status).toBe(422);
  const refusal = await malformed.json();
  expectRefusal(422, refusal);
  expect(refusal.detail).toEqual([{ type: "url_decoding", loc: ["path", "campaign_id"], msg: "Not a valid percent-encoded value", input: null }]);
});

test("the fuzzer covered every documented route that takes a body", async () => {
  // From the served document, not from the table the loop above walks.
  const doc = await (await service.request("GET", "/openapi.json")).json();
  const documented = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown }>>).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, entry]) => (entry.requestBody ? [`${method.toUpperCase()} ${path}`] : [])),
  );
  expect(documented.length).toBeGreaterThan(0);
  expect(documented.filter((route) => !fuzzed.has(route))).toEqual([]);
});
