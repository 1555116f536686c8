// How a failure shows to a client: its HTTP status and its body, on HTTP, MCP and the CLI alike.
import type { Failure, FailureKind } from "../../domain/errors.ts";

export const STATUS_OF: Record<FailureKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  invalid: 422,
  rate_limited: 429,
  unavailable: 503,
};

/** 422 answers carry the field list; every other failure one `detail` sentence. */
export const bodyOf = (failure: Failure): { detail: unknown } =>
  failure.failure === "invalid" && failure.issues?.length ? { detail: failure.issues } : { detail: failure.detail };
