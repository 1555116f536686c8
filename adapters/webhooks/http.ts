// Webhook delivery over HTTP, signed per Standard Webhooks (https://www.standardwebhooks.com/), with
// an SSRF guard: targets on private, loopback, link-local and other non-public addresses are refused
// (at registration and again at every delivery, as DNS may change) unless the operator allows them.
import { createHmac, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { WebhookAttempt, WebhookMessage, WebhookSender } from "../../ports/webhooks.ts";

const v4 = (address: string): number[] => address.split(".").map(Number);

/** Addresses a webhook may not reach unless allowed: everything that is not the public internet. */
export function isNonPublicAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const [a, b] = v4(address) as [number, number];
    return (
      a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224
    );
  }
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isNonPublicAddress(mapped[1]!);
  return lower === "::" || lower === "::1" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || /^ff/.test(lower) || lower.startsWith("64:ff9b:") || lower.startsWith("2001:db8");
}

export function httpWebhookSender(options: { allowPrivateTargets: boolean; timeoutMs: number; userAgent?: string }): WebhookSender {
  const refusal = async (raw: string): Promise<string | null> => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "The webhook URL is not a valid URL";
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return "The webhook URL must be http:// or https://";
    if (url.username || url.password) return "The webhook URL must not carry credentials";
    if (options.allowPrivateTargets) return null;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
      } catch {
        return `The webhook host ${host} does not resolve`;
      }
    }
    const blocked = addresses.find(isNonPublicAddress);
    return blocked ? `The webhook URL resolves to ${blocked}, a private, loopback or link-local address (refused against SSRF; the operator may allow it with WEBHOOK_ALLOW_PRIVATE_TARGETS)` : null;
  };
  return {
    newSecret: () => `whsec_${randomBytes(24).toString("base64")}`,
    refusal,
    async send(message: WebhookMessage): Promise<WebhookAttempt> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const refused = await refusal(message.url);
      if (refused) return { status: null, error: refused, ms: elapsed() };
      const key = Buffer.from(message.secret.replace(/^whsec_/, ""), "base64");
      const signature = createHmac("sha256", key).update(`${message.id}.${message.timestamp}.${message.body}`).digest("base64");
      try {
        const response = await fetch(message.url, {
          method: "POST",
          // A redirect could lead anywhere (a private address): not followed, and not a success.
          redirect: "manual",
          signal: AbortSignal.timeout(options.timeoutMs),
          headers: {
            "content-type": "application/json",
            "user-agent": options.userAgent ?? "campaign-memory-service-webhooks",
            "webhook-id": message.id,
            "webhook-timestamp": String(message.timestamp),
            "webhook-signature": `v1,${signature}`,
          },
          body: message.body,
        });
        await response.body?.cancel().catch(() => {});
        const ok = response.status >= 200 && response.status < 300;
        return { status: response.status, error: ok ? null : `HTTP ${response.status}`, ms: elapsed() };
      } catch (error) {
        const name = (error as Error).name;
        return { status: null, error: name === "TimeoutError" ? `No answer within ${options.timeoutMs} ms` : `Could not deliver: ${(error as Error).message}`, ms: elapsed() };
      }
    },
  };
}
