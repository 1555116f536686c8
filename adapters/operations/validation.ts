// Input validation for every operation, whichever transport: TypeBox schemas compiled once per row,
// the spellings real clients send made canonical, and every problem reported as a field issue.
import { FormatRegistry, Type, type TObject, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value, ValueErrorType, type ValueError } from "@sinclair/typebox/value";
import { fail, type FieldIssue, type Result } from "../../domain/errors.ts";
import type { InputPart, Inputs, Operation } from "./operation.ts";

// ISO 8601 date-times with a zone, e.g. 2026-11-21T19:40:00Z.
if (!FormatRegistry.Has("date-time"))
  FormatRegistry.Set("date-time", (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)));

interface CompiledPart {
  part: InputPart;
  schema: TObject;
  check: TypeCheck<TObject>;
}

const compiled = new WeakMap<Operation, CompiledPart[]>();

const partsOf = (operation: Operation): CompiledPart[] => {
  let parts = compiled.get(operation);
  if (!parts) {
    parts = (["path", "query", "body"] as const)
      .filter((part) => operation.input[part])
      .map((part) => ({ part, schema: operation.input[part]!, check: TypeCompiler.Compile(operation.input[part]!) }));
    compiled.set(operation, parts);
  }
  return parts;
};

/** The single flat object an MCP tool takes: path ids, query and body fields together. */
export function flatInputSchema(operation: Operation): TObject {
  const properties: Record<string, TSchema> = {};
  const required = new Set<string>();
  for (const { schema } of partsOf(operation)) {
    Object.assign(properties, schema.properties);
    for (const name of schema.required ?? []) required.add(name);
  }
  const flat = Type.Object(properties);
  flat.required = [...required];
  if (!flat.required.length) delete flat.required;
  return flat;
}

/** Splits a flat MCP argument object into the parts the operation declares. */
export function splitFlatInput(operation: Operation, args: Record<string, unknown>): Record<InputPart, unknown> {
  const split: Record<InputPart, Record<string, unknown>> = { path: {}, query: {}, body: {} };
  const parts = partsOf(operation);
  const named = { ...args };
  for (const { schema } of parts) Object.assign(named, withIdAliases(schema, named));
  for (const [name, value] of Object.entries(named)) {
    const owner = parts.find(({ schema }) => name in schema.properties) ?? parts.find(({ part }) => part === "body");
    if (owner) split[owner.part][name] = value;
  }
  return split;
}

const ISSUE_TYPES: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.ObjectRequiredProperty]: "missing",
  [ValueErrorType.String]: "string_type",
  [ValueErrorType.StringMinLength]: "string_too_short",
  [ValueErrorType.StringMaxLength]: "string_too_long",
  [ValueErrorType.StringPattern]: "string_pattern_mismatch",
  [ValueErrorType.StringFormat]: "string_format",
  [ValueErrorType.Integer]: "int_type",
  [ValueErrorType.Number]: "float_type",
  [ValueErrorType.IntegerMinimum]: "greater_than_equal",
  [ValueErrorType.NumberMinimum]: "greater_than_equal",
  [ValueErrorType.IntegerMaximum]: "less_than_equal",
  [ValueErrorType.NumberMaximum]: "less_than_equal",
  [ValueErrorType.Boolean]: "bool_type",
  [ValueErrorType.Array]: "list_type",
  [ValueErrorType.ArrayMaxItems]: "too_long",
  [ValueErrorType.ArrayMinItems]: "too_short",
  [ValueErrorType.Object]: "model_attributes_type",
  [ValueErrorType.Union]: "enum",
  [ValueErrorType.Literal]: "literal_error",
};

