// The HTTP transport: an interpreter of the operation table on Elysia.
import { Elysia } from "elysia";
import { authenticate } from "../../application/auth.ts";
import type { Deps } from "../../application/deps.ts";
import { invalidField, type Failure } from "../../domain/errors.ts";
import { EventStream, invoke, RawResponse, rawBodyStream, routesOf, type Credentials, type Operation, type ServiceInfo } from "../operations/operation.ts";
import { join } from "node:path";
import { BodyRejected, declaredTooLarge, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUTS, limitedBytes, limitedText, readText, type BodyTimeouts } from "./body.ts";
import { presentedKey } from "../shared/credentials.ts";
import { createHash } from "node:crypto";
import type { Decision, RateLimiter } from "./ratelimit.ts";
import { bodyOf, STATUS_OF } from "../shared/failures.ts";
import { API_CSP, BASE_SECURITY_HEADERS, corsHeaders, DOCS_CSP, preflightResponse, type CorsOptions } from "./headers.ts";
import { DOCS_ASSETS, docsPage, openApiDocument } from "./openapi.ts";

export interface HttpAppOptions {
  deps: Deps;
  info: ServiceInfo;
  operations: readonly Operation[];
  /** Streamable-HTTP MCP endpoint, mounted at /mcp. */
  mcp?: (request: Request) => Promise<Response>;
  /** Browser origins allowed to call; `*` unless configured (CORS_ORIGINS). */
  cors?: CorsOptions;
  /** How long a request body may take (tests shorten it). */
  bodyTimeouts?: BodyTimeouts;
  /** Routes outside the operation table (OAuth, discovery): answered as they are, CORS and headers included. */
  routes?: readonly { method: "GET" | "POST"; path: string; handle(request: Request): Promise<Response> }[];
  /** Rate limits (DESIGN 9); none when absent. Decided before the route runs, without a query. */
  rateLimiter?: RateLimiter;
  /** Routes that carry bytes, not JSON, outside the operation table (the local blob store's PUT and GET). */
  byteRoutes?: readonly ByteRoute[];
}

/** Every path under `prefix`, answered by `handle` for `methods`; it sets its own cache headers. */
export interface ByteRoute {
  prefix: string;
  methods: readonly ("GET" | "HEAD" | "PUT")[];
  handle(request: Request): Promise<Response>;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });

export const failureResponse = (failure: Failure, headers: Record<string, string> = {}) => {
  let extra =
    failure.failure === "unauthorized"
      ? { "www-authenticate": "Bearer", ...headers }
      : failure.scope
        ? { "www-authenticate": `Bearer error="insufficient_scope", scope="${failure.scope}"`, ...headers }
        : headers;
  if (failure.retryAfterSeconds !== undefined) extra = { "retry-after": String(failure.retryAfterSeconds), ...extra };
  return jsonResponse(STATUS_OF[failure.failure], bodyOf(failure), extra);
};

/** Elysia's `set`: the headers the request hook gathered, and the status to answer. */
interface JsonSet {
  headers: Record<string, string | number>;
  status?: number | string;
}

/**
 * A JSON answer handed to Elysia as a string with its status and headers in `set`: Elysia then makes
 * one Response from them. A Response returned instead is copied into a second one with the hook's
 * headers merged in (new Headers, a body stream): about 5 % of a list page's CPU. The bytes are the
 * same: content type first, then the hook's headers in their order (tests/http check the answers).
 */
function jsonAnswer(set: JsonSet, status: number, body: unknown): string {
  set.status = status;
  set.headers = { ...JSON_HEADERS, ...set.headers };
  return JSON.stringify(body);
}

export const toElysiaPath = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1");

/**
 * Server-Sent Events: each value as one `data:` line of JSON. The values are produced as the client
 * reads; a client that goes away cancels the stream, which aborts the producer's signal.
 */
export function eventStreamResponse(status: number, answer: EventStream): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  let events: AsyncIterator<unknown> | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      events ??= answer.events(stop.signal)[Symbol.asyncIterator]();
      const next = await events.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
    },
    async cancel(reason) {
      stop.abort(reason);
      await events?.return?.();
    },
  });
  return new Response(body, {
    status,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no", ...answer.headers },
  });
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

type BodyRead = { ok: true; body: unknown } | { ok: false; failure: Failure };

/**
 * Bodies are JSON whatever the content type says (curl's default form type included): auth needs a
 * custom header, so a cross-site form can never reach a route anyway.
 */
async function readJsonBody(request: Request, limit: number, timeouts: BodyTimeouts): Promise<BodyRead> {
  const text = await readText(request, limit, timeouts);
  if (!text.trim()) return { ok: true, body: {} };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch (error) {
    const type = request.headers.get("content-type")?.split(";")[0];
    const msg =
      type && !JSON_TYPE.test(type)
        ? `Request body must be JSON (content type ${type} given, and the body is not JSON)`
        : `JSON decode error: ${(error as Error).message}`;
    return { ok: false, failure: { failure: "invalid", detail: msg, issues: [{ type: "json_invalid", loc: ["body"], msg, input: {} }] } };
  }
}

