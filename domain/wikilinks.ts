// Wikilink markup: [[Target]] or [[Target|shown text]].

export type Segment =
  | { kind: "text"; text: string }
  | { kind: "link"; raw: string; target: string; shown: string | null };

const WIKILINK = /\[\[([^[\]|\n]+)(?:\|([^[\]\n]*))?\]\]/gu;

/** Splits text into plain runs and links. Lossless: joining every segment's text/raw gives the input back. */
export function parseWikilinks(text: string): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(WIKILINK)) {
    const target = match[1]!.trim();
    if (!target) continue;
    if (match.index! > last) segments.push({ kind: "text", text: text.slice(last, match.index) });
    const shown = match[2] === undefined ? null : match[2];
    segments.push({ kind: "link", raw: match[0], target, shown });
    last = match.index! + match[0].length;
  }
  if (last < text.length) segments.push({ kind: "text", text: text.slice(last) });
  return segments;
}

export const renderSegments = (segments: readonly Segment[]): string =>
  segments.map((segment) => (segment.kind === "text" ? segment.text : segment.raw)).join("");

/** What a reader sees of a link. An empty shown text falls back to the target. */
export const shownText = (link: { target: string; shown: string | null }): string =>
  link.shown !== null && link.shown.trim() !== "" ? link.shown : link.target;

const stripOnce = (text: string): string =>
  parseWikilinks(text)
    .map((segment) => (segment.kind === "text" ? segment.text : shownText(segment)))
    .join("");

/**
 * Removes the markup, leaving what a reader sees. Repeats until nothing is left to strip, so odd
 * nestings like [[[[a]]]] cannot leave a link behind and stripping twice changes nothing.
 */
export function stripWikilinks(text: string): string {
  let current = text;
  for (;;) {
    if (!current.includes("[[")) return current;
    const next = stripOnce(current);
    if (next === current) return current;
    current = next;
  }
}

export const stripOrKeep = <T extends string | null | undefined>(text: T, withLinks: boolean): T =>
  (withLinks || !text ? text : stripWikilinks(text)) as T;

/** The distinct link targets in a text, in order of first appearance. */
export function wikilinkTargets(text: string | null | undefined): string[] {
  if (!text) return [];
  const seen = new Set<string>();
  const targets: string[] = [];
  for (const segment of parseWikilinks(text)) {
    if (segment.kind !== "link") continue;
    const key = segment.target.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    targets.push(segment.target);
  }
  return targets;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Link maintenance "add": wraps whole-word plain mentions of `alias` (outside existing links) as
 * links to `target`. Mentions already inside a link are left alone.
 */
export function linkMentions(text: string, alias: string, target: string): string {
  const needle = alias.trim();
  if (!needle) return text;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(needle)}(?![\\p{L}\\p{N}_])`, "giu");
  return parseWikilinks(text)
    .map((segment) => {
      if (segment.kind === "link") return segment.raw;
      return segment.text.replace(pattern, (mention) =>
        mention.toLowerCase() === target.toLowerCase() && mention === target ? `[[${target}]]` : `[[${target}|${mention}]]`,
      );
    })
    .join("");
}

/** Link maintenance "remove": unwraps links whose target (case-insensitively) is `target`. */
export function unlinkTarget(text: string, target: string): string {
  const key = target.trim().toLowerCase();
  return parseWikilinks(text)
    .map((segment) => (segment.kind === "link" && segment.target.toLowerCase() === key ? shownText(segment) : segment.kind === "text" ? segment.text : segment.raw))
    .join("");
}

/** Link maintenance "update": points links at `from` to `to`, keeping what readers see. */
export function retargetLinks(text: string, from: string, to: string): string {
  const key = from.trim().toLowerCase();
  return parseWikilinks(text)
    .map((segment) => {
      if (segment.kind === "text") return segment.text;
      if (segment.target.toLowerCase() !== key) return segment.raw;
      const shown = shownText(segment);
      return shown === to ? `[[${to}]]` : `[[${to}|${shown}]]`;
    })
    .join("");
}
