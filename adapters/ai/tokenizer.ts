// Ask's one tokenizer: gpt-tokenizer's o200k_base, loaded on first use (its tables take tens of
// megabytes: a service that never asks never pays for them).
import type { TokenCounter } from "../../ports/tokens.ts";

type Encoding = { countTokens(text: string): number };
let loading: Promise<Encoding> | null = null;
const encoding = () => (loading ??= import("gpt-tokenizer/encoding/o200k_base") as Promise<Encoding>);

/** BPE is quadratic in a run's length: long runs of non-space characters are counted in slices. */
const SLICE = 1000;

export const o200kTokenCounter: TokenCounter = {
  name: "o200k_base",
  async count(text) {
    if (!text) return 0;
    const { countTokens } = await encoding();
    let total = 0;
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + SLICE);
      // Cut at whitespace near the slice's end where there is some, so words stay whole.
      if (end < text.length) {
        const space = text.lastIndexOf(" ", end);
        if (space > start + SLICE / 2) end = space;
        else if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1; // never between a surrogate pair
      }
      total += countTokens(text.slice(start, end));
      start = end;
    }
    return total;
  },
};
