// Configuration from environment variables, checked once at start-up.
import { resolve } from "node:path";
import { parseCorsOrigins, type CorsOptions } from "../adapters/http/headers.ts";
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
  };
}

/** Hides the password of a connection URL in messages and logs. */
export const redactUrl = (url: string): string => url.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
