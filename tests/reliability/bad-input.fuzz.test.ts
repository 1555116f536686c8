// The reliability suite's bad-input fuzzer: it walks the operation table and sends generated bad
// values (NUL, lone surrogates, deep nesting, overlong and wrong-typed values) into every path,
// query and body field of every operation, over REST and MCP, on every record backend. Every
// answer must be a 4xx with a `detail` (never a 5xx, never a success), and the database must be
// exactly as it was before the operation was fuzzed.
import { expect, test } from "bun:test";
import fc from "fast-check";
import type { TSchema } from "@sinclair/typebox";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import type { InputPart, Operation } from "../../adapters/operations/operation.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { seedOneOfEach } from "../support/seed.ts";
import { sampleOf } from "../support/samples.ts";


type Transport = "rest" | "mcp";
interface Slot {
  part: InputPart;
  name: string;
  schema: TSchema & Record<string, any>;
}

const slotsOf = (op: Operation): Slot[] =>
  (["path", "query", "body"] as const).flatMap((part) =>
    Object.entries(op.input[part]?.properties ?? {}).map(([name, schema]) => ({ part, name, schema: schema as Slot["schema"] })),
  );

/** The JSON types a schema admits (`X | null` admits both). */
const typesOf = (schema: Slot["schema"]): Set<string> => {
  if (schema.anyOf) return new Set((schema.anyOf as Slot["schema"][]).flatMap((branch) => [...typesOf(branch)]));
  if (schema.const !== undefined) return new Set([typeof schema.const === "string" ? "string" : typeof schema.const]);
  if (typeof schema.type === "string") return new Set([schema.type]);
  return new Set(["any"]);
};

const nested = (depth: number): unknown => {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = level % 2 ? { deeper: value } : [value];
  return value;
};

// Strings no database or client can hold: refused wherever a string goes.
const nulText = fc.string({ maxLength: 20 }).map((text) => `${text}\u0000${text}`);
const surrogateText = fc.constantFrom("\ud800", "a\udfffb", "\udc00 trailing", "lead \ud83d");
const tooDeep = fc.integer({ min: 65, max: 2_000 }).map(nested);

/** Values that must be refused in this field, whatever the other fields say. */
function badValues(slot: Slot, transport: Transport): fc.Arbitrary<unknown> {
  const types = typesOf(slot.schema);
  const options: fc.Arbitrary<unknown>[] = [nulText];
  if (transport === "rest" && slot.part !== "body") {
    // Path and query values are text on the wire.
    if (types.has("integer") || types.has("number")) options.push(fc.constantFrom("1.5", "abc", "1e400", "--1"));
    if (types.has("boolean")) options.push(fc.constantFrom("maybe", "yes please", "2"));
    if (slot.schema.anyOf && [...typesOf(slot.schema)].every((type) => type === "string") && (slot.schema.anyOf as Slot["schema"][]).every((b) => b.const !== undefined))
      options.push(fc.constant("not-one-of-the-choices"));
    if (slot.schema.maxLength) options.push(fc.constant("x".repeat(slot.schema.maxLength + 1)));
    return fc.oneof(...options);
  }
  options.push(surrogateText, tooDeep);
  if (!types.has("any")) {
    const wrong: unknown[] = [];
    if (!types.has("string")) wrong.push("a string");
    if (!types.has("integer") && !types.has("number")) wrong.push(42, -1.5);
    if (!types.has("boolean")) wrong.push(true);
    if (!types.has("array")) wrong.push(["an", "array"]);
    if (!types.has("object")) wrong.push({ an: "object" });
    if (types.has("integer") && !types.has("number")) wrong.push(1.5);
    if (wrong.length) options.push(fc.constantFrom(...wrong));
  }
  if (types.has("array")) options.push(fc.constantFrom(["fine", "\u0000"], ["fine", "\ud800"]));
  // Free-form objects keep their keys; a typed object drops unknown ones, so only its values count.
  if (types.has("any") || (types.has("object") && !slot.schema.properties)) options.push(fc.constantFrom({ "key\u0000": 1 }, { fine: "\ud800" }));
  if (slot.schema.maxLength) options.push(fc.constant("x".repeat(slot.schema.maxLength + 1)));
  if (slot.schema.maximum !== undefined) options.push(fc.constant(slot.schema.maximum + 1));
  return fc.oneof(...options);
}

/** Required fields whose shape a generic sample cannot meet. */
const VALID_SAMPLES: Record<string, unknown> = {
  partyStatusAndNextSteps: { partyStatus: { summary: "Resting", bullets: [] }, nextSteps: { summary: "Travel" } },
};

/** A valid value for a field, so that the one bad field is what the answer is about. */
function validValue(slot: Slot, ids: Record<string, string>, op: Operation): unknown {
  if (VALID_SAMPLES[slot.name] !== undefined) return VALID_SAMPLES[slot.name];
  if (slot.name === "id") return op.id.includes("Folder") ? ids.folder_id : ids.entry_id;
  if (ids[slot.name]) return ids[slot.name];
  if (/image/.test(slot.name)) return "https://example.com/a.png";
  return sampleOf(slot.schema, "Fuzz value");
}

