// The OpenAPI document, generated from the operation table (so it cannot drift from the routes).
import type { TSchema } from "@sinclair/typebox";
import { routesOf, type Operation, type ServiceInfo } from "../operations/operation.ts";
import { ErrorBody, ValidationErrorBody } from "../operations/common.ts";
import { publishedSchema, type Json } from "../shared/json-schema.ts";
import { DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUTS } from "./body.ts";

type Publish = (schema: TSchema) => Json;

const errorResponse = (publish: Publish, description: string, schema: TSchema = ErrorBody) => ({
  description,
  content: { "application/json": { schema: publish(schema) } },
});

const parametersOf = (publish: Publish, operation: Operation, path: string) => {
  const parameters: Json[] = [];
  const pathNames = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const declared = Object.entries(operation.input.path?.properties ?? {});
  declared.forEach(([, schema], position) => {
    parameters.push({ name: pathNames[position], in: "path", required: true, schema: publish(schema) });
  });
  const query = operation.input.query;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    const plain = publish(schema);
    parameters.push({ name, in: "query", required: (query!.required ?? []).includes(name), description: plain.description, schema: plain });
  }
  return parameters;
};

export function openApiDocument(operations: readonly Operation[], info: ServiceInfo): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  const publish: Publish = (schema) => publishedSchema(schema, "#/components/schemas/", schemas);
  for (const operation of operations) {
    if (!operation.http || operation.internal) continue;
    const { status, rawBody, maxBodyBytes = DEFAULT_BODY_LIMIT } = operation.http;
    routesOf(operation.http).forEach(({ method, path: route, alias }, index) => {
      const legacy = typeof alias === "string";
      const responses: Json = {
        [status]: status === 204 || !operation.output
          ? { description: status === 204 ? "Done; no content" : "Success" }
          : {
              description: operation.http!.eventStream ? "Success: JSON, or Server-Sent Events when streaming was asked for (each event's data one JSON value)" : "Success",
              content: {
                "application/json": { schema: publish(operation.output) },
                ...(operation.http!.eventStream ? { "text/event-stream": { schema: publish(operation.http!.eventStream) } } : {}),
              },
            },
      };
      for (const { status: refused, description } of operation.http!.documents ?? []) responses[refused] = errorResponse(publish, description);
      if (operation.access.auth !== "none") {
        responses["401"] = errorResponse(publish, "Missing or invalid API key");
        if (operation.access.auth === "campaign" || operation.http?.documents403) responses["403"] = errorResponse(publish, "No access to this campaign at the level needed");
        if (route.includes("{")) responses["404"] = errorResponse(publish, "Not found");
      }
      if (operation.input.body || operation.input.query || operation.input.path)
        responses["422"] = errorResponse(publish, "Validation error", ValidationErrorBody);
      if (operation.input.body || rawBody) {
        responses["408"] = errorResponse(publish, `The request body stalled (no data for ${DEFAULT_BODY_TIMEOUTS.idleMs / 1000} s) or took over ${DEFAULT_BODY_TIMEOUTS.totalMs / 1000} s`);
        responses["413"] = errorResponse(publish, `The request body is over this route's limit of ${maxBodyBytes.toLocaleString("en-US")} bytes`);
      }
      const entry: Json = {
        operationId: !alias ? operation.id : legacy ? `${operation.id}World${index > 1 ? index : ""}` : alias.operationId,
        summary: !alias ? operation.summary : legacy ? `${operation.summary} (legacy worlds route)` : alias.summary,
        description: operation.description,
        tags: [legacy ? "Worlds (legacy)" : operation.tag],
        parameters: parametersOf(publish, operation, route),
        responses,
      };
      if (operation.access.auth === "none") entry.security = [];
      if (operation.input.body) {
        entry.requestBody = { required: true, content: { "application/json": { schema: publish(operation.input.body) } } };
      }
      if (operation.mcp) entry["x-mcp-tool"] = operation.mcp.name;
      (paths[route] ??= {})[method.toLowerCase()] = entry;
    });
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Campaign Memory Service",
      version: info.version,
      description:
        "The memory of tabletop role-playing campaigns over REST/JSON. Every operation is also an MCP tool at /mcp. Authenticate with `x-api-key: <key>` or `Authorization: Bearer <key>`. Errors are `{\"detail\": \"…\"}`; validation errors are 422 with a list of `{type, loc, msg, input}`.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: info.publicBaseUrl }],
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
        bearer: { type: "http", scheme: "bearer" },
      },
    },
    paths,
  };
}

export const docsPage = (specUrl: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Campaign Memory Service — API reference</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <noscript>The interactive reference needs JavaScript. The raw document is at <a href="${specUrl}">${specUrl}</a>.</noscript>
  <div id="reference" data-spec-url="${specUrl}"></div>
  <script src="${DOCS_ASSETS.script}"></script>
  <script src="${DOCS_ASSETS.init}"></script>
</body>
</html>`;

/** The page's scripts, served by this server from `adapters/http/assets/` (see its README). */
export const DOCS_ASSETS = {
  script: "/docs/assets/scalar-api-reference-1.72.1.js",
  init: "/docs/assets/docs-init.js",
} as const;