const messageOf = (error: ValueError): string => {
  const custom = (error.schema as Record<string, unknown>)["x-error"];
  if (typeof custom === "string") return custom;
  const schema: { [keyword: string]: unknown; minLength?: number; maxLength?: number; minimum?: number; maximum?: number; anyOf?: { const?: unknown }[] } = error.schema;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return "Field required";
    case ValueErrorType.String:
      return "Input should be a valid string";
    case ValueErrorType.StringMinLength:
      return `String should have at least ${schema.minLength} character${schema.minLength === 1 ? "" : "s"}`;
    case ValueErrorType.StringMaxLength:
      return `String should have at most ${schema.maxLength} characters`;
    case ValueErrorType.Integer:
      return "Input should be a valid integer";
    case ValueErrorType.Number:
      return "Input should be a valid number";
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `Input should be greater than or equal to ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `Input should be less than or equal to ${schema.maximum}`;
    case ValueErrorType.Boolean:
      return "Input should be a valid boolean";
    case ValueErrorType.Array:
      return "Input should be a valid list";
    case ValueErrorType.Object:
      return "Input should be a valid object";
    case ValueErrorType.Union: {
      const literals = schema.anyOf
        ?.map((option) => option.const)
        .filter((value) => value !== undefined);
      return literals?.length ? `Input should be ${literals.map((v) => `'${v}'`).join(", ")}` : "Input does not match any allowed type";
    }
    default:
      return error.message;
  }
};

const locOf = (part: InputPart, path: string): (string | number)[] => [
  part,
  ...path
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)),
];

/** For `X | null`, the mismatch against X says what is wrong; "matches no type" does not. */
const nonNullBranch = (error: ValueError): TSchema | null => {
  if (error.type !== ValueErrorType.Union || error.value === null) return null;
  const branches = ((error.schema as { anyOf?: TSchema[] }).anyOf ?? []).filter((branch) => branch.type !== "null");
  return branches.length === 1 ? branches[0]! : null;
};

const issuesOf = (part: InputPart, schema: TObject, value: unknown): FieldIssue[] => {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  const errors = [...Value.Errors(schema, value)];
  const missing = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  const unions = new Set(errors.filter((e) => e.type === ValueErrorType.Union).map((e) => e.path));
  for (let error of errors) {
    if (seen.has(error.path)) continue;
    // A missing field is "missing", whatever its type (an enum's union error would say less).
    if (missing.has(error.path) && error.type !== ValueErrorType.ObjectRequiredProperty) continue;
    // A union reports each branch's mismatch first; the union-level error says it better.
    if (error.type !== ValueErrorType.Union && error.type !== ValueErrorType.ObjectRequiredProperty && unions.has(error.path)) continue;
    seen.add(error.path);
    const nullableBranch = nonNullBranch(error);
    if (nullableBranch) {
      const inner = Value.Errors(nullableBranch, error.value).First();
      if (inner) error = { ...inner, path: error.path };
    }
    issues.push({
      type: ISSUE_TYPES[error.type] ?? "value_error",
      loc: locOf(part, error.path),
      msg: messageOf(error),
      input: error.type === ValueErrorType.ObjectRequiredProperty ? (value ?? null) : error.value,
    });
  }
  return issues;
};

/**
 * Path and query values arrive as strings. Convert only exact spellings ("2", "true"), so "1.5"
 * or "abc" for an integer stays a string and fails validation instead of being bent into shape.
 * MCP arguments arrive typed and pass through untouched.
 */
function coerceStrings(schema: TObject, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...values };
  for (const [name, value] of Object.entries(values)) {
    const type = (schema.properties[name] as { type?: string } | undefined)?.type;
    if (typeof value !== "string") continue;
    if (type === "integer" && /^[+-]?\d{1,15}$/.test(value.trim())) out[name] = Number(value);
    else if (type === "number" && value.trim() !== "" && Number.isFinite(Number(value))) out[name] = Number(value);
    else if (type === "boolean" && /^(true|false|1|0)$/i.test(value)) out[name] = /^(true|1)$/i.test(value);
  }
  return out;
}

/**
 * Other spellings clients use for the campaign id (the legacy world name, camelCase): each maps to
 * the name the operation declares when that one is absent.
 */
const ID_SPELLINGS: Record<string, readonly string[]> = {
  campaign_id: ["world_id", "campaignId", "worldId"],
  world_id: ["campaign_id", "worldId", "campaignId"],
};

function withIdAliases(schema: TObject, values: Record<string, unknown>): Record<string, unknown> {
  let out = values;
  for (const [name, spellings] of Object.entries(ID_SPELLINGS)) {
    if (!(name in schema.properties) || values[name] !== undefined) continue;
    const spelling = spellings.find((other) => values[other] !== undefined && !(other in schema.properties));
    if (spelling) out = { ...out, [name]: values[spelling] };
  }
  return out;
}

/** The date-time fields of a part: their own schema, or the non-null branch of `X | null`. */
const isDateTime = (schema: TSchema): boolean =>
  (schema as { format?: string }).format === "date-time" || ((schema as { anyOf?: TSchema[] }).anyOf ?? []).some(isDateTime);

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Spellings real clients send, made canonical before validation: dates without a zone
 * ("2024-01-06T00:00:00", or a bare "2024-01-06") are read as UTC, the only reading that keeps
 * the calendar date they meant; enum values a schema lists under `x-aliases` (the live service's
 * older names) become the canonical value.
 */
function withCanonicalSpellings(schema: TObject, values: Record<string, unknown>): Record<string, unknown> {
  let out = values;
  for (const [name, value] of Object.entries(values)) {
    const field = schema.properties[name];
    if (typeof value !== "string" || !field) continue;
    const alias = (field as { "x-aliases"?: Record<string, string> })["x-aliases"];
    if (alias && Object.hasOwn(alias, value)) out = { ...out, [name]: alias[value] };
    else if (!isDateTime(field)) continue;
    else if (BARE_DATE.test(value)) out = { ...out, [name]: `${value}T00:00:00Z` };
    else if (ZONELESS.test(value)) out = { ...out, [name]: `${value}Z` };
  }
  return out;
}

/** Deeper JSON than any record needs; checked before anything recursive touches the input. */
export const MAX_INPUT_DEPTH = 64;

/** The first top-level field whose value nests deeper than the limit, without recursion. */
function tooDeepField(value: Record<string, unknown>): string | null {
  for (const [field, root] of Object.entries(value)) {
    const stack: [unknown, number][] = [[root, 1]];
    while (stack.length) {
      const [item, depth] = stack.pop()!;
      if (item === null || typeof item !== "object") continue;
      if (depth > MAX_INPUT_DEPTH) return field;
      for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate is not Unicode at all: refuse
 * both at the door instead of failing in the database or storing text no client can decode.
 */
function textIssues(value: unknown, loc: (string | number)[], found: FieldIssue[]): FieldIssue[] {
  if (found.length >= 10) return found;
  const check = (text: string, at: (string | number)[]) => {
    if (text.includes("\u0000")) found.push({ type: "string_nul", loc: at, msg: "Text cannot contain the NUL character (\\u0000)", input: text });
    else if (!text.isWellFormed()) found.push({ type: "string_unicode", loc: at, msg: "Text must be valid Unicode (it contains a lone UTF-16 surrogate)", input: text.toWellFormed() });
  };
  if (typeof value === "string") check(value, loc);
  else if (Array.isArray(value)) value.forEach((item, index) => textIssues(item, [...loc, index], found));
  else if (value && typeof value === "object")
    for (const [key, item] of Object.entries(value)) {
      check(key, [...loc, key]);
      textIssues(item, [...loc, key], found);
    }
  return found;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Validates and normalizes raw inputs: query strings are converted to the declared types,
 * defaults filled, unknown fields dropped. Every problem in every part is reported at once.
 */
export function decodeInputs(operation: Operation, raw: Partial<Record<InputPart, unknown>>): Result<Inputs> {
  const decoded: Inputs = { path: {}, query: {}, body: {} };
  const issues: FieldIssue[] = [];
  for (const { part, schema, check } of partsOf(operation)) {
    const given = raw[part] ?? {};
    if (!isPlainObject(given)) {
      // Not echoed when it is a structure: it may nest deeper than anything can serialize back.
      issues.push({ type: "model_attributes_type", loc: [part], msg: "Input should be a valid object", input: typeof given === "object" ? null : given });
      continue;
    }
    const deep = tooDeepField(given);
    if (deep !== null) {
      issues.push({ type: "json_too_deep", loc: [part, deep], msg: `Input nests deeper than ${MAX_INPUT_DEPTH} levels`, input: null });
      continue;
    }
    // A required field whose schema says how its absence is refused (`x-missing`): 400 with that detail.
    for (const name of schema.required ?? []) {
      const missing = (schema.properties[name] as { "x-missing"?: string } | undefined)?.["x-missing"];
      if (missing && given[name] === undefined) return fail("bad_request", missing);
    }
    let value: unknown = Value.Default(schema, Value.Clone(withCanonicalSpellings(schema, withIdAliases(schema, given))));
    if (part !== "body") value = coerceStrings(schema, value as Record<string, unknown>);
    if (!check.Check(value)) {
      issues.push(...issuesOf(part, schema, value));
      continue;
    }
    const cleaned = Value.Clean(schema, value) as Record<string, unknown>;
    const bad = textIssues(cleaned, [part], []);
    if (bad.length) {
      issues.push(...bad);
      continue;
    }
    decoded[part] = cleaned;
  }
  if (issues.length) return fail("invalid", issues[0]!.msg, issues);
  return { ok: true, value: decoded };
}