const ASSETS_DIR = join(import.meta.dir, "assets");
const DOCS_ASSET_FILES: Record<string, { file: string; type: string }> = {
  [DOCS_ASSETS.script]: { file: "scalar-api-reference.js", type: "text/javascript; charset=utf-8" },
  [DOCS_ASSETS.init]: { file: "docs-init.js", type: "text/javascript; charset=utf-8" },
};

/** A vendored asset, gzipped once when the client takes it; versioned names make it cacheable. */
function assetServer() {
  const cache = new Map<string, { plain: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer>; etag: string }>();
  return async (path: string, request: Request): Promise<Response> => {
    const asset = DOCS_ASSET_FILES[path]!;
    let entry = cache.get(path);
    if (!entry) {
      const plain = new Uint8Array(await Bun.file(join(ASSETS_DIR, asset.file)).arrayBuffer());
      entry = { plain, gzip: new Uint8Array(Bun.gzipSync(plain)), etag: `"${Bun.hash(plain).toString(36)}"` };
      cache.set(path, entry);
    }
    const headers: Record<string, string> = { "content-type": asset.type, etag: entry.etag, "cache-control": "public, max-age=86400", vary: "Accept-Encoding" };
    if (request.headers.get("if-none-match") === entry.etag) return new Response(null, { status: 304, headers });
    if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(entry.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
    return new Response(entry.plain, { headers });
  };
}

/**
 * The bucket a request draws from: its key or token (by digest, so before any lookup), and on the
 * OAuth endpoints its client address too. Null when nothing limits it.
 */
function rateLimited(limiter: RateLimiter, request: Request, pathname: string, address: () => string | null): Decision | null {
  const credential = presentedKey(request.headers);
  let decision: Decision | null = null;
  if (credential && credential.length <= 200) decision = limiter.take(`key:${createHash("sha256").update(credential).digest("hex")}`, "keys");
  if (pathname.startsWith("/oauth/") && decision?.allowed !== false) decision = limiter.take(`ip:${address() ?? "unknown"}`, "oauth") ?? decision;
  return decision;
}

export function buildHttpApp({ deps, info, operations, mcp, cors = { origins: "*" }, bodyTimeouts = DEFAULT_BODY_TIMEOUTS, routes = [], rateLimiter, byteRoutes = [] }: HttpAppOptions) {
  const context = { deps, info };
  const openapi = openApiDocument(operations, info);
  const routeShapes: { method: string; pattern: RegExp }[] = [];

  const handlerFor = (operation: Operation, path: string) => {
    const primaryNames = Object.keys(operation.input.path?.properties ?? {});
    const routeNames = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const bodyLimit = operation.http!.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
    const takesBody = Boolean(operation.input.body || operation.http!.rawBody);
    return async ({ request, params, query, set }: { request: Request; params: Record<string, string>; query: Record<string, unknown>; set: JsonSet }) => {
      // Alias routes name their ids differently (world_id): map them by position. Elysia has
      // already percent-decoded the values (and left out malformed ones, which then fail validation).
      const pathInput: Record<string, string> = {};
      let undecodable: string | undefined;
      routeNames.forEach((name, position) => {
        const value = params[name];
        if (typeof value === "string") pathInput[primaryNames[position] ?? name] = value;
        else undecodable ??= primaryNames[position] ?? name;
      });
      // Without a body, invoke() checks the key with the caller's standing in one query, after
      // validation. With one, the key is checked first: nothing is read for an unknown caller.
      let credentials: Credentials = { key: presentedKey(request.headers) };
      if (takesBody && operation.access.auth !== "none") {
        const authenticated = await authenticate(deps, credentials.key);
        if (!authenticated.ok) return failureResponse(authenticated.error);
        credentials = { caller: authenticated.value };
      }
      // The refusals below are answered only to a known caller: an unknown key gets its 401 first.
      const afterKey = async (refusal: () => Response) => {
        if ("key" in credentials && operation.access.auth !== "none") {
          const authenticated = await authenticate(deps, credentials.key);
          if (!authenticated.ok) return failureResponse(authenticated.error);
        }
        return refusal();
      };
      // A segment Elysia could not percent-decode is there but unreadable: say so, not "Field required".
      const unreadable = undecodable;
      if (unreadable) return afterKey(() => failureResponse(invalidField(["path", unreadable], "Not a valid percent-encoded value", null, "url_decoding")));
      // Only now, with the key checked, is the body looked at; a declared size over the limit is never read
      // (rare on a route that takes no body, where the key is checked here).
      const declared = declaredTooLarge(request.headers, bodyLimit);
      if (declared) return afterKey(() => declared.response());
      let result: Awaited<ReturnType<typeof invoke>>;
      try {
        let body: unknown = undefined;
        if (operation.input.body) {
          const read = await readJsonBody(request, bodyLimit, bodyTimeouts);
          if (!read.ok) return failureResponse(read.failure);
          body = read.body;
        }
        const stream =
          operation.http!.rawBody && request.body
            ? { pieces: limitedText(request, bodyLimit, bodyTimeouts), bytes: limitedBytes(request.body, bodyLimit, bodyTimeouts), contentType: request.headers.get("content-type") }
            : undefined;
        result = await invoke(operation, { ...context, stream, eventStreams: true }, credentials, { path: pathInput, query, body });
      } catch (error) {
        if (error instanceof BodyRejected) return error.response();
        throw error;
      }
      if (!result.ok) return failureResponse(result.error);
      if (operation.http!.status === 204) return new Response(null, { status: 204 });
      if (result.value instanceof EventStream) return eventStreamResponse(operation.http!.status, result.value);
      if (result.value instanceof RawResponse)
        return new Response(rawBodyStream(result.value.body) as BodyInit, { status: operation.http!.status, headers: { ...result.value.headers, "content-type": result.value.contentType } });
      return jsonAnswer(set, operation.http!.status, result.value);
    };
  };

  const app = new Elysia({ name: "campaign-memory-service" });

  const methodsAt = (pathname: string) => [...new Set(routeShapes.filter(({ pattern }) => pattern.test(pathname)).map(({ method }) => method))];

  app.onRequest(({ request, set, server }) => {
    const requestId = request.headers.get("x-request-id")?.slice(0, 100) || crypto.randomUUID();
    const { pathname } = new URL(request.url);
    Object.assign(set.headers, BASE_SECURITY_HEADERS, corsHeaders(cors, request.headers.get("origin")));
    set.headers["x-request-id"] = requestId;
    const asset = pathname.startsWith("/docs/assets/") || byteRoutes.some(({ prefix }) => pathname.startsWith(prefix));
    // Answers carry campaign data for one key: no cache may keep them.
    if (!asset) set.headers["cache-control"] = "no-store";
    set.headers["content-security-policy"] = pathname === "/docs" || pathname === "/docs/" ? DOCS_CSP : API_CSP;
    // Preflights carry no credentials: answered before any auth, for every route the path has.
    if (request.method === "OPTIONS") {
      const methods = methodsAt(pathname);
      if (!methods.length) return jsonResponse(404, { detail: "Not Found" });
      return preflightResponse(cors, request, methods);
    }
    if (rateLimiter) {
      // The address only where it is used (the OAuth endpoints): asking for it costs on every request.
      const decision = rateLimited(rateLimiter, request, pathname, () => server?.requestIP(request)?.address ?? null);
      if (decision && !decision.allowed) return jsonResponse(429, { detail: "Rate limit exceeded" }, decision.headers);
      if (decision) Object.assign(set.headers, decision.headers);
    }
  });

  app.onError(({ code, error, request, set }) => {
    if (code === "NOT_FOUND") {
      const allowed = methodsAt(new URL(request.url).pathname);
      if (allowed.length) return jsonResponse(405, { detail: "Method Not Allowed" }, { allow: [...allowed, "OPTIONS"].join(", ") });
      return jsonResponse(404, { detail: "Not Found" });
    }
    if (code === "PARSE") return jsonResponse(422, { detail: [{ type: "json_invalid", loc: ["body"], msg: "Request body could not be parsed", input: {} }] });
    deps.log.error("unhandled error", {
      request_id: set.headers["x-request-id"],
      method: request.method,
      path: new URL(request.url).pathname,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return jsonResponse(500, { detail: "Internal server error" });
  });

  for (const operation of operations) {
    if (!operation.http) continue;
    for (const { method, path } of routesOf(operation.http)) {
      const elysiaPath = toElysiaPath(path);
      routeShapes.push({ method, pattern: new RegExp(`^${elysiaPath.replace(/:[^/]+/g, "[^/]+")}/?$`) });
      app.route(method, elysiaPath, handlerFor(operation, path), { parse: "none" });
    }
  }

  for (const route of byteRoutes) {
    routeShapes.push(...route.methods.map((method) => ({ method, pattern: new RegExp(`^${route.prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.+$`) })));
    for (const method of route.methods) app.route(method, `${route.prefix}*`, ({ request }: { request: Request }) => route.handle(request), { parse: "none" });
  }

  app.get("/openapi.json", () => jsonResponse(200, openapi));
  routeShapes.push({ method: "GET", pattern: /^\/(openapi\.json|docs\/?)$/ });
  app.get("/docs", () => new Response(docsPage("/openapi.json"), { headers: { "content-type": "text/html; charset=utf-8" } }));
  const serveAsset = assetServer();
  for (const path of Object.keys(DOCS_ASSET_FILES)) app.get(path, ({ request }: { request: Request }) => serveAsset(path, request));
  for (const route of routes) {
    routeShapes.push({ method: route.method, pattern: new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/?$`) });
    app.route(route.method, route.path, ({ request }: { request: Request }) => route.handle(request), { parse: "none" });
  }
  if (mcp) {
    for (const method of ["GET", "POST", "DELETE"] as const) {
      routeShapes.push({ method, pattern: /^\/mcp\/?$/ });
      app.route(method, "/mcp", ({ request }: { request: Request }) => mcp(request), { parse: "none" });
    }
  }
  return app;
}
