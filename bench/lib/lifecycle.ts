// How a bench script ends: every child stopped and every registered clean-up run, on success, on
// error, on SIGINT/SIGTERM and when the time limit is reached.
import { stopAll } from "./processes.ts";

const cleanups: (() => Promise<void> | void)[] = [];
let cleanedUp = false;

/** Runs at the end, after every child process is stopped; the last registered runs first. */
export const atCleanup = (fn: () => Promise<void> | void) => void cleanups.push(fn);

async function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  await stopAll();
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (error) {
      console.error(`clean-up failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Runs `main`, then cleans up and exits: 0 on success, 1 on error or at the time limit, 130 on a signal. */
export async function runBench(main: () => Promise<void>, timeLimitSeconds: number): Promise<never> {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      console.error(`\n${signal}: stopping every child process`);
      void cleanup().finally(() => process.exit(130));
    });
  const watchdog = setTimeout(() => {
    console.error(`bench: time limit of ${timeLimitSeconds} s reached, stopping everything`);
    void cleanup().finally(() => process.exit(1));
  }, timeLimitSeconds * 1000);
  let exitCode = 0;
  try {
    await main();
  } catch (error) {
    exitCode = 1;
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await cleanup();
    clearTimeout(watchdog);
  }
  process.exit(exitCode);
}
