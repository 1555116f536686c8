// OAuth 2.1 for MCP clients: scopes, redirect-URI rules, PKCE shapes and lifetimes. Pure.

/** The scopes of the interface (Authentication 7); API keys carry all of them. */
export const OAUTH_SCOPES = ["profile", "worlds_read", "sessions_read", "characters_read", "agent_write"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What each scope lets a client do, in the words the consent page shows. */
export const SCOPE_WORDS: Record<OAuthScope, string> = {
  profile: "See your name and email address",
  worlds_read: "Read your campaigns and what is in them (factions, locations, items, quests, journals, links)",
  sessions_read: "Read your sessions: transcripts, story beats, key moments, handouts and recap cards",
  characters_read: "Read your characters",
  agent_write: "Create, change and delete things in your campaigns",
};

export const isOAuthScope = (value: string): value is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(value);

/** Space-separated scopes (RFC 6749 3.3), in the table's order; the unknown ones listed apart. */
export function parseScopes(raw: string | null | undefined): { scopes: OAuthScope[]; unknown: string[] } {
  const words = (raw ?? "").split(" ").filter(Boolean);
  return { scopes: OAUTH_SCOPES.filter((scope) => words.includes(scope)), unknown: words.filter((word) => !isOAuthScope(word)) };
}

/** Lifetimes, in seconds. Codes and access tokens are short; refresh tokens rotate on every use. */
export const CODE_TTL = 60;
export const ACCESS_TOKEN_TTL = 3600;
export const REFRESH_TOKEN_TTL = 30 * 24 * 3600;
export const SIGNIN_TTL = 30 * 60;
export const LOGIN_LINK_TTL = 10 * 60;

/** Prefixes that tell the secrets apart (and tell a token from an API key without a query). */
export const ACCESS_TOKEN_PREFIX = "cmsat_";
export const REFRESH_TOKEN_PREFIX = "cmsrt_";
export const CODE_PREFIX = "cmsac_";
export const LOGIN_LINK_PREFIX = "cmsli_";
export const SIGNIN_PREFIX = "cmssi_";

export const isAccessToken = (presented: string): boolean => presented.startsWith(ACCESS_TOKEN_PREFIX);

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
export const isValidVerifier = (verifier: string): boolean => /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
/** An S256 challenge: the base64url SHA-256 of a verifier, 43 characters. */
export const isValidChallenge = (challenge: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(challenge);

/** Registration limits (RFC 7591 leaves them to the server). */
export const REGISTRATION_LIMITS = { bodyBytes: 16 * 1024, redirectUris: 10, uriLength: 2000, nameLength: 200 } as const;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Schemes that must never receive a code (they run or read locally, or are plain text over the network). */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "about:", "blob:", "ftp:", "ws:", "wss:", "http:", "filesystem:", "view-source:", "chrome:", "mailto:"]);

export type RedirectKind = "https" | "loopback" | "app";

/** Parsed URL fields, so the domain needs no URL class of its own. */
export interface UrlParts {
  protocol: string;
  hostname: string;
  host: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
  username: string;
  password: string;
}

/**
 * Which redirect URIs a client may register: HTTPS anywhere, plain HTTP only to this machine's
 * loopback (RFC 8252 7.3), or an app's own scheme (RFC 8252 7.1, e.g. cursor://). Never a
 * fragment or user information. Returns the kind, or why not.
 */
export function redirectUriKind(raw: string, parts: UrlParts | null): RedirectKind | { refused: string } {
  if (raw.length > REGISTRATION_LIMITS.uriLength) return { refused: `redirect URI is longer than ${REGISTRATION_LIMITS.uriLength} characters` };
  if (!parts) return { refused: `redirect URI "${raw}" is not an absolute URI` };
  if (parts.hash || raw.includes("#")) return { refused: `redirect URI "${raw}" must not have a fragment` };
  if (parts.username || parts.password) return { refused: `redirect URI "${raw}" must not carry user information` };
  if (parts.protocol === "https:") return parts.hostname ? "https" : { refused: `redirect URI "${raw}" has no host` };
  if (parts.protocol === "http:")
    return LOOPBACK_HOSTS.has(parts.hostname) ? "loopback" : { refused: `redirect URI "${raw}" must use https (plain http is allowed only for localhost, 127.0.0.1 or [::1])` };
  if (FORBIDDEN_SCHEMES.has(parts.protocol) || !/^[a-z][a-z0-9+.-]*:$/.test(parts.protocol)) return { refused: `redirect URI "${raw}" uses a scheme that cannot receive a code` };
  return "app";
}

/**
 * Exact string match, except that a loopback redirect may use any port (RFC 8252 7.3: native apps
 * listen on whatever port is free): scheme, host, path and query must still be the same.
 */
export function redirectMatches(registered: readonly string[], requested: string, parse: (raw: string) => UrlParts | null): boolean {
  if (registered.includes(requested)) return true;
  const asked = parse(requested);
  if (!asked || asked.protocol !== "http:" || !LOOPBACK_HOSTS.has(asked.hostname) || asked.hash || requested.includes("#")) return false;
  return registered.some((candidate) => {
    const known = parse(candidate);
    return Boolean(known && known.protocol === "http:" && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search);
  });
}

/** What the consent page names as where the user is sent back. */
export const redirectHostOf = (parts: UrlParts, kind: RedirectKind): string =>
  kind === "app" ? `the app that opens ${parts.protocol}// links` : kind === "loopback" ? `a program on your own computer (${parts.host})` : parts.host;
