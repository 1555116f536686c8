// Headless Chromium (Debian's package) driven by playwright-core, as a user's browser.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Null when Chromium can run here; otherwise why the browser suites are skipped. */
export const browserUnavailableReason = (): string | null =>
  existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install Debian's package: apt-get install chromium; .ci/run does)`;

/** A fresh profile (a new --user-data-dir) each time, removed on close. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "cms-chromium-"));
  // The closed network refuses Chromium's own calls: these flags keep it from making any.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      "--disable-quic",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