/** Every row of every table, as one digest: equal digests mean nothing was written. */
async function digest(db: SqlDatabase): Promise<string> {
  const tables = await db.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`);
  const parts: string[] = [];
  for (const { name } of tables) {
    const [row] = await db.query<{ n: string | number; d: string | null }>(`select count(*) as n, md5(string_agg(md5(t::text), '' order by md5(t::text))) as d from "${name}" t`);
    parts.push(`${name}:${row!.n}:${row!.d}`);
  }
  return parts.join("\n");
}

const isIssueAbout = (detail: unknown, slot: Slot) =>
  !Array.isArray(detail) || detail.some((issue: { loc?: unknown[] }) => issue.loc?.[0] === slot.part && (issue.loc?.[1] === slot.name || issue.loc.length === 1));

await forEachBackend("bad input over REST and MCP", (backend) => {
  let service: InProcessService;
  let key: string;
  const ids: Record<string, string> = {};

  inProcessOn(backend, async (made) => {
    service = made;
    const user = await service.newUser("Fuzz", "fuzz@example.test");
    ids.user_id = user.id;
    key = user.key;
    ids.key_id = user.keyId;
    const owner = service.as(key).must;
    ids.campaign_id = (await owner("POST", "/v1/campaigns", { title: "Fuzz" })).id;
    await seedOneOfEach(owner, service.as().must, ids);
    ids.source_moment_id = ids.moment_id!;
  });

  const restRequest = async (op: Operation, slot: Slot, value: unknown) => {
    const inputs: Record<InputPart, Record<string, unknown>> = { path: {}, query: {}, body: {} };
    for (const other of slotsOf(op)) {
      const required = op.input[other.part]?.required?.includes(other.name) ?? false;
      if (other.part === slot.part && other.name === slot.name) inputs[other.part][other.name] = value;
      else if (required || other.part === "path") inputs[other.part][other.name] = validValue(other, ids, op);
    }
    const path = op.http!.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(inputs.path[name])));
    const query = new URLSearchParams(Object.entries(inputs.query).map(([name, v]) => [name, String(v)])).toString();
    const hasBody = op.input.body && !op.http!.rawBody;
    const response = await service.app.handle(
      new Request(`http://localhost${path}${query ? `?${query}` : ""}`, {
        method: op.http!.method,
        headers: { "x-api-key": op.access.auth === "first_party" ? service.adminKey : key, "content-type": "application/json" },
        body: hasBody ? JSON.stringify(inputs.body) : undefined,
      }),
    );
    const text = await response.text();
    return { status: response.status, detail: (text ? JSON.parse(text) : {}).detail as unknown };
  };

  const mcpRequest = async (op: Operation, slot: Slot, value: unknown) => {
    const args: Record<string, unknown> = {};
    for (const other of slotsOf(op)) {
      const required = op.input[other.part]?.required?.includes(other.name) ?? false;
      if (other.part === slot.part && other.name === slot.name) args[other.name] = value;
      else if (required || other.part === "path") args[other.name] = validValue(other, ids, op);
    }
    const response = await service.app.handle(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: op.mcp!.name, arguments: args } }),
      }),
    );
    expect(response.status).toBe(200);
    const message = await response.json();
    expect(message.result?.isError).toBe(true);
    return JSON.parse(message.result.content[0].text) as { status: number; detail: unknown };
  };

  for (const op of OPERATIONS) {
    const slots = slotsOf(op);
    if (!op.http || op.access.auth === "none" || !slots.length) continue;
    const onMcp = Boolean(op.mcp && !op.internal);
    test(`${op.id}: bad values in any field → 4xx with a detail, nothing written`, async () => {
      const before = await digest(service.db);
      for (const transport of onMcp ? (["rest", "mcp"] as const) : (["rest"] as const)) {
        const cases = fc.oneof(...slots.map((slot) => badValues(slot, transport).map((value) => ({ slot, value }))));
        await fc.assert(
          fc.asyncProperty(cases, async ({ slot, value }) => {
            const answer = transport === "rest" ? await restRequest(op, slot, value) : await mcpRequest(op, slot, value);
            expect(answer.status).toBeGreaterThanOrEqual(400);
            expect(answer.status).toBeLessThan(500);
            expect(answer.detail).toBeDefined();
            if (answer.status === 422) expect(isIssueAbout(answer.detail, slot)).toBe(true);
          }),
          { numRuns: Math.min(12 * slots.length, 120) },
        );
      }
      expect(await digest(service.db)).toBe(before);
    }, 120_000);
  }

  test("a JSON body nested 100,000 deep is a 422 on every JSON route", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const deepObject = `{"a":${'{"a":'.repeat(100_000)}1${"}".repeat(100_001)}`;
    for (const op of OPERATIONS.filter((candidate) => candidate.http && candidate.input.body && !candidate.http.rawBody)) {
      const path = op.http!.path.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name] ?? "x");
      for (const body of [deep, deepObject]) {
        const response = await service.app.handle(new Request(`http://localhost${path}`, { method: op.http!.method, headers: { "x-api-key": op.access.auth === "first_party" ? service.adminKey : key, "content-type": "application/json" }, body }));
        expect({ op: op.id, status: response.status }).toEqual({ op: op.id, status: 422 });
        expect((await response.json()).detail[0].type).toMatch(/^(model_attributes_type|json_too_deep)$/);
      }
    }
  }, 120_000);

  test("NUL and malformed ids in paths and queries are refused before the key is trusted", async () => {
    const fakeKey = `cms_${"A".repeat(43)}`;
    for (const path of ["/v1/campaigns/%00", "/v1/characters?campaign_id=%00", "/v1/moments?campaign_id=a%00b", "/v1/campaigns/%ED%A0%80/stats"]) {
      const anonymous = await service.app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": fakeKey } }));
      expect({ path, status: anonymous.status, body: await anonymous.json() }).toEqual({ path, status: 401, body: { detail: "Invalid API key" } });
    }
    const known = await service.request("GET", "/v1/campaigns/%00", { key });
    expect(known.status).toBe(422);
    expect((await known.json()).detail[0]).toMatchObject({ type: "string_nul", loc: ["path", "campaign_id"] });
    expect(service.logged.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });
});
