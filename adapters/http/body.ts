// Request bodies under a size limit and a time limit: refused by Content-Length before a byte is
// read, counted while they stream, and given up on when the client stalls.

/** Routes that declare no limit take JSON bodies of at most this many bytes. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Bun's own cap answers 413 with an empty body, by Content-Length, before any handler runs: lifted,
 * so every route's own limit speaks (with a `detail`). Bodies no handler reads are never buffered.
 */
export const SERVER_BODY_CAP = Number.MAX_SAFE_INTEGER;

export interface BodyTimeouts {
  /** Longest wait for the next piece of the body. */
  idleMs: number;
  /** Longest time the whole body may take. */
  totalMs: number;
}

/** Below Bun's 30-second idle timeout, so the client still hears the 408. */
export const DEFAULT_BODY_TIMEOUTS: BodyTimeouts = { idleMs: 10_000, totalMs: 120_000 };

const sizeLabel = (bytes: number) =>
  bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;

/**
 * How long a 413 for a body cut off while it streams keeps the rest of that body unread before
 * Bun discards it: long enough for a client still sending to be held back by TCP and read the answer.
 */
export const CUT_OFF_LINGER_MS = 1_000;

/** The body broke a limit: carries the answer to give. */
export class BodyRejected extends Error {
  constructor(
    readonly status: 408 | 413,
    detail: string,
    /** Cut off while the client was still sending (not refused by its declared length). */
    readonly whileStreaming = false,
  ) {
    super(detail);
  }
  /**
   * Bun reads and drops whatever of the body is still coming once the answer has ended, holding
   * none of it (closing the connection instead loses the answer to a reset while the client is
   * still sending: 19 answers of 20 lost, measured). But a client that is still sending is never
   * held back by a server that discards as fast as it sends, so it may push hundreds of MB before
   * it reads the answer (seen: > 256 MB on a loaded CI machine). A body cut off while streaming
   * therefore gets its answer at once, with the end of that answer (and so Bun's discarding) held
   * back for CUT_OFF_LINGER_MS: meanwhile the rest stays unread and TCP stops the client within
   * its socket buffers (5–8 MB on loopback).
   */
  response() {
    const body = new TextEncoder().encode(JSON.stringify({ detail: this.message }));
    const headers = { "content-type": "application/json" };
    if (!this.whileStreaming) return new Response(body, { status: this.status, headers });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const lingering = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(body);
        timer = setTimeout(() => controller.close(), CUT_OFF_LINGER_MS);
      },
      cancel() {
        clearTimeout(timer);
      },
    });
    return new Response(lingering, { status: this.status, headers });
  }
}

export const tooLarge = (limit: number, whileStreaming = false) =>
  new BodyRejected(413, `Request body too large: this route accepts at most ${limit.toLocaleString("en-US")} bytes (${sizeLabel(limit)})`, whileStreaming);

const tooSlow = (timeouts: BodyTimeouts, idle: boolean) =>
  new BodyRejected(
    408,
    idle
      ? `Request body timed out: no data for ${timeouts.idleMs / 1000} s`
      : `Request body timed out: the whole body must arrive within ${timeouts.totalMs / 1000} s`,
  );

/** A declared Content-Length over the limit: refused before anything is read. */
export function declaredTooLarge(headers: Headers, limit: number): BodyRejected | null {
  const declared = headers.get("content-length");
  return declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit ? tooLarge(limit) : null;
}

/**
 * The body's bytes as they arrive, at most `limit` of them in all; throws `BodyRejected` past the
 * limit or the time limits. Nothing is kept: the caller decides what to hold.
 */
export async function* limitedBytes(body: ReadableStream<Uint8Array>, limit: number, timeouts: BodyTimeouts = DEFAULT_BODY_TIMEOUTS): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const deadline = Date.now() + timeouts.totalMs;
  let received = 0;
  let finished = false;
  let overLimit = false;
  try {
    for (;;) {
      const left = deadline - Date.now();
      const idle = timeouts.idleMs <= left;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, Math.min(timeouts.idleMs, left)))));
      const next = await Promise.race([reader.read(), timedOut]).finally(() => clearTimeout(timer));
      if (next === "timeout") throw tooSlow(timeouts, idle);
      if (next.done) {
        finished = true;
        return;
      }
      received += next.value.byteLength;
      if (received > limit) {
        overLimit = true;
        throw tooLarge(limit, true);
      }
      yield next.value;
    }
  } finally {
    // Over the limit, the rest is left unread, not cancelled: cancelling makes Bun discard it at
    // full speed at once, which lets the client push on instead of reading the 413 (see
    // BodyRejected.response).
    if (overLimit) reader.releaseLock();
    else if (!finished) reader.cancel().catch(() => {});
  }
}

/** The whole body as text, within the limits. */
export async function readText(request: Request, limit: number, timeouts?: BodyTimeouts): Promise<string> {
  const early = declaredTooLarge(request.headers, limit);
  if (early) throw early;
  if (!request.body) return "";
  const parts: Uint8Array[] = [];
  for await (const part of limitedBytes(request.body, limit, timeouts)) parts.push(part);
  return new TextDecoder().decode(Buffer.concat(parts));
}

/** The body as text, piece by piece, as it arrives, within the limits. */
export async function* limitedText(request: Request, limit: number, timeouts?: BodyTimeouts): AsyncGenerator<string> {
  const early = declaredTooLarge(request.headers, limit);
  if (early) throw early;
  if (!request.body) return;
  const decoder = new TextDecoder();
  for await (const part of limitedBytes(request.body, limit, timeouts)) {
    const text = decoder.decode(part, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The same request with its body read within the limits, for handlers that read it themselves (MCP). */
export async function boundedRequest(request: Request, limit: number, timeouts?: BodyTimeouts): Promise<Request> {
  const early = declaredTooLarge(request.headers, limit);
  if (early) throw early;
  if (!request.body || request.method === "GET" || request.method === "HEAD") return request;
  const parts: Uint8Array[] = [];
  for await (const part of limitedBytes(request.body, limit, timeouts)) parts.push(part);
  return new Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(parts), signal: request.signal });
}
