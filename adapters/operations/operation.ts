// The operation table's row type, and the one place inputs are validated and use cases run,
// whichever transport the call came through.
import { FormatRegistry, Type, type Static, type TObject, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value, ValueErrorType, type ValueError } from "@sinclair/typebox/value";
import type { AccessLevel } from "../../domain/access.ts";
import { fail, isFailure, type Failure, type FieldIssue, type Result } from "../../domain/errors.ts";
import type { Caller } from "../../domain/identity.ts";
import type { CampaignWithStanding, OwnedKind } from "../../ports/records.ts";
import type { Deps } from "../../application/deps.ts";
import type { OAuthScope } from "../../domain/oauth.ts";
import { authenticate, authenticateIn, INVALID_KEY, plausibleKey, requireScope } from "../../application/auth.ts";
import { requireFirstParty, standingAccess, type CampaignAccess } from "../../application/access.ts";
import { asActor } from "../shared/actor.ts";

// ISO 8601 date-times with a zone, e.g. 2026-11-21T19:40:00Z.
if (!FormatRegistry.Has("date-time"))
  FormatRegistry.Set("date-time", (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)));

export interface ServiceInfo {
  name: string;
  version: string;
  environment: string;
  port: number;
  publicBaseUrl: string;
}

/** What every use case gets, whatever the operation's access. */
export interface BaseContext {
  deps: Deps;
  info: ServiceInfo;
  /** The raw request body, for operations that stream it (`http.rawBody`). */
  stream?: { pieces: AsyncIterable<string>; contentType: string | null };
  /** The transport can send an `EventStream` answer (HTTP); MCP answers whole results only. */
  eventStreams?: boolean;
}

/** The context `invoke()` builds from the declaration: a caller unless `auth: "none"`, the resolved access when campaign-scoped. */
export type ContextFor<A> = BaseContext &
  (A extends { auth: "none" } ? { caller: null } : { caller: Caller }) &
  (A extends { auth: "campaign" } ? { access: CampaignAccess } : unknown);

/** The context as interpreters see it, whatever the row. */
export interface OperationContext extends BaseContext {
  caller: Caller | null;
  access?: CampaignAccess;
}

/**
 * An answer sent as Server-Sent Events (HTTP only: see `BaseContext.eventStreams`): each event's
 * `data:` is one JSON value. `events` stops when `signal` aborts (the client went away).
 */
