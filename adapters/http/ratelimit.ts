// Rate limits (DESIGN 9): a token bucket per API key or token, and per client address on the OAuth
// endpoints. Decided in memory, so a request costs no database round trip; every instance writes
// what it spent to the shared buckets in the record store a few times a second and takes back
// what all instances left, so N instances enforce one limit (each may overshoot by what it admits
// in one sync interval before it hears of the others).
import type { RateLimitStore } from "../../ports/records.ts";
import type { Logger } from "../../ports/system.ts";

export interface BucketSettings {
  /** Sustained rate; 0 turns the limit off. */
  perMinute: number;
  /** Requests that may come at once. */
  burst: number;
}

export interface RateLimits {
  keys: BucketSettings;
  oauth: BucketSettings;
  /** How often spending is written to the shared buckets. */
  syncMs?: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { keys: { perMinute: 600, burst: 60 }, oauth: { perMinute: 60, burst: 20 } };

interface Bucket {
  tokens: number;
  at: number;
  /** Spent here since the last sync. */
  pending: number;
  kind: "keys" | "oauth";
}

export type Decision = { allowed: true; headers: Record<string, string> } | { allowed: false; retryAfter: number; headers: Record<string, string> };

/** Buckets kept in memory at most; full, synced ones are dropped first (they are the same as none). */
const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private flushing: Promise<void> | null = null;
  private lastPrune = Date.now();
  private warned = false;

  constructor(
    private readonly limits: RateLimits,
    private readonly store: RateLimitStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private settings(kind: Bucket["kind"]) {
    const { perMinute, burst } = this.limits[kind];
    return { perSecond: perMinute / 60, burst };
  }

  /** Takes one token for `subject`, or says how long until one is there. */
  take(subject: string, kind: Bucket["kind"]): Decision | null {
    const { perSecond, burst } = this.settings(kind);
    if (perSecond <= 0) return null;
    const now = this.now();
    let bucket = this.buckets.get(subject);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.evict();
      bucket = { tokens: burst, at: now, pending: 0, kind };
      this.buckets.set(subject, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
    }
    const policy = { "ratelimit-policy": `${burst};w=${Math.round(burst / perSecond)}`, "ratelimit-limit": String(burst) };
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      return { allowed: false, retryAfter, headers: { ...policy, "ratelimit-remaining": "0", "ratelimit-reset": String(retryAfter), "retry-after": String(retryAfter) } };
    }
    bucket.tokens -= 1;
    bucket.pending += 1;
    const reset = Math.ceil((burst - bucket.tokens) / perSecond);
    return { allowed: true, headers: { ...policy, "ratelimit-remaining": String(Math.floor(bucket.tokens)), "ratelimit-reset": String(reset) } };
  }

  private evict() {
    for (const [subject, bucket] of this.buckets) {
      if (this.buckets.size < MAX_BUCKETS * 0.9) return;
      if (bucket.pending === 0) this.buckets.delete(subject);
    }
  }

  /** Writes what was spent here to the shared buckets and takes back what every instance left. */
  flush(): Promise<void> {
    this.flushing ??= this.sync().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async sync() {
    for (const kind of ["keys", "oauth"] as const) {
      const spent: { subject: string; count: number }[] = [];
      for (const [subject, bucket] of this.buckets) if (bucket.kind === kind && bucket.pending > 0) spent.push({ subject, count: bucket.pending });
      if (!spent.length) continue;
      for (const { subject } of spent) this.buckets.get(subject)!.pending = 0;
      const { perSecond, burst } = this.settings(kind);
      try {
        const left = await this.store.spend(spent, perSecond, burst);
        const now = this.now();
        for (const [subject, tokens] of left) {
          const bucket = this.buckets.get(subject);
          // What was spent here while the statement ran is not in the answer yet.
          if (bucket) Object.assign(bucket, { tokens: tokens - bucket.pending, at: now });
        }
        this.warned = false;
      } catch (error) {
        // Kept to be written next time; the limit still holds on this instance meanwhile.
        for (const { subject, count } of spent) {
          const bucket = this.buckets.get(subject);
          if (bucket) bucket.pending += count;
        }
        if (!this.warned) this.log.warn("rate-limit sync failed", { error: (error as Error).message });
        this.warned = true;
      }
    }
    // Full buckets are the same as none: dropped here, and in the store now and then.
    const now = this.now();
    for (const [subject, bucket] of this.buckets) {
      const { perSecond, burst } = this.settings(bucket.kind);
      if (bucket.pending === 0 && bucket.tokens + ((now - bucket.at) / 1000) * perSecond >= burst) this.buckets.delete(subject);
    }
    if (now - this.lastPrune > 60_000) {
      this.lastPrune = now;
      const longest = Math.max(...(["keys", "oauth"] as const).map((kind) => { const { perSecond, burst } = this.settings(kind); return perSecond > 0 ? burst / perSecond : 0; }));
      await this.store.prune(longest + 60).catch(() => {});
    }
  }

  start() {
    this.timer ??= setInterval(() => void this.flush(), this.limits.syncMs ?? 500);
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush().catch(() => {});
  }
}
