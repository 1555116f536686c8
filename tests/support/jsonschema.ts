// A standard JSON Schema validator (Ajv, draft 2020-12, strict), as a real client would use on the
// schemas the service publishes. Strict mode refuses what clients choke on, e.g. an unresolvable $ref.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // Our own annotation: the message shown when a value fails (see adapters/operations/operation.ts).
  ajv.addKeyword("x-error");
  return ajv;
}

/** A readable list of what failed, for test messages. */
export const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`).join("; ");
