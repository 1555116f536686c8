// Search hit snippets: a short window of a document's text around the first word that matches the
// query, matching words wrapped in <mark>. The snippet is HTML (the marks are tags), so the
// document's own text is escaped: a note containing "<script>" cannot become markup in a client.

export const SNIPPET_MAX_WORDS = 24;
/** Words shown before the first match, so it is read in context. */
const LEAD_WORDS = 4;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
// Regular expressions are made once here: a /u literal inside the snippet's body cost more than the
// rest of a short snippet (Bun; 18.6 → 7.6 µs for a 10-word text). match, replace and matchAll start
// a global one from 0, and test on a non-global one keeps no state, so sharing them is safe.
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const QUERY_WORD = /[\p{L}\p{N}]+/gu;
const SPACES = /\s+/g;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;
// Most words and gaps hold nothing to escape: tested first, a snippet costs about half as much.
export const escapeHtml = (text: string): string => (SPECIAL.test(text) ? text.replace(SPECIALS, (ch) => ESCAPES[ch]!) : text);

/** The query's words, lower-cased, as search sees them. */
export const queryWords = (query: string): string[] => [...new Set(query.toLowerCase().match(QUERY_WORD) ?? [])];

/**
 * Whether a document word answers one of the query's words: it starts with it (search matches
 * name words by prefix), or it is the query word less a short ending ("flayer" for "flayers"),
 * roughly what English stemming matched in the body.
 */
export const wordMatches = (word: string, words: readonly string[]): boolean => {
  const lower = word.toLowerCase();
  return words.some((q) => lower.startsWith(q) || (lower.length >= 3 && q.startsWith(lower) && q.length - lower.length <= 3));
};

interface Token {
  start: number;
  end: number;
  marked: boolean;
}

/**
 * Up to `maxWords` words of `text` around its first word matching one of `words` (the query's, see
 * `queryWords`; from the start when none does), whitespace collapsed, "…" where text was cut,
 * matches in <mark>…</mark>, the rest escaped. Stops reading a long text once the window is full.
 */
export function searchSnippet(text: string, words: readonly string[], maxWords = SNIPPET_MAX_WORDS): string {
  const opening: Token[] = []; // the text's first words, shown when no word matches
  const window: Token[] = [];
  const earlier: Token[] = []; // words left out before the match, to fill a window a short text leaves open
  let matched = false;
  for (const found of text.matchAll(WORD)) {
    const token = { start: found.index, end: found.index + found[0].length, marked: words.length > 0 && wordMatches(found[0], words) };
    if (opening.length < maxWords) opening.push(token);
    if (window.length === maxWords) {
      if (matched) break;
      earlier.push(window.shift()!); // still looking for the first match: keep the latest words only
      if (earlier.length > maxWords) earlier.shift();
    }
    window.push(token);
    if (token.marked && !matched) {
      matched = true;
      earlier.push(...window.splice(0, Math.max(0, window.length - 1 - LEAD_WORDS)));
    }
  }
  if (matched) while (window.length < maxWords && earlier.length) window.unshift(earlier.pop()!);
  // No word matched (a misspelled query found the title): show the text's opening words.
  else window.splice(0, window.length, ...opening);
  if (!window.length) return "";
  const first = window[0]!;
  const last = window[window.length - 1]!;
  let html = "";
  let at = first.start;
  for (const token of window) {
    const gap = text.slice(at, token.start);
    html += gap === " " ? gap : escapeHtml(gap.replace(SPACES, " "));
    const word = escapeHtml(text.slice(token.start, token.end));
    html += token.marked ? `<mark>${word}</mark>` : word;
    at = token.end;
  }
  const hasWord = (part: string) => LETTER_OR_DIGIT.test(part);
  const tail = text.slice(last.end);
  const head = text.slice(0, first.start);
  // From the very start or to the very end, keep the punctuation there; otherwise mark the cut.
  const before = hasWord(head) ? "… " : escapeHtml(head.replace(SPACES, " ").trimStart());
  const after = hasWord(tail) ? " …" : escapeHtml(tail.replace(SPACES, " ").trimEnd());
  return `${before}${html}${after}`;
}
