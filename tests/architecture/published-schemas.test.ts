// What third-party tooling does with the schemas we publish: lint /openapi.json with Redocly,
// generate a typed client with openapi-typescript and type-check it, compile every MCP tool
// schema with Ajv. Each used to stumble on TypeBox's recursive `$ref: "T0"`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Type } from "@sinclair/typebox";
import openapiTS, { astToString } from "openapi-typescript";
import { selfContainedSchema } from "../../adapters/shared/json-schema.ts";
import { toolsOf } from "../../adapters/mcp/server.ts";
import { OPERATIONS } from "../../adapters/operations/index.ts";
import { BeatNode } from "../../adapters/operations/beats.ts";
import { inProcessService } from "../support/inprocess.ts";
import { describeErrors, openApiValidator, schemaValidator } from "../support/jsonschema.ts";
import { PROJECT_ROOT } from "../support/server.ts";

let service: Awaited<ReturnType<typeof inProcessService>>;
let doc: any;

beforeAll(async () => {
  service = await inProcessService();
  doc = await (await service.request("GET", "/openapi.json")).json();
});
afterAll(() => service?.close());

/** Every `$ref` and `$id` in a JSON value, with where it is. */
const refsIn = (value: unknown, at = "#"): { at: string; key: string; target: string }[] => {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsIn(item, `${at}/${index}`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    (key === "$ref" || key === "$id") && typeof item === "string" ? [{ at, key, target: item }] : refsIn(item, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`),
  );
};

const leaf = {
  id: "b2",
  campaign_id: "c1",
  label: "The gate",
  type: "minor",
  description: null,
  index: 0,
  parent_id: "b1",
  metadata: null,
  game_session_ids: ["s1"],
  game_session_id: "s1",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: null,
  children: [],
  linkedEntities: { characters: [], factions: [], locations: [], items: [] },
};
const tree = [{ ...leaf, id: "b1", type: "major", parent_id: null, children: [leaf] }];

describe("/openapi.json", () => {
  test("has no $id and only local component references, each of which resolves", () => {
    const refs = refsIn(doc);
    expect(refs.filter(({ key }) => key === "$id")).toEqual([]);
    expect(refs.length).toBeGreaterThan(0);
    for (const { at, target } of refs) {
      expect([at, target]).toEqual([at, expect.stringMatching(/^#\/components\/schemas\/[A-Za-z]+$/)]);
      expect([target, doc.components.schemas[target.split("/").pop()!]]).toEqual([target, expect.any(Object)]);
    }
    // The beat hierarchy is one named, self-referencing component.
    const node = doc.components.schemas.BeatHierarchyNode;
    expect(node.properties.children).toEqual({ type: "array", items: { $ref: "#/components/schemas/BeatHierarchyNode" } });
    const listed = doc.paths["/v1/beats"].get.responses["200"].content["application/json"].schema;
    expect(listed.anyOf[1]).toEqual({ type: "array", items: { $ref: "#/components/schemas/BeatHierarchyNode" } });
  });

  test("Redocly's recommended rules find no errors (offline)", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: join(PROJECT_ROOT, "openapi.json"), config });
    const errors = problems.filter((problem) => problem.severity === "error").map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  test("response schemas validate real nested data with a standard validator", () => {
    const { ajv, openApiSchema } = openApiValidator(doc);
    const validate = ajv.compile(openApiSchema(doc.paths["/v1/beats"].get.responses["200"].content["application/json"].schema));
    expect([validate(tree), describeErrors(validate)]).toEqual([true, ""]);
    // A child that is not a node is refused: the recursion is really checked, not skipped.
    expect(validate([{ ...tree[0], children: [{ ...leaf, game_session_ids: "s1" }] }])).toBe(false);
  });

  test("openapi-typescript generates a client that type-checks, recursion and new fields included", async () => {
    const generated = astToString(await openapiTS(doc));
    const dir = mkdtempSync(join(tmpdir(), "cms-openapi-ts-"));
    try {
      writeFileSync(join(dir, "api.ts"), generated);
      writeFileSync(
        join(dir, "use.ts"),
        `import type { components, paths } from "./api";
type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Node = components["schemas"]["BeatHierarchyNode"];
const leaf: Node = ${JSON.stringify(leaf)};
export const tree: JsonOf<paths["/v1/beats"]["get"]["responses"][200]> = [{ ...leaf, id: "b1", type: "major", parent_id: null, children: [leaf] }];
export const grandchildren: Node[] = leaf.children[0]?.children ?? [];
// @ts-expect-error children are nodes, not ids
export const broken: Node = { ...leaf, children: ["b3"] };

type Campaign = JsonOf<paths["/v1/campaigns/{campaign_id}"]["get"]["responses"][200]>;
export const archived = (campaign: Campaign): [boolean, string | null] => [campaign.archived, campaign.archived_at];
export const path: paths["/v1/campaigns/{campaign_id}"]["get"]["parameters"]["path"] = { campaign_id: "c1" };
// @ts-expect-error the campaign id is required
export const noPath: paths["/v1/campaigns/{campaign_id}"]["get"]["parameters"]["path"] = {};
type ListQuery = NonNullable<paths["/v1/campaigns"]["get"]["parameters"]["query"]>;
export const queries: ListQuery[] = [{}, { archived: false, page: 2 }];
type CampaignPatch = NonNullable<paths["/v1/campaigns/{campaign_id}"]["patch"]["requestBody"]>["content"]["application/json"];
export const archive: CampaignPatch = { archived: true };
type SessionPut = NonNullable<paths["/v1/sessions/{session_id}"]["put"]["requestBody"]>["content"]["application/json"];
export const put: SessionPut = { title: "Renamed", session_date: "2015-03-12T19:00:00Z" };
`,
      );
      const tsc = Bun.spawnSync(
        [join(PROJECT_ROOT, "node_modules", ".bin", "tsc"), "--noEmit", "--strict", "--skipLibCheck", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", "use.ts"],
        { cwd: dir },
      );
      expect({ exit: tsc.exitCode, out: tsc.stdout.toString() + tsc.stderr.toString() }).toEqual({ exit: 0, out: "" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("MCP tool schemas", () => {
  test("every input and output schema compiles on its own with a strict standard validator", () => {
    const ajv = schemaValidator();
    for (const tool of toolsOf(OPERATIONS)) {
      for (const schema of [tool.inputSchema, tool.outputSchema].filter(Boolean)) {
        expect(refsIn(schema).filter(({ key, target }) => key === "$id" || !target.startsWith("#/$defs/"))).toEqual([]);
        expect(() => ajv.compile(schema!)).not.toThrow();
      }
    }
  });

  test("a recursive schema becomes $defs with local references, at the root or nested", () => {
    const ajv = schemaValidator();
    const nested = selfContainedSchema(Type.Object({ nodes: Type.Array(BeatNode) }));
    expect(nested).toMatchObject({ type: "object", properties: { nodes: { type: "array", items: { $ref: "#/$defs/BeatHierarchyNode" } } } });
    expect((nested.$defs as any).BeatHierarchyNode.properties.children).toEqual({ type: "array", items: { $ref: "#/$defs/BeatHierarchyNode" } });
    const validateNested = ajv.compile(nested);
    expect([validateNested({ nodes: tree }), describeErrors(validateNested)]).toEqual([true, ""]);
    expect(validateNested({ nodes: [{ ...tree[0], children: [{ ...leaf, children: [1] }] }] })).toBe(false);

    // At the root the node's own body stays there, so an MCP client still sees type: object.
    const root = selfContainedSchema(BeatNode);
    expect(root.type).toBe("object");
    expect((root.properties as any).children).toEqual({ type: "array", items: { $ref: "#/$defs/BeatHierarchyNode" } });
    const validateRoot = ajv.compile(root);
    expect(validateRoot(tree[0])).toBe(true);
    expect(validateRoot({ ...tree[0], children: [{ ...leaf, label: 7 }] })).toBe(false);
  });
});
