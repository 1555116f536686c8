// The operator CLI's OAuth commands against a running server (which holds the embedded database,
// so the CLI sends them to it with the admin key): login-link, grants list, grants revoke.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { newUser } from "../support/client.ts";
import { driveConsent, pkcePair } from "../support/oauth.ts";
import { PROJECT_ROOT, startServer, type TestServer } from "../support/server.ts";

describe("cms login-link and cms grants", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  const cms = async (...args: string[]) => {
    const child = Bun.spawn([process.execPath, join(PROJECT_ROOT, "infra", "cli.ts"), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATA_DIR: server.dataDir, CMS_ADMIN_KEY: server.adminKey, PORT: String(server.port), LOG_LEVEL: "warn" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { stdout, stderr, code };
  };

  test("a sign-in link from the CLI, a grant made with it, listed and revoked from the CLI", async () => {
    const user = await newUser(server.url, server.adminKey, "Tary");
    const link = await cms("login-link", "--user", user.id);
    expect(link.code).toBe(0);
    const { url } = JSON.parse(link.stdout);
    expect(url).toMatch(new RegExp(`^${server.url.replace(/[.:/]/g, "\\$&")}/oauth/signin\\?code=cmsli_`));

    // The link pasted into the consent page's sign-in field signs in as the user.
    const client = await (await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "CLI Test", redirect_uris: ["http://127.0.0.1/cb"] }) })).json();
    const pkce = pkcePair();
    const authorize = `${server.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: "http://127.0.0.1:9/cb", state: "s", code_challenge: pkce.challenge, code_challenge_method: "S256", scope: "profile" })}`;
    const outcome = await driveConsent(authorize, url);
    const code = new URL(outcome.location!).searchParams.get("code")!;
    const tokens = await (await fetch(`${server.url}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: pkce.verifier, redirect_uri: "http://127.0.0.1:9/cb", client_id: client.client_id }) })).json();
    expect((await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);

    const listed = await cms("grants", "list", "--user", user.id);
    expect(listed.code).toBe(0);
    const grants = JSON.parse(listed.stdout).data;
    expect(grants.map((g: { client_name: string; scopes: string[]; revoked_at: null }) => [g.client_name, g.scopes, g.revoked_at])).toEqual([["CLI Test", ["profile"], null]]);

    const revoked = await cms("grants", "revoke", grants[0].id);
    expect(revoked.code).toBe(0);
    expect((await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    const again = await cms("grants", "revoke", grants[0].id);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe("error 404: Grant not found");
  }, 120_000);
});
