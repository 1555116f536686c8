// The OAuth consent page in a real browser (headless Chromium): signing in with a key, unticking a
// scope, allowing and denying, on a phone-sized screen; screenshots are kept for a person to look at.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { browserUnavailableReason, launchBrowser } from "../support/browser.ts";
import { newUser } from "../support/client.ts";
import { pkcePair } from "../support/oauth.ts";
import { freePort, startServer, type TestServer } from "../support/server.ts";

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`\n*** SKIPPED BACKEND: browser suites: ${skipReason} ***\n`);
const SHOTS = process.env.SCREENSHOT_DIR ?? "/tmp";

describe.skipIf(skipReason !== null)("the consent page in headless Chromium", () => {
  let service: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let callback: ReturnType<typeof Bun.serve>;
  let key: string;
  let clientId: string;
  const received: URL[] = [];

  beforeAll(async () => {
    [service, browser] = await Promise.all([startServer(), launchBrowser()]);
    key = (await newUser(service.url, service.adminKey, "Scanlan")).key;
    // The application's loopback listener (RFC 8252), where the browser lands at the end.
    callback = Bun.serve({
      port: freePort(),
      hostname: "127.0.0.1",
      fetch: (request) => {
        const url = new URL(request.url);
        if (url.pathname === "/callback") received.push(url); // not the favicon
        return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
      },
    });
    const registered = await fetch(`${service.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Claude", redirect_uris: ["http://127.0.0.1/callback"] }),
    });
    clientId = (await registered.json()).client_id;
  });
  afterAll(async () => {
    callback?.stop(true);
    await Promise.all([browser?.close(), service?.stop()]);
  });

  const authorizeUrl = (state: string) =>
    `${service.url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: `http://127.0.0.1:${callback.port}/callback`,
      state,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      scope: "profile worlds_read characters_read agent_write",
      resource: `${service.url}/mcp`,
    })}`;

  test("sign in, untick a scope, allow: the application gets a code for what was left ticked", async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems: string[] = [];
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    await page.goto(authorizeUrl("phone-1"));
    await page.getByRole("heading", { name: "Allow Claude to use your Campaign Memory?" }).waitFor();
    expect(await page.getByText("a program on your own computer").count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/cms-consent-signin.png`, fullPage: true });

    await page.getByLabel("Sign in by pasting one of your API keys").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as Scanlan").waitFor();
    expect(await page.getByRole("checkbox").count()).toBe(4);
    await page.getByRole("checkbox", { name: "Create, change and delete things in your campaigns" }).uncheck();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/cms-consent-allow.png`, fullPage: true });

    await page.getByRole("button", { name: "Allow" }).click();
    await page.getByText("You can close this window.").waitFor();
    const landed = received.at(-1)!;
    expect(landed.searchParams.get("state")).toBe("phone-1");
    expect(landed.searchParams.get("code")).toMatch(/^cmsac_/);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  test("deny: the application hears access_denied with its state", async () => {
    const page = await browser.context.newPage();
    await page.goto(authorizeUrl("phone-2"));
    // Still signed in from the first test (the sign-in cookie): Allow and Deny are offered at once.
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByText("You can close this window.").waitFor();
    const landed = received.at(-1)!;
    expect(Object.fromEntries(landed.searchParams)).toEqual({ error: "access_denied", error_description: "The user denied the request", state: "phone-2", iss: service.url });
    await page.close();
  }, 60_000);

  test("the page cannot be framed", async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(authorizeUrl("frame"));
    expect(response!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response!.headers()["x-frame-options"]).toBe("DENY");
    await page.close();
  });
});
