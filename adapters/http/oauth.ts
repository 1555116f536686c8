// OAuth 2.1 for MCP clients on HTTP: discovery (RFC 9728, RFC 8414), registration (RFC 7591),
// the authorization endpoint and its consent page, the token and revocation endpoints.
import type { Deps } from "../../application/deps.ts";
import {
  approve,
  checkAuthorizationRequest,
  exchangeCode,
  refreshTokens,
  registerClient,
  revokeToken,
  signedInUser,
  signIn,
  type AuthorizationRequest,
  type OAuthRefusal,
  type OAuthSettings,
} from "../../application/oauth.ts";
import { OAUTH_SCOPES, REGISTRATION_LIMITS, type OAuthScope } from "../../domain/oauth.ts";
import { BodyRejected, declaredTooLarge, readText, type BodyTimeouts } from "./body.ts";
import { consentPage, messagePage, signinLinkPage, type RequestFields } from "./consent.ts";

export interface OAuthRoute {
  method: "GET" | "POST";
  path: string;
  handle(request: Request): Promise<Response>;
}

/** RFC 9728 documents: the service as a whole, and its MCP endpoint (the path-suffix form). */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const resourceMetadataUrl = (issuer: string) => `${issuer}${PROTECTED_RESOURCE_PATH}/mcp`;

const FORM_LIMIT = 64 * 1024;
const AUTHORIZATION_FIELDS = ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "scope", "resource"] as const;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });

/** RFC 6749 5.2 errors, with the project's `detail` sentence beside them. */
const oauthError = (refusal: OAuthRefusal) => json(refusal.status, { error: refusal.error, error_description: refusal.description, detail: refusal.description });

/** Form fields (or a JSON object of strings, which some clients send). */
async function readForm(request: Request, timeouts: BodyTimeouts, limit = FORM_LIMIT): Promise<Record<string, string | undefined> & { __all?: URLSearchParams }> {
  const declared = declaredTooLarge(request.headers, limit);
  if (declared) throw declared;
  const text = await readText(request, limit, timeouts);
  if (/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text || "{}");
    } catch {
      return {};
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, value]) => typeof value === "string")) as Record<string, string>;
  }
  const params = new URLSearchParams(text);
  const fields: Record<string, string | undefined> & { __all?: URLSearchParams } = {};
  for (const [name, value] of params) if (!(name in fields)) fields[name] = value;
  fields.__all = params;
  return fields;
}

const cookiesOf = (request: Request): Map<string, string> => {
  const jar = new Map<string, string>();
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) jar.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return jar;
};

