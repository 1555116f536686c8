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
