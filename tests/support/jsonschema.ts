// A standard JSON Schema validator (Ajv, draft 2020-12, strict), as a real client would use on the
// schemas the service publishes. Strict mode refuses what clients choke on, e.g. an unresolvable $ref.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // Our own annotation: the message shown when a value fails (see adapters/operations/operation.ts).
  ajv.addKeyword("x-error");
  ajv.addKeyword("x-aliases");
  // The 400 detail a required field's absence gets instead of a 422 (Ask's `messages is required`).
  ajv.addKeyword("x-missing");
  // Image fields: an https URL, or one of the service's own (maybe http) image URLs.
  ajv.addFormat("image-url", /^https?:\/\/[^\s/?#]+\S*$/);
  return ajv;
}

/** A readable list of what failed, for test messages. */
export const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`).join("; ");

const COMPONENTS_ID = "https://openapi.local/components";
const rebase = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`));

/**
 * A validator for an OpenAPI document's schemas: its components are registered once, and
 * `openApiSchema` turns a schema from the document into one whose component references resolve.
 */
export function openApiValidator(doc: { components?: { schemas?: Record<string, unknown> } }) {
  const ajv = schemaValidator();
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rebase(doc.components?.schemas ?? {}) });
  return { ajv, openApiSchema: (schema: unknown) => rebase(schema) };
}
