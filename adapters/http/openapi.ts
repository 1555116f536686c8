// The OpenAPI document, generated from the operation table (so it cannot drift from the routes).
import type { TSchema } from "@sinclair/typebox";
import type { Operation, ServiceInfo } from "../operations/operation.ts";
import { ErrorBody, ValidationErrorBody } from "../operations/schemas.ts";
import { DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUTS } from "./body.ts";

type Json = Record<string, unknown>;

/** JSON round trip drops TypeBox's symbol keys and leaves plain JSON Schema. */
export const plainSchema = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema));

const errorResponse = (description: string, schema: TSchema = ErrorBody) => ({
  description,
  content: { "application/json": { schema: plainSchema(schema) } },
});

const parametersOf = (operation: Operation, path: string) => {
  const parameters: Json[] = [];
  const pathNames = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const declared = Object.entries(operation.input.path?.properties ?? {});
  declared.forEach(([, schema], position) => {
    parameters.push({ name: pathNames[position], in: "path", required: true, schema: plainSchema(schema) });
  });
  const query = operation.input.query;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    const plain = plainSchema(schema);
    parameters.push({ name, in: "query", required: (query!.required ?? []).includes(name), description: plain.description, schema: plain });
  }
  return parameters;
};

export function openApiDocument(operations: readonly Operation[], info: ServiceInfo): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    if (!operation.http || operation.internal) continue;
    const { method, path, status, aliases = [], rawBody, maxBodyBytes = DEFAULT_BODY_LIMIT } = operation.http;
    [path, ...aliases].forEach((route, index) => {
      const responses: Json = {
        [status]: status === 204 || !operation.output
          ? { description: status === 204 ? "Done; no content" : "Success" }
          : { description: "Success", content: { "application/json": { schema: plainSchema(operation.output) } } },
      };
      if (operation.auth !== "none") {
        responses["401"] = errorResponse("Missing or invalid API key");
        if (operation.campaignAccess) responses["403"] = errorResponse("No access to this campaign at the level needed");
        if (route.includes("{")) responses["404"] = errorResponse("Not found");
      }
      if (operation.input.body || operation.input.query || operation.input.path)
        responses["422"] = errorResponse("Validation error", ValidationErrorBody);
      if (operation.input.body || rawBody) {
        responses["408"] = errorResponse(`The request body stalled (no data for ${DEFAULT_BODY_TIMEOUTS.idleMs / 1000} s) or took over ${DEFAULT_BODY_TIMEOUTS.totalMs / 1000} s`);
        responses["413"] = errorResponse(`The request body is over this route's limit of ${maxBodyBytes.toLocaleString("en-US")} bytes`);
      }
      const entry: Json = {
        operationId: index === 0 ? operation.id : `${operation.id}World${index > 1 ? index : ""}`,
        summary: index === 0 ? operation.summary : `${operation.summary} (legacy worlds route)`,
        description: operation.description,
        tags: [index === 0 ? operation.tag : "Worlds (legacy)"],
        parameters: parametersOf(operation, route),
        responses,
      };
      if (operation.auth === "none") entry.security = [];
      if (operation.input.body) {
        entry.requestBody = { required: true, content: { "application/json": { schema: plainSchema(operation.input.body) } } };
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
    },
    servers: [{ url: info.publicBaseUrl }],
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
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
</head>
<body>
  <noscript>The interactive reference needs JavaScript. The raw document is at <a href="${specUrl}">${specUrl}</a>.</noscript>
  <script id="api-reference" data-url="${specUrl}"></script>
  <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
</body>
</html>`;
