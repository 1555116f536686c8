// Publishing TypeBox schemas as plain JSON Schema: for the OpenAPI document and MCP tool listings alike.
import type { TSchema } from "@sinclair/typebox";

export type Json = Record<string, unknown>;

/** JSON round trip drops TypeBox's symbol keys and leaves plain JSON Schema. */
export const plainSchema = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema));

/**
 * Plain JSON Schema for publishing. TypeBox writes a recursive schema as `$id: "T0"` with
 * `$ref: "T0"` inside, which OpenAPI tools and MCP clients cannot resolve: each one becomes a named
 * definition in `defs` (named by its title), referenced as `${prefix}<Name>`.
 */
export function publishedSchema(schema: TSchema, prefix: string, defs: Record<string, Json>): Json {
  const names = new Map<string, string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== "object") return node;
    const { $id, ...rest } = node as Json;
    if (typeof $id === "string") {
      const name = typeof rest.title === "string" ? rest.title : $id;
      names.set($id, name);
      if (!(name in defs)) {
        defs[name] = {};
        defs[name] = walk(rest) as Json;
      }
      return { $ref: `${prefix}${name}` };
    }
    if (typeof rest.$ref === "string" && names.has(rest.$ref)) return { ...rest, $ref: `${prefix}${names.get(rest.$ref)}` };
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, walk(value)]));
  };
  return walk(plainSchema(schema)) as Json;
}

/** A schema with its own `$defs`, as an MCP tool's input or output schema must be. */
export function selfContainedSchema(schema: TSchema): Json {
  const defs: Record<string, Json> = {};
  const published = publishedSchema(schema, "#/$defs/", defs);
  if (!Object.keys(defs).length) return published;
  // A recursive schema at the root: its body stays at the root (an MCP schema must say type: object).
  const rootRef = typeof published.$ref === "string" && Object.keys(published).length === 1 ? published.$ref.slice("#/$defs/".length) : null;
  return { ...(rootRef ? defs[rootRef] : published), $defs: defs };
}
