// HTTP from the bench to the servers it started: 127.0.0.1 only, every request bounded in time.

/** Every HTTP request of the bench goes through here: 127.0.0.1 only, 10 s at most. */
export async function call(url: string, init: RequestInit = {}): Promise<{ status: number; text: string; json: any }> {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error(`refusing non-local target ${url}`);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, text, json };
}

/** A port free on 127.0.0.1 right now (the OS picks it; the caller binds it soon after). */
export const freePort = (): number => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
};

/** Sends a request to a server the bench started: 127.0.0.1 only, bounded by `timeoutMs` (null: unbounded, as for a large transcript). */
export const localSend =
  (timeoutMs: number | null = 10_000) =>
  (request: Request): Promise<Response> => {
    if (new URL(request.url).hostname !== "127.0.0.1") throw new Error(`refusing non-local target ${request.url}`);
    return fetch(request, timeoutMs === null ? {} : { signal: AbortSignal.timeout(timeoutMs) });
  };

/**
 * JSON calls to the service at `base` that must succeed (2xx), through `send` (`localSend()`, or an
 * in-process app's `handle`): the parsed body, or an error naming the call, the status and the body.
 * A string body is sent as it is (a transcript), anything else as JSON.
 */
export function mustCaller(send: (request: Request) => Promise<Response>, base: string, defaultKey: string) {
  return async (method: string, path: string, body?: unknown, key = defaultKey, contentType = "application/json"): Promise<any> => {
    const response = await send(
      new Request(`${base}${path}`, { method, headers: { "x-api-key": key, "content-type": contentType }, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) }),
    );
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}
