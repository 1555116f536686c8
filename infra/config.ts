// Configuration from environment variables, checked once at start-up.
import { resolve } from "node:path";
import { parseCorsOrigins, type CorsOptions } from "../adapters/http/headers.ts";
import { DEFAULT_RATE_LIMITS, type RateLimits } from "../adapters/http/ratelimit.ts";
import { LOG_LEVELS, type LogLevel } from "../adapters/system/system.ts";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolSize: number;
  adminKey: string | null;
  publicBaseUrl: string;
  logLevel: LogLevel;
  environment: string;
  corsOrigins: CorsOptions["origins"];
  /** Requests per key or token, and per client address on /oauth (DESIGN 9). */
  rateLimits: RateLimits;
  /** Gemini for answers and embeddings; without a key the service answers offline. */
  gemini: { apiKey: string | null; model: string; embeddingModel: string; baseUrl: string };
  /** Ask's token budgets per user (prompt + answer tokens), per calendar month and hour, UTC. */
  ask: { monthlyTokens: number; hourlyTokens: number };
  images: ImageConfig;
  /** Issue 14: how long the change feed keeps changes, and how webhooks are delivered. */
  changeRetentionDays: number;
  webhooks: { allowPrivateTargets: boolean; maxFailures: number; retryBaseMs: number; timeoutMs: number };
}

export interface ImageConfig {
  maxBytes: number;
  maxPixels: number;
  uploadExpirySeconds: number;
  monthlyGenerations: number;
  /** How often the worker deletes objects nobody can reach any more. */
  sweepSeconds: number;
  /** The Gemini model that draws images (GEMINI_IMAGE_MODEL). */
  model: string;
  /** Null: the local folder under DATA_DIR/media. */
  s3: { endpoint: string | null; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; publicUrl: string | null } | null;
}

export interface ConfigVariable {
  name: string;
  default: string;
  meaning: string;
}

