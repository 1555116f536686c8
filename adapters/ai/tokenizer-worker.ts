// The tokenizer's thread: o200k_base's tables load here and every count runs here, so neither
// stalls the requests the service is answering (the load alone is about a second of CPU).
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

declare const self: Worker;

/** BPE is quadratic in a run's length: long runs of non-space characters are counted in slices. */
const SLICE = 1000;

function count(text: string): number {
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
}

self.onmessage = ({ data }: MessageEvent<{ batch: number; texts: string[] }>) => {
  try {
    self.postMessage({ batch: data.batch, counts: data.texts.map(count) });
  } catch (error) {
    self.postMessage({ batch: data.batch, error: error instanceof Error ? error.message : String(error) });
  }
};