const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
function timingSafe(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const CSRF_COOKIE = "cms_oauth_csrf";
const SIGNIN_COOKIE = "cms_oauth_signin";

export function oauthRoutes({ deps, settings, bodyTimeouts }: { deps: Deps; settings: OAuthSettings; bodyTimeouts: BodyTimeouts }): OAuthRoute[] {
  const { issuer } = settings;
  const secure = issuer.startsWith("https:") ? "; Secure" : "";
  const issuerOrigin = new URL(issuer).origin;

  const resourceDocument = (resource: string) => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Campaign Memory Service",
    resource_documentation: `${issuer}/docs`,
  });

  const serverDocument = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };

  /** An HTML page under its own CSP: styles by nonce, forms only to here (and on to the client's redirect). */
  const html = (status: number, body: (nonce: string) => string, options: { formTargets?: string[]; cookies?: string[] } = {}) => {
    const nonce = randomToken();
    const headers = new Headers({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // Same-origin posts then carry Origin (checked above); the client's site still gets no Referer.
      "referrer-policy": "same-origin",
      "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self' ${(options.formTargets ?? []).join(" ")}; frame-ancestors 'none'; base-uri 'none'`.replace(/ ;/g, ";"),
    });
    for (const cookie of options.cookies ?? []) headers.append("set-cookie", cookie);
    return new Response(body(nonce), { status, headers });
  };

  /** Where the browser is sent after the user answers: CSP form-action must let the redirect through. */
  const formTargetOf = (redirectUri: string): string => {
    const url = new URL(redirectUri);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  };

  const backTo = (uri: string, params: Record<string, string | null>) => {
    const url = new URL(uri);
    for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
    url.searchParams.set("iss", issuer);
    return new Response(null, { status: 303, headers: { location: url.toString(), "cache-control": "no-store" } });
  };

  const csrfCookie = (value: string) => `${CSRF_COOKIE}=${value}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=3600${secure}`;

  /** The double-submit token: the cookie's value, set when missing. */
  const csrfFor = (request: Request): { value: string; cookie: string[] } => {
    const existing = cookiesOf(request).get(CSRF_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { value: existing, cookie: [] };
    const value = randomToken();
    return { value, cookie: [csrfCookie(value)] };
  };

  /** A form post must come from this page: same origin (when the browser says) and the cookie's token echoed. */
  const forged = (request: Request, fields: Record<string, string | undefined>): boolean => {
    const origin = request.headers.get("origin");
    // "null" says nothing (some browsers send it for same-origin posts): the token decides then.
    if (origin && origin !== "null" && origin !== issuerOrigin && origin !== new URL(request.url).origin) return true;
    const cookie = cookiesOf(request).get(CSRF_COOKIE);
    return !cookie || !fields.csrf || !timingSafe(cookie, fields.csrf);
  };

  const fieldsOf = (params: Record<string, string | undefined>): RequestFields => {
    const fields: RequestFields = {};
    for (const name of AUTHORIZATION_FIELDS) if (params[name] !== undefined) fields[name] = params[name]!;
    return fields;
  };

  const showConsent = (status: number, request: AuthorizationRequest, params: Record<string, string | undefined>, csrf: { value: string; cookie: string[] }, user: { name: string; email: string } | null, extra: { notice?: string; cookies?: string[] } = {}) =>
    html(
      status,
      (nonce) => consentPage({ clientName: request.client.client_name, redirectHost: request.redirectHost, scopes: request.scopes, fields: fieldsOf(params), csrf: csrf.value, user, notice: extra.notice }, nonce),
      { formTargets: [formTargetOf(request.redirectUri)], cookies: [...csrf.cookie, ...(extra.cookies ?? [])] },
    );

  const stopped = (message: string, status = 400) => html(status, (nonce) => messagePage("This request was stopped", message, nonce));

  /** Validates the request; an answer when it is not valid (an error page, or the error sent back to the client). */
  const check = async (params: Record<string, string | undefined>): Promise<{ request: AuthorizationRequest } | { answer: Response }> => {
    const checked = await checkAuthorizationRequest(deps, settings, params);
    if (checked.ok) return { request: checked.request };
    if ("page" in checked) return { answer: stopped(checked.page) };
    const { uri, state, error, description } = checked.redirect;
    return { answer: backTo(uri, { error, error_description: description, state }) };
  };

  const withBody = (work: (request: Request) => Promise<Response>) => async (request: Request) => {
    try {
      return await work(request);
    } catch (error) {
      if (error instanceof BodyRejected) return error.response();
      throw error;
    }
  };

  const authorizeGet = async (request: Request) => {
    const params = Object.fromEntries(new URL(request.url).searchParams) as Record<string, string | undefined>;
    const checked = await check(params);
    if ("answer" in checked) return checked.answer;
    const user = await signedInUser(deps, cookiesOf(request).get(SIGNIN_COOKIE) ?? null);
    return showConsent(200, checked.request, params, csrfFor(request), user);
  };

  const authorizePost = withBody(async (request: Request) => {
    const fields = await readForm(request, bodyTimeouts);
    if (forged(request, fields)) return stopped("This form did not come from this page, or it has expired. Go back to the application and connect again.", 403);
    const checked = await check(fields);
    if ("answer" in checked) return checked.answer;
    const authorization = checked.request;
    const csrf = csrfFor(request);
    if (fields.action === "deny") return backTo(authorization.redirectUri, { error: "access_denied", error_description: "The user denied the request", state: authorization.state });
    if (fields.action === "signin") {
      const signed = await signIn(deps, fields.api_key ?? "");
      if (!signed.ok) return showConsent(401, authorization, fields, csrf, null, { notice: `${signed.error.detail}. Check it and try again.` });
      const cookie = `${SIGNIN_COOKIE}=${signed.value.secret}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=1800${secure}`;
      return showConsent(200, authorization, fields, csrf, signed.value.user, { cookies: [cookie] });
    }
    if (fields.action !== "approve") return stopped("The form was sent without an answer (allow or deny).");
    const user = await signedInUser(deps, cookiesOf(request).get(SIGNIN_COOKIE) ?? null);
    if (!user) return showConsent(401, authorization, fields, csrf, null, { notice: "Your sign-in has expired. Sign in again." });
    const chosen = new Set(fields.__all?.getAll("grant_scope") ?? []);
    const scopes = authorization.scopes.filter((scope) => chosen.has(scope)) as OAuthScope[];
    if (!scopes.length) return showConsent(400, authorization, fields, csrf, user, { notice: "Tick at least one thing to allow, or deny the request." });
    const code = await approve(deps, authorization, user, scopes);
    return backTo(authorization.redirectUri, { code, state: authorization.state });
  });

  const signinGet = async (request: Request) => {
    const code = new URL(request.url).searchParams.get("code") ?? "";
    const csrf = csrfFor(request);
    return html(200, (nonce) => signinLinkPage(code, csrf.value, nonce), { cookies: csrf.cookie });
  };

  const signinPost = withBody(async (request: Request) => {
    const fields = await readForm(request, bodyTimeouts);
    if (forged(request, fields)) return stopped("This form did not come from this page, or it has expired. Open the link again.", 403);
    const signed = await signIn(deps, fields.code ?? "");
    if (!signed.ok) return html(401, (nonce) => messagePage("Not signed in", `${signed.error.detail}. Ask for a new link.`, nonce));
    const cookie = `${SIGNIN_COOKIE}=${signed.value.secret}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=1800${secure}`;
    return html(200, (nonce) => messagePage("Signed in", `You are signed in as ${signed.value.user.name}. Go back to the application's authorization page and reload it.`, nonce), { cookies: [cookie] });
  });

  const register = withBody(async (request: Request) => {
    const declared = declaredTooLarge(request.headers, REGISTRATION_LIMITS.bodyBytes);
    if (declared) throw declared;
    const text = await readText(request, REGISTRATION_LIMITS.bodyBytes, bodyTimeouts);
    let metadata: unknown;
    try {
      metadata = JSON.parse(text);
    } catch {
      return oauthError({ error: "invalid_client_metadata", description: "The registration must be a JSON object", status: 400 });
    }
    const registered = await registerClient(deps, metadata);
    return registered.ok ? json(201, registered.value) : oauthError(registered.refusal);
  });

  const token = withBody(async (request: Request) => {
    const fields = await readForm(request, bodyTimeouts);
    // A public client may still send its id in Basic auth (with an empty secret).
    const basic = request.headers.get("authorization")?.match(/^Basic\s+(.+)$/i)?.[1];
    if (basic && !fields.client_id) {
      const decoded = Buffer.from(basic, "base64").toString("utf8");
      fields.client_id = decodeURIComponent(decoded.split(":")[0] ?? "");
    }
    const grantType = fields.grant_type;
    const issued =
      grantType === "authorization_code"
        ? await exchangeCode(deps, settings, fields)
        : grantType === "refresh_token"
          ? await refreshTokens(deps, settings, fields)
          : { ok: false as const, refusal: { error: grantType ? "unsupported_grant_type" : "invalid_request", description: grantType ? `grant_type ${grantType} is not supported (authorization_code, refresh_token)` : "grant_type is required", status: 400 } };
    return issued.ok ? json(200, issued.value, { pragma: "no-cache" }) : oauthError(issued.refusal);
  });

  const revoke = withBody(async (request: Request) => {
    const fields = await readForm(request, bodyTimeouts);
    if (!fields.token) return oauthError({ error: "invalid_request", description: "token is required", status: 400 });
    await revokeToken(deps, fields);
    return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
  });

  return [
    { method: "GET", path: PROTECTED_RESOURCE_PATH, handle: async () => json(200, resourceDocument(issuer)) },
    { method: "GET", path: `${PROTECTED_RESOURCE_PATH}/mcp`, handle: async () => json(200, resourceDocument(settings.mcpResource)) },
    { method: "GET", path: "/.well-known/oauth-authorization-server", handle: async () => json(200, serverDocument) },
    { method: "POST", path: "/oauth/register", handle: register },
    { method: "GET", path: "/oauth/authorize", handle: authorizeGet },
    { method: "POST", path: "/oauth/authorize", handle: authorizePost },
    { method: "GET", path: "/oauth/signin", handle: signinGet },
    { method: "POST", path: "/oauth/signin", handle: signinPost },
    { method: "POST", path: "/oauth/token", handle: token },
    { method: "POST", path: "/oauth/revoke", handle: revoke },
  ];
}
