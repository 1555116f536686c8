import { createHash, randomBytes } from "node:crypto";
import { API_KEY_PREFIX } from "../../domain/identity.ts";
import type { Digests, Clock, IdGenerator, KeyMinter, Logger } from "../../ports/system.ts";

export const systemClock: Clock = { now: () => new Date() };

/** UUIDv7 (RFC 9562): 48-bit millisecond time, then randomness; sorts by creation time. */
export const sha256Digests: Digests = {
  sha256() {
    const hasher = new Bun.CryptoHasher("sha256");
    return { update: (text) => void hasher.update(text), hex: () => hasher.digest("hex") };
  },
};

export const uuidV7: IdGenerator = {
  next() {
    const bytes = randomBytes(16);
    const ms = Date.now();
    bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
    bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
    bytes[2] = (ms >>> 24) & 0xff;
    bytes[3] = (ms >>> 16) & 0xff;
    bytes[4] = (ms >>> 8) & 0xff;
    bytes[5] = ms & 0xff;
    bytes[6] = (bytes[6]! & 0x0f) | 0x70;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
};

/**
 * Keys carry 256 random bits, so a fast SHA-256 digest is as safe to store as a slow password
 * hash would be, and it lets the lookup be one indexed equality on the digest.
 */
export const apiKeyMinter: KeyMinter = {
  mint: () => `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`,
  digest: (key) => createHash("sha256").update(key).digest("hex"),
  secret: (prefix) => `${prefix}${randomBytes(32).toString("base64url")}`,
  s256: (verifier) => createHash("sha256").update(verifier).digest("base64url"),
};

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One JSON object per line on stderr. */
export function jsonLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line + "\n")): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(at) < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields }));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
