// The background worker of one instance: runs queued tasks now when woken, and polls for tasks
// queued by other instances (or left behind by a crashed one).
import { runNextTask } from "../application/maintenance.ts";
import type { Deps } from "../application/deps.ts";

export interface Worker {
  wake(): void;
  /** Resolves once no task is running. */
  stop(): Promise<void>;
}

export function startWorker(deps: Deps, options: { pollMs?: number } = {}): Worker {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const drain = async () => {
    do {
      again = false;
      try {
        while (!stopped && (await runNextTask(deps)));
      } catch (error) {
        deps.log.error("worker error", { error: (error as Error).message });
      }
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain().finally(() => {
      running = null;
    });
  };
  const timer = setInterval(wake, options.pollMs ?? 2000);
  return {
    wake,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