/** Documented in the README's configuration table; a test keeps the two in step. */
export const CONFIG_VARIABLES: ConfigVariable[] = [
  { name: "PORT", default: "8000", meaning: "TCP port the HTTP server listens on (1–65535)." },
  { name: "HOST", default: "0.0.0.0", meaning: "Interface to listen on; 127.0.0.1 keeps the service local." },
  { name: "DATA_DIR", default: "./data", meaning: "Folder of the embedded database (PGlite) and local files." },
  { name: "DATABASE_URL", default: "(unset)", meaning: "postgres:// URL of a PostgreSQL server; when set, replaces the embedded database." },
  { name: "DATABASE_POOL_SIZE", default: "10", meaning: "Connections to PostgreSQL per instance (1–200). When the database shares the machine, 2–3× its CPU cores does best (5 beat 10, 20 and 40 on 2 cores)." },
  { name: "CMS_ADMIN_KEY", default: "(unset)", meaning: "When set (≥ 32 characters), start-up ensures a first-party admin user holding exactly this key, with the product_write scope." },
  { name: "PUBLIC_BASE_URL", default: "http://localhost:$PORT", meaning: "Address clients reach the service at; used in links the service hands out." },
  { name: "LOG_LEVEL", default: "info", meaning: "debug, info, warn, error or silent. Logs are JSON lines on stderr; keys are never logged." },
  { name: "CMS_ENV", default: "development", meaning: "Environment name reported by /health." },
  { name: "CORS_ORIGINS", default: "*", meaning: "Origins whose browser pages may call the API and /mcp: * or a comma-separated list (https://foundry.example.com). * is safe: auth is a header, never a cookie." },
  { name: "RATE_LIMIT_PER_MINUTE", default: "600", meaning: "Requests a minute each API key or OAuth token may make, sustained (0 turns the limit off); over it, 429 with Retry-After. Shared by every instance through the database." },
  { name: "RATE_LIMIT_BURST", default: "60", meaning: "Requests a key or token may make at once before the per-minute rate applies (1–1000000)." },
  { name: "OAUTH_RATE_LIMIT_PER_MINUTE", default: "60", meaning: "Requests a minute one client address may make to /oauth/* (registration, consent, tokens); 0 turns it off." },
  { name: "OAUTH_RATE_LIMIT_BURST", default: "20", meaning: "Requests one client address may make to /oauth/* at once (1–1000000)." },
  { name: "GEMINI_API_KEY", default: "(unset)", meaning: "Gemini API key for Ask's answers and embeddings; unset, answers are extractive and offline. Never logged." },
  { name: "GEMINI_MODEL", default: "gemini-2.5-flash", meaning: "Gemini model that writes answers." },
  { name: "GEMINI_EMBEDDING_MODEL", default: "gemini-embedding-001", meaning: "Gemini model for embeddings (768 dimensions). Changing it means re-embedding: vectors of different models are never compared." },
  { name: "CHANGE_RETENTION_DAYS", default: "30", meaning: "Days the change feed keeps changes (1–3650); a cursor older than that answers 410. Changes an enabled webhook has not delivered yet are kept." },
  { name: "WEBHOOK_ALLOW_PRIVATE_TARGETS", default: "false", meaning: "true lets webhooks target private, loopback and link-local addresses (refused otherwise, against SSRF). For tests and closed networks." },
  { name: "WEBHOOK_MAX_FAILURES", default: "15", meaning: "Failed deliveries in a row after which a webhook is disabled (1–100); retries back off exponentially from WEBHOOK_RETRY_BASE_MS, at most an hour apart." },
  { name: "WEBHOOK_RETRY_BASE_MS", default: "1000", meaning: "First retry delay of a failed webhook delivery in milliseconds (10–3600000); doubled per failure." },
  { name: "WEBHOOK_TIMEOUT_MS", default: "10000", meaning: "How long a webhook receiver may take to answer, in milliseconds (100–60000)." },
  { name: "GEMINI_BASE_URL", default: "https://generativelanguage.googleapis.com", meaning: "http(s) address of the Gemini API or a compatible proxy, without the version path (the client adds /v1beta)." },
  { name: "ASK_MONTHLY_TOKENS", default: "5000000", meaning: "Ask tokens (prompt + answer, counted with o200k_base) each user may use per calendar month, UTC (1–1,000,000,000)." },
  { name: "ASK_HOURLY_TOKENS", default: "500000", meaning: "Ask tokens each user may use per clock hour, UTC (1–1,000,000,000)." },
  { name: "GEMINI_IMAGE_MODEL", default: "gemini-2.5-flash-image", meaning: "Gemini model that draws images for POST /v1/images/generate (needs GEMINI_API_KEY; without one, generation answers 503)." },
  { name: "IMAGE_MAX_BYTES", default: "20971520", meaning: "Largest image upload in bytes (20 MiB); the local store stops a larger PUT while it streams." },
  { name: "IMAGE_MAX_PIXELS", default: "40000000", meaning: "Largest image in pixels (width × height, all frames); larger ones are refused before they are decoded." },
  { name: "IMAGE_UPLOAD_EXPIRY_SECONDS", default: "900", meaning: "How long an upload URL stays valid (60–86400); uploads never completed are deleted a little after." },
  { name: "IMAGE_MONTHLY_QUOTA", default: "25", meaning: "Image generations per campaign owner's account per calendar month (UTC)." },
  { name: "IMAGE_SWEEP_SECONDS", default: "60", meaning: "How often the worker deletes images of deleted records and campaigns, and uploads never completed (1–86400)." },
  { name: "S3_BUCKET", default: "(unset)", meaning: "When set, images live in this S3 bucket instead of DATA_DIR/media; clients PUT straight to it." },
  { name: "S3_ENDPOINT", default: "(unset)", meaning: "http(s) address of an S3-compatible service (MinIO, R2, …); unset means AWS S3 in S3_REGION." },
  { name: "S3_REGION", default: "us-east-1", meaning: "Region of the bucket." },
  { name: "S3_ACCESS_KEY_ID", default: "(unset)", meaning: "Access key of the bucket (required with S3_BUCKET)." },
  { name: "S3_SECRET_ACCESS_KEY", default: "(unset)", meaning: "Secret of that key (required with S3_BUCKET). Never logged." },
  { name: "S3_PUBLIC_URL", default: "(unset)", meaning: "Where the bucket's objects are read publicly (a CDN or public bucket URL); unset, the endpoint's path-style bucket URL." },
];

export class ConfigError extends Error {}

const integerIn = (name: string, raw: string, min: number, max: number): number => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return value;
};

