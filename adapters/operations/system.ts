// System: health, service and version information.
import { Type } from "@sinclair/typebox";
import { fail, ok } from "../../domain/errors.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { Nullable, Timestamp } from "./common.ts";

export const Health = Type.Object({
  status: Type.String(),
  service: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  port: Type.Integer(),
  timestamp: Timestamp,
});

export const DatabaseHealth = Type.Object({
  status: Type.String(),
  backend: Type.String(),
  latency_ms: Type.Number(),
  migrations: Type.Object({ applied: Type.Integer(), latest: Nullable(Type.String()) }),
});

export const RootInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  docs: Type.String(),
  openapi: Type.String(),
  mcp: Type.String(),
  health: Type.String(),
});

export const VersionInfo = Type.Object({ version: Type.String(), api: Type.String(), resources: Type.Array(Type.String()) });

export const RESOURCES = ["campaigns", "worlds", "users", "characters", "factions", "locations", "items", "entities", "links", "search", "tasks", "quests", "journals", "journal-folders", "sessions", "beats", "moments", "hero-awards", "quotes", "spotlights"];

export const systemOperations = defineOperations({ publishedAt: 10 }, [
  defineOperation({
    id: "health",
    summary: "Service health",
    description: "Liveness: answers as long as the process serves requests.",
    tag: "System",
    access: { auth: "none" },
    http: { method: "GET", path: "/health", status: 200 },
    input: {},
    output: Health,
    run: async ({ info }) =>
      ok({ status: "ok", service: info.name, version: info.version, environment: info.environment, port: info.port, timestamp: new Date().toISOString() }),
  }),
  defineOperation({
    id: "databaseHealth",
    summary: "Database health",
    description: "Round-trip to the record store: backend, latency and applied migrations. 503 when the database does not answer.",
    tag: "System",
    access: { auth: "none" },
    http: { method: "GET", path: "/health/database", status: 200 },
    input: {},
    output: DatabaseHealth,
    run: async ({ deps }) => {
      try {
        return ok({ status: "ok", ...(await deps.records.health()) });
      } catch {
        return fail("unavailable", "The database is not answering");
      }
    },
  }),
  defineOperation({
    id: "root",
    summary: "Service information",
    description: "Names the service and where its documentation, OpenAPI document, MCP endpoint and health check are.",
    tag: "System",
    access: { auth: "none" },
    http: { method: "GET", path: "/", status: 200 },
    input: {},
    output: RootInfo,
    run: async ({ info }) =>
      ok({
        name: info.name,
        version: info.version,
        docs: `${info.publicBaseUrl}/docs`,
        openapi: `${info.publicBaseUrl}/openapi.json`,
        mcp: `${info.publicBaseUrl}/mcp`,
        health: `${info.publicBaseUrl}/health`,
      }),
  }),
  defineOperation({
    id: "versionInfo",
    summary: "API version",
    description: "The API version served under /v1 and the resource families it offers.",
    tag: "System",
    access: { auth: "none" },
    http: { method: "GET", path: "/v1", status: 200 },
    input: {},
    output: VersionInfo,
    run: async ({ info }) => ok({ version: info.version, api: "v1", resources: RESOURCES }),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    system: typeof systemOperations;
  }
}
