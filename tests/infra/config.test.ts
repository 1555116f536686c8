import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_VARIABLES, ConfigError, parseConfig, redactUrl } from "../../infra/config.ts";
import { PROJECT_ROOT } from "../support/server.ts";

describe("configuration", () => {
  test("defaults: port 8000, ./data, embedded database, info logs", () => {
    const config = parseConfig({}, "/srv/cms");
    expect(config).toMatchObject({ port: 8000, dataDir: "/srv/cms/data", databaseUrl: null, adminKey: null, publicBaseUrl: "http://localhost:8000", logLevel: "info" });
    expect(config.gemini).toEqual({ apiKey: null, model: "gemini-2.5-flash", embeddingModel: "gemini-embedding-001", baseUrl: "https://generativelanguage.googleapis.com" });
  });

  test("every variable is read", () => {
    const config = parseConfig({
      PORT: "9001",
      HOST: "127.0.0.1",
      DATA_DIR: "/tmp/x",
      DATABASE_URL: "postgresql://u:p@db:5432/cms",
      DATABASE_POOL_SIZE: "32",
      CMS_ADMIN_KEY: "k".repeat(40),
      PUBLIC_BASE_URL: "https://cms.example.com/",
      LOG_LEVEL: "WARN",
      CMS_ENV: "production",
      CORS_ORIGINS: "https://foundry.example.com, http://localhost:30000/",
      GEMINI_API_KEY: "AIzaSyExample-key_0123456789abcdefghij",
      GEMINI_MODEL: "gemini-2.5-pro",
      GEMINI_EMBEDDING_MODEL: "models/text-embedding-004",
      GEMINI_BASE_URL: "http://gemini-proxy.internal:8080/google/",
      ASK_MONTHLY_TOKENS: "2000000",
      ASK_HOURLY_TOKENS: "90000",
      GEMINI_IMAGE_MODEL: "imagen-4.0-generate-001",
      IMAGE_MAX_BYTES: "5000000",
      IMAGE_MAX_PIXELS: "1000000",
      IMAGE_UPLOAD_EXPIRY_SECONDS: "120",
      IMAGE_MONTHLY_QUOTA: "3",
      S3_BUCKET: "cms-images",
      S3_ENDPOINT: "http://minio.internal:9000/",
      S3_REGION: "eu-west-1",
      S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
      S3_SECRET_ACCESS_KEY: "secret/with+chars",
      S3_PUBLIC_URL: "https://cdn.example.com/images",
      CHANGE_RETENTION_DAYS: "7",
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_MAX_FAILURES: "3",
      WEBHOOK_RETRY_BASE_MS: "50",
      WEBHOOK_TIMEOUT_MS: "2000",
      RATE_LIMIT_PER_MINUTE: "1200",
      RATE_LIMIT_BURST: "100",
      OAUTH_RATE_LIMIT_PER_MINUTE: "0",
      OAUTH_RATE_LIMIT_BURST: "5",
    });
    expect(config).toEqual({
      port: 9001,
      host: "127.0.0.1",
      dataDir: "/tmp/x",
      databaseUrl: "postgresql://u:p@db:5432/cms",
      databasePoolSize: 32,
      adminKey: "k".repeat(40),
      publicBaseUrl: "https://cms.example.com",
      logLevel: "warn",
      environment: "production",
      corsOrigins: ["https://foundry.example.com", "http://localhost:30000"],
      gemini: {
        apiKey: "AIzaSyExample-key_0123456789abcdefghij",
        model: "gemini-2.5-pro",
        embeddingModel: "models/text-embedding-004",
        baseUrl: "http://gemini-proxy.internal:8080/google",
      },
      ask: { monthlyTokens: 2_000_000, hourlyTokens: 90_000 },
      images: {
        model: "imagen-4.0-generate-001",
        maxBytes: 5_000_000,
        maxPixels: 1_000_000,
        uploadExpirySeconds: 120,
        monthlyGenerations: 3,
        sweepSeconds: 60,
        s3: {
          endpoint: "http://minio.internal:9000",
          bucket: "cms-images",
          region: "eu-west-1",
          accessKeyId: "AKIAEXAMPLE",
          secretAccessKey: "secret/with+chars",
          publicUrl: "https://cdn.example.com/images",
        },
      },
      changeRetentionDays: 7,
      webhooks: { allowPrivateTargets: true, maxFailures: 3, retryBaseMs: 50, timeoutMs: 2000 },
      rateLimits: { keys: { perMinute: 1200, burst: 100 }, oauth: { perMinute: 0, burst: 5 } },
    });
  });

  test("S3 needs its keys, and image limits are whole numbers in range", () => {
    expect(() => parseConfig({ S3_BUCKET: "cms-images" })).toThrow("S3_BUCKET is set: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required too");
    expect(() => parseConfig({ S3_BUCKET: "Bad_Bucket", S3_ACCESS_KEY_ID: "a", S3_SECRET_ACCESS_KEY: "b" })).toThrow("S3_BUCKET must be a bucket name");
    expect(() => parseConfig({ IMAGE_MAX_BYTES: "12.5" })).toThrow('IMAGE_MAX_BYTES must be a whole number from 1024 to 1073741824 (got "12.5")');
    expect(() => parseConfig({ IMAGE_UPLOAD_EXPIRY_SECONDS: "5" })).toThrow("IMAGE_UPLOAD_EXPIRY_SECONDS must be a whole number from 60 to 86400");
    expect(parseConfig({}).images).toEqual({ model: "gemini-2.5-flash-image", maxBytes: 20_971_520, maxPixels: 40_000_000, uploadExpirySeconds: 900, monthlyGenerations: 25, sweepSeconds: 60, s3: null });
  });

  test.each([
    [{ PORT: "abc" }, "PORT"],
    [{ CHANGE_RETENTION_DAYS: "0" }, "CHANGE_RETENTION_DAYS"],
    [{ RATE_LIMIT_BURST: "0" }, "RATE_LIMIT_BURST"],
    [{ RATE_LIMIT_PER_MINUTE: "-1" }, "RATE_LIMIT_PER_MINUTE"],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: "yes please" }, "WEBHOOK_ALLOW_PRIVATE_TARGETS"],
    [{ CORS_ORIGINS: "foundry.example.com" }, "CORS_ORIGINS"],
    [{ CORS_ORIGINS: "https://foundry.example.com/path" }, "CORS_ORIGINS"],
    [{ PORT: "70000" }, "PORT"],
    [{ PORT: "80.5" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE"],
    [{ ASK_MONTHLY_TOKENS: "0" }, "ASK_MONTHLY_TOKENS"],
    [{ ASK_HOURLY_TOKENS: "1.5" }, "ASK_HOURLY_TOKENS"],
    [{ CMS_ADMIN_KEY: "short" }, "CMS_ADMIN_KEY"],
    [{ CMS_ADMIN_KEY: "has spaces".repeat(5) }, "CMS_ADMIN_KEY"],
    [{ PUBLIC_BASE_URL: "not a url" }, "PUBLIC_BASE_URL"],
    [{ PUBLIC_BASE_URL: "ftp://x" }, "PUBLIC_BASE_URL"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ GEMINI_API_KEY: "two words" }, "GEMINI_API_KEY"],
    [{ GEMINI_MODEL: "gemini/../../admin" }, "GEMINI_MODEL"],
    [{ GEMINI_EMBEDDING_MODEL: "embedding 001" }, "GEMINI_EMBEDDING_MODEL"],
    [{ GEMINI_BASE_URL: "generativelanguage.googleapis.com" }, "GEMINI_BASE_URL"],
    [{ GEMINI_BASE_URL: "ftp://proxy.example.com" }, "GEMINI_BASE_URL"],
    [{ GEMINI_BASE_URL: "https://generativelanguage.googleapis.com/v1beta" }, "GEMINI_BASE_URL"],
    [{ GEMINI_BASE_URL: "https://proxy.example.com/?key=abc" }, "GEMINI_BASE_URL"],
  ] as [Record<string, string>, string][])("a wrong %p is refused naming %s", (env, name) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(name);
  });

  test("a database password never appears in an error", () => {
    expect(redactUrl("postgres://user:hunter2@db/x")).toBe("postgres://user:***@db/x");
    try {
      parseConfig({ DATABASE_URL: "mysql://user:hunter2@db/x" });
      throw new Error("should have failed");
    } catch (error) {
      expect((error as Error).message).not.toContain("hunter2");
    }
  });

  test("a Gemini key never appears in an error", () => {
    for (const env of [
      { GEMINI_API_KEY: "AIzaSecret 0123456789" },
      { GEMINI_BASE_URL: "https://proxy.example.com/?key=AIzaSecret0123456789" },
      { GEMINI_BASE_URL: "https://user:AIzaSecret0123456789@proxy.example.com/" },
      { GEMINI_BASE_URL: "ftp://proxy.example.com/?key=AIzaSecret0123456789" },
    ]) {
      expect(() => parseConfig(env)).toThrow("GEMINI_");
      try {
        parseConfig(env);
      } catch (error) {
        expect((error as Error).message).not.toContain("AIzaSecret");
      }
    }
  });

  test("the README's configuration table lists every variable with its default", () => {
    const readme = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
    for (const variable of CONFIG_VARIABLES) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${variable.name}\``));
      expect(row).toBeDefined();
      expect(row).toContain(variable.default);
    }
  });
});