export class EventStream {
  constructor(
    readonly events: (signal: AbortSignal) => AsyncIterable<unknown>,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A non-JSON answer (markdown, an image, a streamed export): sent as is by HTTP, as text by MCP. */
export class RawResponse {
  constructor(
    readonly contentType: string,
    /** Pieces are streamed (an export): sent as they come, never held whole. */
    readonly body: string | Uint8Array | AsyncIterable<string | Uint8Array>,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A raw answer's body as bytes pulled on demand (back-pressure reaches the producer). */
export function rawBodyStream(body: RawResponse["body"]): string | Uint8Array | ReadableStream<Uint8Array> {
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

export type InputPart = "path" | "query" | "body";
export type Inputs = { path: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> };
export type InputSchemas = { path?: TObject; query?: TObject; body?: TObject };

/** The validated input `run` gets: each declared part's static type, `{}` for the parts not declared. */
export type InputOf<I extends InputSchemas> = {
  path: I["path"] extends TObject ? Static<I["path"]> : Record<string, never>;
  query: I["query"] extends TObject ? Static<I["query"]> : Record<string, never>;
  body: I["body"] extends TObject ? Static<I["body"]> : Record<string, never>;
};

/** What `run` must answer: the output schema's static type (or a raw answer), nothing (204) when there is none. */
export type OutputOf<O> = O extends TSchema ? Static<O> | RawResponse | EventStream : null | RawResponse;

/** OAuth scopes (DESIGN 7), declared per operation and enforced by `invoke()` for OAuth tokens (API keys carry full access). */
export { OAUTH_SCOPES, type OAuthScope } from "../../domain/oauth.ts";

/** Where a campaign-scoped operation's campaign is, found from the validated input. */
export type CampaignLocator = { campaign_id: string } | { record: OwnedKind; id: string; notFound: string };

/**
 * Who may call an operation, declared once and enforced by `invoke()`:
 * none = system route; user = any valid key, no campaign; first_party = a key with product_write;
 * campaign = a valid key with at least `level` in the campaign `campaign(input)` locates (a
 * Failure when the input names none). `hidden`: callers without the level are told the record
 * does not exist (404 with the locator's `notFound`), as for journal entries.
 */
export type Access<In> =
  | { auth: "none"; scope?: undefined }
  | { auth: "user"; scope: OAuthScope }
  | { auth: "first_party"; scope?: OAuthScope }
  | { auth: "campaign"; level: Exclude<AccessLevel, "none">; scope: OAuthScope; hidden?: boolean; campaign: (input: In) => CampaignLocator | Failure };

/** An access declaration as the interpreters see it (a method, so any row's locator fits). */
export type AnyAccess =
  | { auth: "none" | "user" | "first_party"; scope?: OAuthScope }
  | { auth: "campaign"; level: Exclude<AccessLevel, "none">; scope: OAuthScope; hidden?: boolean; campaign(input: Inputs): CampaignLocator | Failure };

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface HttpBinding {
  method: HttpMethod;
  /** OpenAPI style, e.g. /v1/campaigns/{campaign_id}. */
  path: string;
  status: 200 | 201 | 202 | 204;
  /** The body is not JSON: the use case reads it as a stream (transcript import). */
  rawBody?: boolean;
  /** Largest request body in bytes; 1 MiB when left out (see adapters/http/body.ts). */
  maxBodyBytes?: number;
  /**
   * The same operation elsewhere: a string is another path with the same method, path parameters
   * mapped by position (e.g. /v1/worlds/{world_id}); an object another method (e.g. PUT for PATCH).
   */
  aliases?: (string | HttpAlias)[];
  /** Publishes a 403 the access declaration does not imply (kept so the published document does not change). */
  documents403?: boolean;
  /** Answers Server-Sent Events when asked to (an `EventStream`): each event's data is this schema. */
  eventStream?: TSchema;
  /** Refusals the generic ones do not cover (e.g. 429 when a budget is used up), published with the operation. */
  documents?: { status: number; description: string }[];
}

/** The same operation under another method (and path), documented as its own OpenAPI operation. */
export interface HttpAlias {
  method: HttpMethod;
  path?: string;
  operationId: string;
  summary: string;
}

export interface HttpRoute {
  method: HttpMethod;
  path: string;
  /** Absent on the operation's own route. */
  alias?: string | HttpAlias;
}

/** Every route an operation answers on: its own first, then its aliases. */
export const routesOf = (http: HttpBinding): HttpRoute[] => [
  { method: http.method, path: http.path },
  ...(http.aliases ?? []).map((alias) =>
    typeof alias === "string" ? { method: http.method, path: alias, alias } : { method: alias.method, path: alias.path ?? http.path, alias },
  ),
];

export interface McpBinding {
  name: string;
  title: string;
  readOnly: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  /** False when the answer is not always the output schema's object (e.g. markdown on request). */
  structuredOutput?: boolean;
}

interface OperationMeta {
  id: string;
  summary: string;
  /** User-facing: becomes both the OpenAPI description and the MCP tool description. */
  description: string;
  tag: string;
  http?: HttpBinding;
  mcp?: McpBinding;
  /** Hidden from OpenAPI and MCP. */
  internal?: boolean;
}

/** One row as written: `run` is typed by the row's own schemas and access. */
export interface OperationDefinition<I extends InputSchemas, O extends TSchema | undefined, A extends Access<InputOf<I>>> extends OperationMeta {
  access: A;
  input: I;
  output?: O;
  run: (context: ContextFor<A>, input: InputOf<I>) => Promise<Result<OutputOf<O>>>;
}

/** A row as the interpreters see it. `run` is a method: the validator guarantees the input it is given. */
export interface Operation extends OperationMeta {
  access: AnyAccess;
  input: InputSchemas;
  output?: TSchema;
  run(context: OperationContext, input: Inputs): Promise<Result<unknown>>;
}

/** A row with the types it was defined with kept (for typed clients in tests); at run time just an `Operation`. */
export type TypedOperation<Id extends string, I extends InputSchemas, O> = Operation & {
  readonly id: Id;
  /** Never set: carries the row's static types. */
  readonly types?: { input: InputOf<I>; output: OutputOf<O> };
};

/**
 * Checks one row against its schemas and access at its definition; the table holds it type-erased.
 * (The implementation signature is the erased one: nothing is cast, the overload is what rows see.)
 */
export function defineOperation<const Id extends string, I extends InputSchemas, A extends Access<InputOf<I>>, O extends TSchema | undefined = undefined>(
  definition: OperationDefinition<I, O, A> & { id: Id },
): TypedOperation<Id, I, O>;
export function defineOperation(definition: Operation): Operation {
  return definition;
}

/** Body limits of the routes that need more than the default: big enough for what their schema accepts. */
export const BODY_LIMITS = {
  /** Journal content may be 2,000,000 characters plus content_rich: up to 6 bytes each once JSON-escaped. */
  journal: 16 * 1024 * 1024,
  /** Quest objectives and progress log alone may be about 2.9 million characters. */
  quest: 16 * 1024 * 1024,
  /** Notes of a session may be 2,000,000 characters. */
  session: 8 * 1024 * 1024,
  /** First-party documents with open-ended shapes. */
  artifact: 16 * 1024 * 1024,
  /** The longest CRD3 episode is 1.06 MB; 30 times that, and the import keeps it all in memory while it parses. */
  transcript: 32 * 1024 * 1024,
} as const;

/** Where a group of rows stands in the published order (routes, OpenAPI paths and components, MCP tools). */
export interface Placement {
  /** Groups are published in this order; the existing ones are 10, 20, … 160, so a new kind slots in between or after. */
  publishedAt: number;
}

/** A kind's rows, in their published order, placed among the other groups; the tuple keeps each row's types. */
export type OperationGroup<T extends readonly Operation[] = readonly Operation[]> = T & Placement;

const groups = new WeakSet<object>();

/** Whether a module's export is a group `defineOperations` made (adapters/operations/index.ts collects them). */
export const isOperationGroup = (value: unknown): value is OperationGroup => typeof value === "object" && value !== null && groups.has(value);

/**
 * A kind's rows, published at `placement`. Export the group and register its type in the file
 * (`declare module "./index.ts" { interface PublishedOperations { widgets: typeof widgetOperations } }`):
 * the table finds it there, so a new kind edits no other file.
 */
export function defineOperations<const T extends readonly Operation[]>(placement: Placement, operations: T): OperationGroup<T> {
  const group = Object.assign(operations, placement);
  groups.add(group);
  return group;
}

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
  const schema = error.schema as Record<string, any>;
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
      const literals = (schema.anyOf as Record<string, unknown>[] | undefined)
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

/** How the caller presented themselves: already authenticated by the transport, or the key still to check. */
export type Credentials = { caller: Caller } | { key: string | null };

/**
 * Authorizes, validates and runs one operation, from the row's access declaration. Both transports
 * call this and nothing else. Order: 401, then (first party) 403, then 422, then the campaign's
 * 404/403. A key not yet checked is checked together with the caller's standing in the campaign
 * the validated input names, in one round trip.
 */
export async function invoke(operation: Operation, context: BaseContext, credentials: Credentials, raw: Partial<Record<InputPart, unknown>>): Promise<Result<unknown>> {
  const { access } = operation;
  const { deps } = context;
  if (access.auth === "none") {
    const decoded = decodeInputs(operation, raw);
    return decoded.ok ? operation.run({ ...context, caller: null }, decoded.value) : decoded;
  }
  let caller = "caller" in credentials ? credentials.caller : null;
  const key = "key" in credentials ? credentials.key : null;
  // Never a query for a key that cannot be one.
  if (!caller && !plausibleKey(key)) return fail("unauthorized", INVALID_KEY);
  /** The key alone, when the answer is a refusal of the input: 401 still comes first. */
  const refuse = async (refusal: Result<never>): Promise<Result<never>> => {
    let who = caller;
    if (!who) {
      const known = await authenticate(deps, key);
      if (!known.ok) return known;
      who = known.value;
    }
    const scoped = requireScope(who, access.scope);
    return scoped.ok ? refusal : scoped;
  };
  if (access.auth !== "campaign") {
    if (!caller) {
      const known = await authenticate(deps, key);
      if (!known.ok) return known;
      caller = known.value;
    }
    if (access.auth === "first_party") {
      const allowed = requireFirstParty(caller);
      if (!allowed.ok) return allowed;
    }
    const scoped = requireScope(caller, access.scope);
    if (!scoped.ok) return scoped;
    const decoded = decodeInputs(operation, raw);
    const known = caller;
    return decoded.ok ? asActor(known.userId, () => operation.run({ ...context, caller: known }, decoded.value)) : decoded;
  }
  const decoded = decodeInputs(operation, raw);
  if (!decoded.ok) return refuse(decoded);
  const located = access.campaign(decoded.value);
  if (isFailure(located)) return refuse({ ok: false, error: located });
  let campaignId: string;
  if ("record" in located) {
    const owner = await deps.records.owners.campaignOf(located.record, located.id);
    if (!owner) return refuse(fail("not_found", located.notFound));
    campaignId = owner;
  } else campaignId = located.campaign_id;
  let found: CampaignWithStanding | null;
  if (caller) found = await deps.records.campaigns.getWithStanding(campaignId, caller.userId);
  else {
    const known = await authenticateIn(deps, key, campaignId);
    if (!known.ok) return known;
    ({ caller, found } = known.value);
  }
  const scoped = requireScope(caller, access.scope);
  if (!scoped.ok) return scoped;
  const granted = standingAccess(caller, found, access.level);
  if (!granted.ok) return access.hidden && "record" in located && granted.error.failure === "forbidden" ? fail("not_found", located.notFound) : granted;
  const known = caller;
  return asActor(known.userId, () => operation.run({ ...context, caller: known, access: granted.value }, decoded.value));
}
