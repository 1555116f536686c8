// Ask's one tokenizer: gpt-tokenizer's o200k_base, in a worker thread started on first use. Its
// tables take tens of megabytes (a service that never counts never pays for them) and about a second
// of CPU to build, and a transcript takes long to count: on the event loop either would stall every
// request in flight. Counts asked for in the same tick travel to the thread as one message; a thread
// idle for five minutes is ended, which gives back about 50 MB; a GM at work keeps it warm (a cold start costs about 0.45 s of the next count, off the event loop).
import type { TokenCounter } from "../../ports/tokens.ts";

type Reply = { batch: number; counts?: number[]; error?: string };
type Waiting = { text: string; resolve(count: number): void; reject(error: Error): void };
/** Bun's Worker, which can let the process exit while it idles. */
type Thread = Worker & { ref(): void; unref(): void };

let thread: Thread | null = null;
let queued: Waiting[] = [];
const inFlight = new Map<number, Waiting[]>();
let batches = 0;
let idleTimer: ReturnType<typeof setTimeout> | null = null;
const IDLE_MS = 5 * 60_000;

function settle(batch: number, outcome: (texts: Waiting[]) => void) {
  const texts = inFlight.get(batch);
  if (!texts) return;
  inFlight.delete(batch);
  outcome(texts);
  if (inFlight.size > 0 || !thread) return;
  // An idle thread must not keep a CLI command's process alive, nor its tables the memory.
  thread.unref();
  const idle = thread;
  idleTimer = setTimeout(() => {
    if (thread === idle && inFlight.size === 0) {
      thread = null;
      idle.terminate();
    }
  }, IDLE_MS);
  (idleTimer as { unref?: () => void }).unref?.();
}

function start(): Thread {
  const started = new Worker(new URL("./tokenizer-worker.ts", import.meta.url).href) as Thread;
  started.onmessage = ({ data }: MessageEvent<Reply>) =>
    settle(data.batch, (texts) =>
      data.counts ? texts.forEach((text, i) => text.resolve(data.counts![i]!)) : texts.forEach((text) => text.reject(new Error(`tokenizer: ${data.error}`))),
    );
  started.onerror = (event) => {
    // A broken thread fails what it holds; the next count starts a new one.
    thread = null;
    for (const batch of [...inFlight.keys()]) settle(batch, (texts) => texts.forEach((text) => text.reject(new Error(`tokenizer: ${event.message}`))));
  };
  return started;
}

function send() {
  const texts = queued;
  queued = [];
  const batch = batches++;
  inFlight.set(batch, texts);
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  thread ??= start();
  thread.ref();
  thread.postMessage({ batch, texts: texts.map((text) => text.text) });
}

export const o200kTokenCounter: TokenCounter = {
  name: "o200k_base",
  count(text) {
    if (!text) return Promise.resolve(0);
    return new Promise((resolve, reject) => {
      if (queued.push({ text, resolve, reject }) === 1) queueMicrotask(send);
    });
  },
};
