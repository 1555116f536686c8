// A refusal is its status and its detail: the sentence, or for a 422 where the first issue is (and,
// when given, what it says).
import { expect } from "bun:test";

export function expectRefused(reply: { status: number; body: any }, status: number, detail: string | (string | number)[], msg?: string) {
  if (Array.isArray(detail)) {
    const issues = reply.body?.detail;
    const first = Array.isArray(issues) ? issues[0] : undefined;
    expect({ status: reply.status, loc: first ? first.loc : issues, ...(msg === undefined ? {} : { msg: first?.msg }) }).toEqual({ status, loc: detail, ...(msg === undefined ? {} : { msg }) });
    for (const issue of issues) expect([typeof issue.type, typeof issue.msg]).toEqual(["string", "string"]);
  } else expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { detail } });
}
