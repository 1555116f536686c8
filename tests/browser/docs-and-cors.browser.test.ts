// What a user's browser does with the service: the API reference page renders under its CSP, and
// a page on another origin (a Foundry VTT module, say) calls the API with x-api-key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { browserUnavailableReason, launchBrowser } from "../support/browser.ts";
import { freePort, startServer, type TestServer } from "../support/server.ts";

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`\n*** SKIPPED BACKEND: browser suites: ${skipReason} ***\n`);

describe.skipIf(skipReason !== null)("in headless Chromium", () => {
  let service: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let otherOrigin: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startServer(), launchBrowser()]);
    // A page on another origin (another port), like a VTT module's page.
    otherOrigin = Bun.serve({ port: freePort(), hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><title>module</title><p>module page</p>", { headers: { "content-type": "text/html" } }) });
  });
  afterAll(async () => {
    otherOrigin?.stop(true);
    await Promise.all([browser?.close(), service?.stop()]);
  });

  test("/docs renders the reference without breaking its own CSP", async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      // The bundle's stylesheet names its web fonts on fonts.scalar.com; the CSP keeps them out
      // (system fonts are used), which is the policy working. Anything else is a problem.
      if (message.type() === "warning" && /invalid reference/i.test(message.text())) problems.push(message.text());
      // Vue inside the bundle reports a hydration mismatch on its own markup now and then: not ours.
      if (/^Hydration completed but contains mismatches/.test(message.text())) return;
      if (message.type() === "error" && !/Loading the font 'https:\/\/fonts\.scalar\.com\//.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    const leftThePage: string[] = [];
    page.on("requestfinished", (request) => {
      if (!request.url().startsWith(service.url) && !request.url().startsWith("data:")) leftThePage.push(request.url());
    });
    await page.goto(`${service.url}/docs`);
    // The document's title and the operation groups appear once the reference has rendered.
    await page.getByRole("heading", { name: "Campaign Memory Service" }).waitFor({ timeout: 30_000 });
    await page.getByText("Characters").first().waitFor();
    expect(await page.locator("h1").count()).toBe(1);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? "/tmp"}/cms-docs.png` });
    expect(problems).toEqual([]);
    expect(leftThePage).toEqual([]);
    await page.close();
  }, 60_000);

  test("a page on another origin reads and writes with x-api-key (preflighted)", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${otherOrigin.port}/`);
    const outcome = await page.evaluate(
      async ({ base, key }) => {
        const created = await fetch(`${base}/v1/campaigns`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ title: "From the browser" }) });
        const body = await created.json();
        const listed = await fetch(`${base}/v1/campaigns`, { headers: { "x-api-key": key } });
        const denied = await fetch(`${base}/v1/campaigns`, { headers: { "x-api-key": "cms_wrong" } });
        return { status: created.status, title: body.title, listed: (await listed.json()).data.map((c: { title: string }) => c.title), denied: denied.status, challenge: denied.headers.get("www-authenticate") };
      },
      { base: service.url, key: service.adminKey },
    );
    expect(outcome).toEqual({ status: 201, title: "From the browser", listed: ["From the browser"], denied: 401, challenge: "Bearer" });
    await page.close();
  }, 60_000);
});
