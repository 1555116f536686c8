// The rate limiter's own cost per request, in isolation: the key's digest, the bucket, the headers.
// The store is a no-op (syncs run off the request path). Run: bun bench/ratelimit-micro.ts
import { createHash } from "node:crypto";
import { RateLimiter } from "../adapters/http/ratelimit.ts";
const store = { spend: async () => new Map(), prune: async () => 0 } as any;
const log = { debug() {}, info() {}, warn() {}, error() {} };
const limiter = new RateLimiter({ keys: { perMinute: 1_000_000, burst: 1_000_000 }, oauth: { perMinute: 60, burst: 20 } }, store, log);
const key = "cms_" + "a".repeat(43);
const n = 500_000;
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let i = 0; i < n; i++) limiter.take(`key:${createHash("sha256").update(key).digest("hex")}`, "keys");
  console.log(`${(((performance.now() - t) * 1000) / n).toFixed(2)} µs per request (digest + bucket + headers)`);
}
