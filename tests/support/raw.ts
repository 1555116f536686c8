// HTTP/1.1 over a bare TCP socket, for what fetch cannot do: declare a length and never send the
// body, send a body in timed pieces, and stop sending the moment the server answers.
import { connect } from "node:net";

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes written to the socket before the answer arrived. */
  sentBeforeAnswer: number;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Body pieces, sent in order; `chunked` frames them with Transfer-Encoding: chunked. */
  pieces?: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>;
  chunked?: boolean;
  /** Pause between pieces. */
  delayMs?: number;
  /** Give up waiting for an answer after this long. */
  timeoutMs?: number;
  /** Called once every piece has been written. */
  onSent?: () => void;
}

const parse = (text: string) => {
  const end = text.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, rest: text.slice(end + 4) };
};

/** A chunked body's data without its framing. */
const dechunk = (rest: string) => {
  let body = "";
  for (let at = 0; ; ) {
    const lineEnd = rest.indexOf("\r\n", at);
    const size = parseInt(rest.slice(at, lineEnd), 16);
    if (!size) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
};

/** Sends the request and resolves with the first answer; stops sending once it has one. */
export function rawRequest(url: string, request: RawRequest): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    let sent = 0;
    let sentAtAnswer: number | null = null;
    let answered = false;
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${request.timeoutMs ?? 30_000} ms; got ${JSON.stringify(received.slice(0, 200))}`)), request.timeoutMs ?? 30_000);
    const finish = (error?: Error) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      const { status, headers, rest } = parse(received);
      resolve({ status, headers, body: headers["transfer-encoding"] === "chunked" ? dechunk(rest) : rest, sentBeforeAnswer: sentAtAnswer ?? sent });
    };
    const complete = () => {
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return false;
      sentAtAnswer ??= sent;
      const { headers, rest } = parse(received);
      if (headers["content-length"] !== undefined) return Buffer.byteLength(rest) >= Number(headers["content-length"]);
      if (headers["transfer-encoding"] === "chunked") return rest.endsWith("0\r\n\r\n");
      return false;
    };
    socket.on("data", (data) => {
      received += data.toString("utf8");
      if (complete()) finish();
    });
    socket.on("end", () => (received.includes("\r\n\r\n") ? finish() : finish(new Error(`connection closed without an answer after ${sent} body bytes`))));
    // An answer may still be in flight when a write fails: give it a moment.
    socket.on("error", (error) => setTimeout(() => (received.includes("\r\n\r\n") ? finish() : finish(error)), 100));
    socket.on("connect", async () => {
      const headers = { host: `${hostname}:${port}`, ...request.headers, ...(request.chunked ? { "transfer-encoding": "chunked" } : {}) };
      socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
      if (!request.pieces) return;
      try {
        for await (const piece of request.pieces as AsyncIterable<Uint8Array | string>) {
          if (answered || received.includes("\r\n\r\n") || socket.destroyed) return;
          if (request.delayMs) await Bun.sleep(request.delayMs);
          const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
          const framed = request.chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]) : bytes;
          const flushed = socket.write(framed);
          sent += bytes.length;
          if (!flushed) await new Promise<void>((resume) => (socket.once("drain", resume), socket.once("close", resume)));
        }
        if (request.chunked && !socket.destroyed && !answered) socket.write("0\r\n\r\n");
        request.onSent?.();
      } catch {
        // The server closed the connection while we were still sending: the answer (if any) decides.
      }
    });
  });
}

/** VmRSS of a process, in MB. */
export const rssMb = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1] ?? NaN) / 1024;
