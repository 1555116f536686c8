// A plain fetch client for black-box tests. Every JSON answer is checked against the response
// schema /openapi.json documents for its route and status, with a standard validator.
import type { ValidateFunction } from "ajv";
import { describeErrors, openApiValidator } from "./jsonschema.ts";

type ResponseCheck = (method: string, path: string, status: number, body: unknown) => void;

const documented = new Map<string, Promise<ResponseCheck>>();

async function responseCheck(baseUrl: string): Promise<ResponseCheck> {
  const doc = await (await fetch(`${baseUrl}/openapi.json`)).json();
  const { ajv, openApiSchema } = openApiValidator(doc);
  const routes = Object.keys(doc.paths)
    // Literal segments before parameters, as the router matches them.
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}/?$`) }));
  const compiled = new Map<string, ValidateFunction | null>();
  return (method, path, status, body) => {
    const route = routes.find(({ pattern, template }) => pattern.test(path) && doc.paths[template][method.toLowerCase()]);
    if (!route) return;
    const key = `${method} ${route.template} ${status}`;
    if (!compiled.has(key)) {
      const schema = doc.paths[route.template][method.toLowerCase()].responses[status]?.content?.["application/json"]?.schema;
      compiled.set(key, schema ? ajv.compile(openApiSchema(schema)) : null);
    }
    const validate = compiled.get(key);
    if (validate && !validate(body)) throw new Error(`${key}: the body does not match the documented response schema: ${describeErrors(validate)}`);
  };
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export function client(baseUrl: string, key?: string, header: "x-api-key" | "bearer" = "x-api-key") {
  const call = async <T = any>(method: Method, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...extraHeaders };
    if (key) {
      if (header === "x-api-key") headers["x-api-key"] = key;
      else headers.authorization = `Bearer ${key}`;
    }
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    if (response.headers.get("content-type")?.startsWith("application/json")) {
      if (!documented.has(baseUrl)) documented.set(baseUrl, responseCheck(baseUrl));
      (await documented.get(baseUrl)!)(method, path.split("?")[0]!, response.status, parsed);
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  };
  return {
    call,
    get: <T = any>(path: string) => call<T>("GET", path),
    post: <T = any>(path: string, body?: unknown) => call<T>("POST", path, body ?? {}),
    patch: <T = any>(path: string, body?: unknown) => call<T>("PATCH", path, body ?? {}),
    put: <T = any>(path: string, body?: unknown) => call<T>("PUT", path, body ?? {}),
    delete: <T = any>(path: string) => call<T>("DELETE", path),
  };
}

export type Client = ReturnType<typeof client>;

/** Creates a user with a key through the first-party routes. */
export async function newUser(baseUrl: string, adminKey: string, name: string, scopes: string[] = []) {
  const admin = client(baseUrl, adminKey);
  const email = `${name.toLowerCase()}.${crypto.randomUUID().slice(0, 8)}@example.test`;
  const user = await admin.post("/internal/v1/users", { name, email });
  if (user.status !== 201) throw new Error(`user create failed: ${user.status} ${user.text}`);
  const key = await admin.post(`/internal/v1/users/${user.body.id}/keys`, { scopes });
  if (key.status !== 201) throw new Error(`key create failed: ${key.status} ${key.text}`);
  return { id: user.body.id as string, email, key: key.body.key as string, keyId: key.body.id as string, api: client(baseUrl, key.body.key) };
}

/** A background task's final state (succeeded or failed), polled through the API for up to ten seconds. */
export async function waitForTask(api: Client, taskId: string) {
  for (let i = 0; i < 400; i++) {
    const task = await api.get(`/v1/tasks/${taskId}`);
    if (task.body.status === "succeeded" || task.body.status === "failed") return task.body;
    await Bun.sleep(25);
  }
  throw new Error(`task ${taskId} did not finish`);
}
