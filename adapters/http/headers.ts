// Cross-origin access and security headers, the same on every answer the HTTP adapter gives.

export interface CorsOptions {
  /** `*`, or the exact origins (scheme://host[:port]) allowed to call from a browser. */
  origins: "*" | readonly string[];
}

/** Headers every browser client may send; requested ones are allowed too (auth is never a cookie). */
const ALLOWED_REQUEST_HEADERS = ["x-api-key", "authorization", "content-type", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id", "x-request-id"];

/** What browser clients read from answers. */
export const EXPOSED_HEADERS = [
  "retry-after",
  "www-authenticate",
  "x-monthly-remaining-tokens",
  "x-hourly-remaining-tokens",
  "mcp-session-id",
  "mcp-protocol-version",
  "x-request-id",
  "ratelimit",
  "ratelimit-policy",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "location",
  "etag",
  "content-disposition",
].join(", ");

const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/** The origin to allow for this request, or null when it may not read the answer. */
export function allowedOrigin(options: CorsOptions, origin: string | null): string | null {
  if (options.origins === "*") return "*";
  return origin && options.origins.includes(origin) ? origin : null;
}

/** Headers that let a browser page read an ordinary answer (browsers always send Origin then). */
export function corsHeaders(options: CorsOptions, origin: string | null): Record<string, string> {
  if (origin === null) return options.origins === "*" ? {} : { vary: "Origin" };
  const allowed = allowedOrigin(options, origin);
  const headers: Record<string, string> = options.origins === "*" ? {} : { vary: "Origin" };
  if (allowed) {
    headers["access-control-allow-origin"] = allowed;
    headers["access-control-expose-headers"] = EXPOSED_HEADERS;
  }
  return headers;
}

/** The answer to a preflight: no auth, no body. `methods` are the ones the path takes. */
export function preflightResponse(options: CorsOptions, request: Request, methods: readonly string[]): Response {
  const origin = request.headers.get("origin");
  const headers = new Headers(corsHeaders(options, origin));
  headers.set("allow", [...methods, "OPTIONS"].join(", "));
  if (allowedOrigin(options, origin)) {
    headers.set("access-control-allow-methods", methods.length ? [...methods, "OPTIONS"].join(", ") : ALLOWED_METHODS);
    const requested = request.headers.get("access-control-request-headers");
    const extra = requested && HEADER_LIST.test(requested.trim()) ? requested.toLowerCase().split(/\s*,\s*/) : [];
    headers.set("access-control-allow-headers", [...new Set([...ALLOWED_REQUEST_HEADERS, ...extra])].join(", "));
    headers.set("access-control-max-age", "7200");
  }
  if (options.origins !== "*") headers.append("vary", "Access-Control-Request-Method, Access-Control-Request-Headers");
  return new Response(null, { status: 204, headers });
}

/** On every answer: nothing sniffed, nothing leaked in referrers, nothing framed. */
export const BASE_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** JSON and other non-page answers may not load or run anything. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The API reference page: its script and styles come from this server only (the bundle is served
 * from `/docs/assets/`); Scalar injects style elements, hence 'unsafe-inline' for styles alone.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Parses CORS_ORIGINS: `*` (the default) or a comma-separated list of origins. */
export function parseCorsOrigins(raw: string | undefined): CorsOptions["origins"] | { error: string } {
  const value = raw?.trim();
  if (!value || value === "*") return "*";
  const origins: string[] = [];
  for (const part of value.split(",").map((item) => item.trim()).filter(Boolean)) {
    let url: URL | null = null;
    try {
      url = new URL(part);
    } catch {}
    if (!url || !["http:", "https:"].includes(url.protocol) || url.origin !== part.replace(/\/+$/, ""))
      return { error: `CORS_ORIGINS must be * or a comma-separated list of origins like https://foundry.example.com (got "${part}")` };
    origins.push(url.origin);
  }
  return origins.length ? origins : "*";
}