export function parseConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const port = get("PORT") === undefined ? 8000 : integerIn("PORT", get("PORT")!, 1, 65535);
  const host = get("HOST") ?? "0.0.0.0";

  const databaseUrl = get("DATABASE_URL") ?? null;
  if (databaseUrl) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(databaseUrl);
    } catch {}
    if (!parsed || !["postgres:", "postgresql:"].includes(parsed.protocol))
      throw new ConfigError(`DATABASE_URL must be a postgres:// or postgresql:// URL (got "${redactUrl(databaseUrl)}")`);
  }
  const databasePoolSize = get("DATABASE_POOL_SIZE") === undefined ? 10 : integerIn("DATABASE_POOL_SIZE", get("DATABASE_POOL_SIZE")!, 1, 200);

  const adminKey = get("CMS_ADMIN_KEY") ?? null;
  if (adminKey && (adminKey.length < 32 || adminKey.length > 200 || !/^[A-Za-z0-9_\-]+$/.test(adminKey)))
    throw new ConfigError("CMS_ADMIN_KEY must be 32 to 200 letters, digits, '-' or '_' (generate one with: openssl rand -hex 32)");

  const publicBaseUrl = (get("PUBLIC_BASE_URL") ?? `http://localhost:${port}`).replace(/\/+$/, "");
  let base: URL | null = null;
  try {
    base = new URL(publicBaseUrl);
  } catch {}
  if (!base || !["http:", "https:"].includes(base.protocol))
    throw new ConfigError(`PUBLIC_BASE_URL must be an http:// or https:// URL (got "${publicBaseUrl}")`);

  const logLevel = (get("LOG_LEVEL") ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${get("LOG_LEVEL")}")`);

  const corsOrigins = parseCorsOrigins(get("CORS_ORIGINS"));
  if (typeof corsOrigins === "object" && "error" in corsOrigins) throw new ConfigError(corsOrigins.error);

  const gemini = parseGemini(get);
  const ask = {
    monthlyTokens: get("ASK_MONTHLY_TOKENS") === undefined ? 5_000_000 : integerIn("ASK_MONTHLY_TOKENS", get("ASK_MONTHLY_TOKENS")!, 1, 1_000_000_000),
    hourlyTokens: get("ASK_HOURLY_TOKENS") === undefined ? 500_000 : integerIn("ASK_HOURLY_TOKENS", get("ASK_HOURLY_TOKENS")!, 1, 1_000_000_000),
  };
  const images = parseImages(get);

  const limit = (name: string, fallback: number, min: number) => (get(name) === undefined ? fallback : integerIn(name, get(name)!, min, 1_000_000));
  const rateLimits: RateLimits = {
    keys: { perMinute: limit("RATE_LIMIT_PER_MINUTE", DEFAULT_RATE_LIMITS.keys.perMinute, 0), burst: limit("RATE_LIMIT_BURST", DEFAULT_RATE_LIMITS.keys.burst, 1) },
    oauth: { perMinute: limit("OAUTH_RATE_LIMIT_PER_MINUTE", DEFAULT_RATE_LIMITS.oauth.perMinute, 0), burst: limit("OAUTH_RATE_LIMIT_BURST", DEFAULT_RATE_LIMITS.oauth.burst, 1) },
  };

  const numberOr = (name: string, fallback: number, min: number, max: number) => (get(name) === undefined ? fallback : integerIn(name, get(name)!, min, max));
  const allowPrivate = (get("WEBHOOK_ALLOW_PRIVATE_TARGETS") ?? "false").toLowerCase();
  if (!["true", "false", "1", "0"].includes(allowPrivate)) throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false (got "${get("WEBHOOK_ALLOW_PRIVATE_TARGETS")}")`);
  const webhooks = {
    allowPrivateTargets: allowPrivate === "true" || allowPrivate === "1",
    maxFailures: numberOr("WEBHOOK_MAX_FAILURES", 15, 1, 100),
    retryBaseMs: numberOr("WEBHOOK_RETRY_BASE_MS", 1000, 10, 3_600_000),
    timeoutMs: numberOr("WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000),
  };

  return {
    port,
    host,
    dataDir: resolve(cwd, get("DATA_DIR") ?? "./data"),
    databaseUrl,
    databasePoolSize,
    adminKey,
    publicBaseUrl,
    logLevel: logLevel as LogLevel,
    environment: get("CMS_ENV") ?? "development",
    corsOrigins,
    rateLimits,
    gemini,
    ask,
    images,
    changeRetentionDays: numberOr("CHANGE_RETENTION_DAYS", 30, 1, 3650),
    webhooks,
  };
}

const httpUrl = (name: string, raw: string): string => {
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {}
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || parsed.username || parsed.password)
    throw new ConfigError(`${name} must be an http:// or https:// URL without credentials (got "${redactUrl(raw)}")`);
  return raw.replace(/\/+$/, "");
};

