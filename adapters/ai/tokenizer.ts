// Ask's one tokenizer: o200k_base, counted exactly as gpt-tokenizer's countTokens counts it, by
// adapters/ai/o200k.ts from a compact table (about 5 MB, read from node_modules/.cache in a few
// milliseconds on first use). It runs on the event loop: a long text is counted a slice at a time
// (a few milliseconds each) with other work let in between, so counting a transcript or a large
// journal entry never holds a request up. No worker thread: one cost about 50 MB while alive.
import type { TokenCounter } from "../../ports/tokens.ts";
import { countSome, loadO200kTable } from "./o200k.ts";

/** Characters counted between two turns of the event loop (a few milliseconds on a loaded machine). */
const SLICE = 8000;

// The budget is shared by every count in flight, which take turns in order: a transcript's
// thousands of short utterances, counted together, let other work in as often as one long text does.
let budget = SLICE;
const waiting: (() => void)[] = [];
let turnScheduled = false;

function scheduleTurn() {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(() => {
    turnScheduled = false;
    budget = SLICE;
    handOn();
  });
}

/** Wakes the next count while this turn has budget left; else lets the event loop turn first. */
function handOn() {
  if (waiting.length === 0) return;
  if (budget > 0) waiting.shift()!();
  else scheduleTurn();
}

const wait = () =>
  new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (budget <= 0) scheduleTurn();
  });

export const o200kTokenCounter: TokenCounter = {
  name: "o200k_base",
  async count(text) {
    if (!text) return 0;
    const table = await loadO200kTable();
    if (budget <= 0 || waiting.length > 0) await wait();
    let total = 0;
    for (let from = 0; ; ) {
      const { tokens, next } = countSome(table, text, from, budget);
      total += tokens;
      budget -= next - from;
      from = next;
      if (from >= text.length) break;
      await wait(); // this turn's budget is spent: to the back of the queue
    }
    handOn();
    return total;
  },
};
