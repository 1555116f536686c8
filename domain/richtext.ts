// Rich text (Lexical editor state) to plain text, and plain text to retrieval chunks.
import { estimateTokens } from "./journals.ts";

type LexicalNode = { type?: unknown; text?: unknown; children?: unknown };

const BLOCKS = new Set(["paragraph", "heading", "quote", "listitem", "code", "list", "table", "tablerow"]);

/**
 * The text a reader sees in a Lexical editor state: text nodes in order, a new line after each
 * block and for each line break. Anything that is not a Lexical tree yields "".
 */
export function lexicalToPlainText(state: unknown): string {
  const root = (state as { root?: LexicalNode } | null)?.root;
  if (!root || typeof root !== "object") return "";
  const lines: string[] = [];
  let current = "";
  const walk = (node: LexicalNode, depth: number) => {
    if (depth > 64 || !node || typeof node !== "object") return;
    if (node.type === "linebreak") {
      current += "\n";
      return;
    }
    if (typeof node.text === "string") current += node.text;
    if (Array.isArray(node.children)) for (const child of node.children) walk(child as LexicalNode, depth + 1);
    if (typeof node.type === "string" && BLOCKS.has(node.type) && node.type !== "list" && node.type !== "table") {
      lines.push(current);
      current = "";
    }
  };
  walk(root, 0);
  if (current) lines.push(current);
  return lines.join("\n").replace(/\n+$/u, "");
}

/**
 * Splits text into chunks of at most `maxTokens` (by the four-characters estimate), cutting at
 * paragraph, then sentence, then word boundaries. Joining the chunks with "\n" loses no word.
 */
export function chunkText(text: string, maxTokens = 250): string[] {
  const chunks: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim()) chunks.push(current.trim());
    current = "";
  };
  const pieces = text.split(/\n{2,}/u).flatMap((paragraph) => (estimateTokens(paragraph) <= maxTokens ? [paragraph] : paragraph.split(/(?<=[.!?])\s+/u)));
  for (const piece of pieces) {
    const candidate = current ? `${current}\n${piece}` : piece;
    if (estimateTokens(candidate) <= maxTokens) {
      current = candidate;
      continue;
    }
    flush();
    if (estimateTokens(piece) <= maxTokens) {
      current = piece;
      continue;
    }
    for (const word of piece.split(/\s+/u)) {
      const next = current ? `${current} ${word}` : word;
      if (estimateTokens(next) <= maxTokens) current = next;
      else {
        flush();
        // A single word longer than a chunk is cut by characters.
        let rest = word;
        while (estimateTokens(rest) > maxTokens) {
          chunks.push(rest.slice(0, maxTokens * 4));
          rest = rest.slice(maxTokens * 4);
        }
        current = rest;
      }
    }
  }
  flush();
  return chunks;
}