function parseImages(get: (name: string) => string | undefined): ImageConfig {
  const number = (name: string, fallback: number, min: number, max: number) => (get(name) === undefined ? fallback : integerIn(name, get(name)!, min, max));
  const bucket = get("S3_BUCKET") ?? null;
  let s3: ImageConfig["s3"] = null;
  if (bucket) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`S3_BUCKET must be a bucket name (3–63 lower-case letters, digits, '.' or '-'; got "${bucket}")`);
    const accessKeyId = get("S3_ACCESS_KEY_ID");
    const secretAccessKey = get("S3_SECRET_ACCESS_KEY");
    if (!accessKeyId || !secretAccessKey) throw new ConfigError("S3_BUCKET is set: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required too");
    const region = get("S3_REGION") ?? "us-east-1";
    if (!/^[a-z0-9-]{1,50}$/.test(region)) throw new ConfigError(`S3_REGION must be a region name such as us-east-1 (got "${region}")`);
    const endpoint = get("S3_ENDPOINT") ? httpUrl("S3_ENDPOINT", get("S3_ENDPOINT")!) : null;
    const publicUrl = get("S3_PUBLIC_URL") ? httpUrl("S3_PUBLIC_URL", get("S3_PUBLIC_URL")!) : null;
    s3 = { endpoint, bucket, region, accessKeyId, secretAccessKey, publicUrl };
  }
  const model = get("GEMINI_IMAGE_MODEL") ?? "gemini-2.5-flash-image";
  if (!MODEL_NAME.test(model)) throw new ConfigError(`GEMINI_IMAGE_MODEL must be a model name such as gemini-2.5-flash-image (got "${model}")`);
  return {
    model,
    maxBytes: number("IMAGE_MAX_BYTES", 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxPixels: number("IMAGE_MAX_PIXELS", 40_000_000, 1, 268_402_689),
    uploadExpirySeconds: number("IMAGE_UPLOAD_EXPIRY_SECONDS", 900, 60, 86_400),
    monthlyGenerations: number("IMAGE_MONTHLY_QUOTA", 25, 0, 1_000_000),
    sweepSeconds: number("IMAGE_SWEEP_SECONDS", 60, 1, 86_400),
    s3,
  };
}

const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";
// A model name ends up in a URL path: letters, digits, '.', '-', '_', optionally after "models/".
const MODEL_NAME = /^(?:models\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function parseGemini(get: (name: string) => string | undefined): Config["gemini"] {
  const apiKey = get("GEMINI_API_KEY") ?? null;
  // The message never repeats the key.
  if (apiKey && !/^[A-Za-z0-9._-]{1,200}$/.test(apiKey))
    throw new ConfigError("GEMINI_API_KEY must be one word of letters, digits, '.', '-' or '_' (as issued by Google AI Studio)");
  const model = get("GEMINI_MODEL") ?? "gemini-2.5-flash";
  const embeddingModel = get("GEMINI_EMBEDDING_MODEL") ?? "gemini-embedding-001";
  for (const [name, value] of [["GEMINI_MODEL", model], ["GEMINI_EMBEDDING_MODEL", embeddingModel]] as const)
    if (!MODEL_NAME.test(value)) throw new ConfigError(`${name} must be a model name such as gemini-2.5-flash (got "${value}")`);

  const rawBase = get("GEMINI_BASE_URL");
  let baseUrl = GEMINI_DEFAULT_BASE_URL;
  if (rawBase) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(rawBase);
    } catch {}
    if (!parsed || !["http:", "https:"].includes(parsed.protocol))
      throw new ConfigError(`GEMINI_BASE_URL must be an http:// or https:// URL (got "${redactUrl(rawBase).replace(/[?#].*$/, "")}")`);
    if (parsed.search || parsed.hash || parsed.username || parsed.password)
      throw new ConfigError("GEMINI_BASE_URL must not carry credentials, a query or a fragment: the key goes in GEMINI_API_KEY");
    if (/\/v1(?:beta|alpha)?\/?$/.test(parsed.pathname))
      throw new ConfigError(`GEMINI_BASE_URL is the server address without the version path; the client adds /v1beta (got "${rawBase}")`);
    baseUrl = rawBase.replace(/\/+$/, "");
  }
  return { apiKey, model, embeddingModel, baseUrl };
}

/** Hides the password of a connection URL in messages and logs. */
export const redactUrl = (url: string): string => url.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
