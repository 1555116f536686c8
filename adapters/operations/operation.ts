// The operation table's row type, and `invoke()`: the one place access is enforced and use cases run,
// whichever transport the call came through. Input validation is in validation.ts.
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { AccessLevel } from "../../domain/access.ts";
import { fail, isFailure, type Failure, type Result } from "../../domain/errors.ts";
import type { Caller } from "../../domain/identity.ts";
import type { CampaignWithStanding, OwnedKind } from "../../ports/records.ts";
import type { Deps } from "../../application/deps.ts";
import type { OAuthScope } from "../../domain/oauth.ts";
import { authenticate, authenticateIn, INVALID_KEY, plausibleKey, requireScope } from "../../application/auth.ts";
import { requireFirstParty, standingAccess, type CampaignAccess } from "../../application/access.ts";
import { asActor } from "../shared/actor.ts";
import { decodeInputs } from "./validation.ts";

export { decodeInputs, flatInputSchema, MAX_INPUT_DEPTH, splitFlatInput } from "./validation.ts";

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
  stream?: {
    pieces: AsyncIterable<string>;
    /** The same body as bytes, for binary bodies (a zipped vault); read either this or `pieces`, not both. */
    bytes?: AsyncIterable<Uint8Array>;
    contentType: string | null;
  };
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

const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

/** A raw answer's body as bytes pulled on demand (back-pressure reaches the producer). */
export function rawBodyStream(body: RawResponse["body"]): string | Uint8Array | ReadableStream<Uint8Array> {
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  let sinceCollection = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) return controller.close();
        const bytes = typeof value === "string" ? encoder.encode(value) : value;
        controller.enqueue(bytes);
        // A long stream leaves its pieces (rows, their JSON, these bytes) as garbage faster than the
        // collector comes by on its own: without a collection every few MB an export's memory grows
        // with its size (measured: +93 MB for a 31 MB export; every 4 MB, with 200-row fetches: +29 MB).
        sinceCollection += bytes.byteLength;
        if (sinceCollection >= COLLECT_EVERY_BYTES) {
          sinceCollection = 0;
          Bun.gc(true);
        }
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
