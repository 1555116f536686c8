// OAuth helpers for tests: a PKCE pair, and the consent page driven as a browser without scripts
// would (plain form posts with the page's cookies), parsing only what the page shows.
import { createHash, randomBytes } from "node:crypto";

export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The hidden fields of the page's first form, and the scopes offered as checkboxes. */
export function formOf(html: string): { fields: Record<string, string>; scopes: string[] } {
  const form = html.match(/<form[\s\S]*?<\/form>/)?.[0] ?? "";
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[unescape(m[1]!)] = unescape(m[2]!);
  const scopes = [...form.matchAll(/name="grant_scope" value="([^"]+)"/g)].map((m) => m[1]!);
  return { fields, scopes };
}

/** A browser's cookie jar, enough for one origin. */
export class Jar {
  cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  get header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface ConsentOutcome {
  /** Where the browser was sent at the end (the client's redirect URI with code or error). */
  location: string | null;
  status: number;
  html: string;
}

/**
 * Opens the authorization URL, signs in with `key`, then allows (optionally unticking scopes) or
 * denies. Each step is a form post with the page's own hidden fields and cookies.
 */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export async function driveConsent(
  authorizationUrl: string,
  key: string,
  options: { answer?: "approve" | "deny"; scopes?: string[]; jar?: Jar; fetch?: Fetcher } = {},
): Promise<ConsentOutcome> {
  const jar = options.jar ?? new Jar();
  const fetch = options.fetch ?? globalThis.fetch;
  const origin = new URL(authorizationUrl).origin;
  const opened = await fetch(authorizationUrl, { redirect: "manual", headers: { cookie: jar.header } });
  jar.take(opened);
  let html = await opened.text();
  if (opened.status !== 200) return { location: opened.headers.get("location"), status: opened.status, html };
  const post = async (fields: Record<string, string>, extra: [string, string][] = []) => {
    const body = new URLSearchParams(Object.entries(fields));
    for (const [name, value] of extra) body.append(name, value);
    const response = await fetch(`${origin}/oauth/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header, origin },
      body,
    });
    jar.take(response);
    return response;
  };
  let form = formOf(html);
  if (!form.scopes.length) {
    const signedIn = await post({ ...form.fields, action: "signin", api_key: key });
    html = await signedIn.text();
    if (signedIn.status !== 200) return { location: null, status: signedIn.status, html };
    form = formOf(html);
  }
  const answer = options.answer ?? "approve";
  const chosen = answer === "approve" ? (options.scopes ?? form.scopes) : [];
  const answered = await post({ ...form.fields, action: answer }, chosen.map((scope) => ["grant_scope", scope]));
  return { location: answered.headers.get("location"), status: answered.status, html: await answered.text() };
}
