// The background worker of one instance: runs queued tasks now when woken, and polls for tasks
// queued by other instances (or left behind by a crashed one).
import { pruneChanges } from "../application/changes.ts";
import { runNextTask } from "../application/maintenance.ts";
import { deliverDueWebhooks } from "../application/webhooks.ts";
import { sweepImages } from "../application/images.ts";
import { recountJournalTokens } from "../application/journals.ts";
import { foldAskCounts, PACK_MIN_PASSAGES } from "../application/retrieval.ts";
import type { Deps } from "../application/deps.ts";

export interface Worker {
  wake(): void;
  /** Resolves once no task is running. */
  stop(): Promise<void>;
}

const PRUNE_EVERY_MS = 3_600_000;

export function startWorker(deps: Deps, options: { pollMs?: number; changeRetentionDays?: number; imageSweepMs?: number; embedMs?: number; recountMs?: number; foldMs?: number; foldThreshold?: number; packMs?: number; packMinPassages?: number; statisticsMs?: number; foldSlotsMs?: number } = {}): Worker {
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
  // Change-feed retention: hourly, and once soon after start (any instance may; the delete is idempotent).
  const prune = () =>
    pruneChanges(deps, options.changeRetentionDays ?? 30).then(
      (removed) => removed && deps.log.info("changes pruned", { removed }),
      (error) => deps.log.error("change pruning failed", { error: (error as Error).message }),
    );
  const firstPrune = setTimeout(prune, 10_000);
  const pruning = setInterval(prune, PRUNE_EVERY_MS);
  // Periodic passes: each never overlaps itself, logs its failure, and is stopped with the worker.
  const passes: { timer: ReturnType<typeof setInterval>; current: () => Promise<void> | null }[] = [];
  const every = (ms: number, failure: string, work: () => Promise<void>) => {
    const pass = onePassAtATime(async () => {
      if (stopped) return;
      try {
        await work();
      } catch (error) {
        deps.log.error(failure, { error: (error as Error).message });
      }
    });
    passes.push({ timer: setInterval(pass.start, ms), current: pass.current });
  };
  // Images: objects of uploads never completed, and of records or campaigns deleted since, are
  // deleted here (any instance may; deleting twice is harmless).
  every(options.imageSweepMs ?? 60_000, "image sweep failed", async () => {
    while (!stopped && (await sweepImages(deps)) > 0);
  });
  // Ask's dense vectors (an embedder is configured): passages written since the last look are
  // embedded in batches here, never in the write's transaction. A provider refusal waits for its
  // retry hint (or a minute).
  const embedding = new AbortController();
  let embedPausedUntil = 0;
  const indexPending = deps.retriever.indexPending?.bind(deps.retriever);
  if (indexPending)
    every(options.embedMs ?? 2000, "ask embedding failed", async () => {
      if (Date.now() < embedPausedUntil) return;
      try {
        const embedded = await indexPending(null, embedding.signal);
        if (embedded) deps.log.debug("ask passages embedded", { passages: embedded });
      } catch (error) {
        if (embedding.signal.aborted) return;
        const retryAfter = (error as { retryAfterSeconds?: number | null }).retryAfterSeconds;
        embedPausedUntil = Date.now() + (retryAfter ?? 60) * 1000;
        deps.log.warn("ask embedding failed", { error: (error as Error).message, retryInSeconds: retryAfter ?? 60 });
      }
    });
  // Journal entries counted before o200k_base (migration 0019's queue): recounted in batches of 20
  // until none is left; then each look is one read of an empty table.
  every(options.recountMs ?? 5000, "journal token recount failed", async () => {
    while (!stopped && (await recountJournalTokens(deps)) > 0);
  });
  // Ask's running counts: record writes add delta rows that every question sums; folded here once a
  // campaign has enough of them (imports and the backfill fold their own). Any instance may: two
  // folds of a campaign never count a row twice.
  every(options.foldMs ?? 60_000, "ask count folding failed", async () => {
    const folded = await foldAskCounts(deps, options.foldThreshold);
    if (folded) deps.log.debug("ask counts folded", { campaigns: folded });
  });
  // Ask's packed posting lists (migration 0037): a campaign past PACK_MIN_PASSAGES is packed, and
  // packed again once a tenth of it changed. One campaign a pass (packing 105k passages takes seconds).
  every(options.packMs ?? 60_000, "ask packing failed", async () => {
    const packed = await deps.records.askIndex.pack(options.packMinPassages ?? PACK_MIN_PASSAGES, 1);
    if (packed.length) deps.log.info("ask posting lists packed", { campaigns: packed });
  });
  // Search counters that concurrent writers spread over slots (0058) folded back to one row a key
  // (0059): each fold pass works at most a few seconds, so it runs often while an import goes on
  // (8 writers through the API spread ~100 counter rows a second); the statistics pass's vacuum
  // reclaims what it removed.
  every(options.foldSlotsMs ?? 10_000, "search counter folding failed", async () => {
    const folded = await deps.records.searchCounters.foldSlots();
    if (folded) deps.log.debug("search counters folded", { keys: folded });
  });
  // The planner's statistics of tables that grew by a fifth (adapters/sql/statistics.ts): a campaign
  // imported record by record is planned with them minutes later, autovacuum or not (PGlite has none).
  // First the visibility map of the tables read index-only (a vacuum there analyses what it must).
  every(options.statisticsMs ?? 30_000, "planner statistics failed", async () => {
    const vacuumed = await deps.records.statistics.refreshVisibility();
    if (vacuumed.length) deps.log.info("tables vacuumed", { tables: vacuumed });
    const tables = await deps.records.statistics.refresh();
    if (tables.length) deps.log.info("planner statistics gathered", { tables });
  });
  return {
    wake,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(firstPrune);
      clearInterval(pruning);
      for (const pass of passes) clearInterval(pass.timer);
      embedding.abort();
      await running;
      for (const pass of passes) await pass.current();
    },
  };
}

/** A periodic pass that never overlaps itself: `start` while one runs does nothing; `current` is the running one. */
function onePassAtATime(pass: () => Promise<void>) {
  let running: Promise<void> | null = null;
  return {
    start: () => {
      running ??= pass().finally(() => {
        running = null;
      });
    },
    current: () => running,
  };
}

/**
 * Webhook delivery for this instance: delivers while endpoints are due, then waits for `wake` (a
 * change committed in a campaign with a webhook) or `pollMs` (retries come due, other instances'
 * leases run out, a wake-up was missed), whichever comes first. Endpoints are claimed with a
 * lease, so any number of instances may run this.
 */
export function startWebhookDispatcher(deps: Deps, options: { pollMs?: number } = {}): { wake(): void; stop(): Promise<void> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  const round = async () => {
    try {
      while (!stopped && (await deliverDueWebhooks(deps)));
    } catch (error) {
      deps.log.error("webhook dispatcher error", { error: (error as Error).message });
    }
  };
  const tick = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    again = false;
    running = round().finally(() => {
      running = null;
      if (stopped) return;
      // A wake-up during the round may be for a change the round read too late: look once more.
      if (again) tick();
      else timer = setTimeout(tick, options.pollMs ?? 200);
    });
  };
  timer = setTimeout(tick, options.pollMs ?? 200);
  return {
    wake: () => {
      if (stopped) return;
      if (running) again = true;
      else tick();
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
