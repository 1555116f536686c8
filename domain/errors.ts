// Expected failures travel as values; each transport maps `kind` to its own wire form.
export type FailureKind =
  | "bad_request" // 400
  | "unauthorized" // 401
  | "forbidden" // 403
  | "not_found" // 404
  | "conflict" // 409
  | "gone" // 410
  | "invalid" // 422
  | "rate_limited" // 429
  | "unavailable"; // 503

export interface FieldIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export interface Failure {
  readonly failure: FailureKind;
  readonly detail: string;
  readonly issues?: FieldIssue[];
  /** The OAuth scope a refusal is about (insufficient_scope challenges). */
  readonly scope?: string;
  /** 429 and 503: when trying again makes sense, in whole seconds (sent as Retry-After). */
  readonly retryAfterSeconds?: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (kind: FailureKind, detail: string, issues?: FieldIssue[]): Result<never> => ({
  ok: false,
  error: issues ? { failure: kind, detail, issues } : { failure: kind, detail },
});

/** A refusal for now: `retryAfterSeconds` tells when trying again makes sense. */
export const failLater = (kind: "rate_limited" | "unavailable", detail: string, retryAfterSeconds: number | null): Result<never> => ({
  ok: false,
  error: retryAfterSeconds === null ? { failure: kind, detail } : { failure: kind, detail, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) },
});

/** A failure raised deep inside a use case (e.g. inside a transaction) so the transaction rolls back. */
export class FailureError extends Error {
  constructor(readonly error: Failure) {
    super(error.detail);
  }
}

export const isFailure = (value: unknown): value is Failure =>
  typeof value === "object" && value !== null && "failure" in value && "detail" in value;

export const invalidField = (loc: (string | number)[], msg: string, input: unknown, type = "value_error"): Failure => ({
  failure: "invalid",
  detail: msg,
  issues: [{ type, loc, msg, input }],
});
