// A client typed from the operation table: `call("getCampaign", { path: { campaign_id } })` takes the
// row's input types and answers its output schema's static type. The same row drives REST and MCP.
import { OPERATIONS, type OperationsById } from "../../adapters/operations/index.ts";
import type { EventStream, Inputs, Operation, RawResponse } from "../../adapters/operations/operation.ts";

type TypesOf<R> = R extends { readonly types?: { input: infer In extends Inputs; output: infer Out } } ? { input: In; output: Out } : { input: Inputs; output: unknown };
type Types<Id extends keyof OperationsById> = TypesOf<OperationsById[Id]>;

/** What a caller sends: query fields with a default may be left out (validation fills them). */
export type CallInput<Id extends keyof OperationsById> = {
  path?: Types<Id>["input"]["path"];
  query?: Partial<Types<Id>["input"]["query"]>;
  body?: Types<Id>["input"]["body"];
};

export type Answer<T> = { status: number; ok: true; body: T } | { status: number; ok: false; body: { detail: unknown } };

/** The ids the table spells literally (not those a factory builds). */
export type KnownId = keyof OperationsById;

const byId = new Map<string, Operation>(OPERATIONS.map((op) => [op.id, op]));

export function operation(id: string): Operation {
  const found = byId.get(id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
}

interface Handler {
  handle(request: Request): Response | Promise<Response>;
}

/** The REST request an operation's route takes for this input. */
export function restRequest(op: Operation, input: { path?: object; query?: object; body?: unknown }, key?: string): Request {
  const path = op.http!.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String((input.path as Record<string, unknown> | undefined)?.[name] ?? "")));
  const query = new URLSearchParams(Object.entries(input.query ?? {}).map(([name, value]) => [name, String(value)])).toString();
  const sendsBody = Boolean(op.input.body) && !op.http!.rawBody;
  return new Request(`http://localhost${path}${query ? `?${query}` : ""}`, {
    method: op.http!.method,
    headers: { ...(key ? { "x-api-key": key } : {}), "content-type": "application/json" },
    body: sendsBody ? JSON.stringify(input.body ?? {}) : undefined,
  });
}

/** The MCP tools/call request for this input (flat arguments, as MCP clients send them). */
export function mcpRequest(op: Operation, input: { path?: object; query?: object; body?: unknown }, key?: string): Request {
  const args = { ...(input.path ?? {}), ...(input.query ?? {}), ...((input.body as object | undefined) ?? {}) };
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: op.mcp!.name, arguments: args } }),
  });
}

/** An MCP answer as status and body: the HTTP refusal (401), or the tool's error/status, or its JSON. */
export async function mcpAnswer(response: Response): Promise<{ status: number; body: { detail?: unknown } & Record<string, unknown> }> {
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, body: text ? JSON.parse(text) : {} };
  const message = JSON.parse(text);
  if (message.error) return { status: 400, body: { detail: message.error.message } };
  const content = message.result.content?.[0]?.text ?? "{}";
  if (message.result.isError) {
    const { status, ...rest } = JSON.parse(content);
    return { status, body: rest };
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(content);
  } catch {
    body = { text: content };
  }
  return { status: 200, body };
}

/** A typed REST client over an in-process app (tests/support/inprocess.ts). */
export function typedClient(app: Handler, key?: string) {
  return async <Id extends KnownId>(id: Id, input: CallInput<Id> = {}, as: string | undefined = key): Promise<Answer<Exclude<Types<Id>["output"], RawResponse | EventStream>>> => {
    const response = await app.handle(restRequest(operation(id), input, as));
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    return response.status < 300 ? { status: response.status, ok: true, body } : { status: response.status, ok: false, body };
  };
}
