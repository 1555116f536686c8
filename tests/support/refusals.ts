// A refusal is its status and its detail: the sentence, or for a 422 where the first issue is.
import { expect } from "bun:test";
import type { Reply } from "./client.ts";

export function expectRefused(reply: Reply, status: number, detail: string | (string | number)[]) {
  if (Array.isArray(detail)) {
    const issues = reply.body?.detail;
    expect({ status: reply.status, loc: Array.isArray(issues) ? issues[0]?.loc : issues }).toEqual({ status, loc: detail });
    for (const issue of issues) expect([typeof issue.type, typeof issue.msg]).toEqual(["string", "string"]);
  } else expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { detail } });
}
