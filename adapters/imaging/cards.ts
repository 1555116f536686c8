// Hero-award cards: an SVG template drawn to PNG with sharp.
import sharp from "sharp";
import type { CardRenderer } from "../../ports/media.ts";
import type { HeroAward } from "../../domain/recaps.ts";

const WIDTH = 1080;
const SQUARE = 1080;
const PORTRAIT = 1350;

const STYLES: Record<string, { background: string; accent: string; text: string }> = {
  verdant: { background: "#143d2b", accent: "#7fd18b", text: "#f3fff4" },
  ember: { background: "#3d1614", accent: "#ff9a5c", text: "#fff6f0" },
  arcane: { background: "#1c1640", accent: "#a98bff", text: "#f6f2ff" },
  frost: { background: "#0f2a3d", accent: "#7fd6ff", text: "#f0fbff" },
  gilded: { background: "#2e2410", accent: "#f2c14e", text: "#fffaf0" },
};

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (ch) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[ch]!);

/** Greedy word wrap to lines of at most `width` characters, at most `maxLines` lines. */
export function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/u).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= width) line = next;
    else {
      if (line) lines.push(line);
      line = word.length > width ? `${word.slice(0, width - 1)}…` : word;
    }
    if (lines.length === maxLines) break;
  }
  if (line && lines.length < maxLines) lines.push(line);
  if (lines.length === maxLines && lines.join(" ").length < text.trim().length) lines[maxLines - 1] = `${lines[maxLines - 1]!.replace(/.$/u, "")}…`;
  return lines;
}

const color = (value: unknown, fallback: string) => (typeof value === "string" && /^#[0-9a-f]{3,8}$/iu.test(value) ? value : fallback);

export function heroAwardSvg(award: HeroAward): string {
  const height = award.variant === "portrait" ? PORTRAIT : SQUARE;
  const base = STYLES[award.style] ?? STYLES.verdant!;
  const theme = award.custom_theme ?? {};
  const palette = { background: color(theme.background, base.background), accent: color(theme.accent, base.accent), text: color(theme.text, base.text) };
  const title = wrap(award.title, 22, 3);
  const description = wrap(award.description, 46, award.variant === "portrait" ? 9 : 6);
  const who = [award.character_name, award.player_name ? `played by ${award.player_name}` : ""].filter(Boolean).join(" · ");
  const titleTop = 300;
  const descriptionTop = titleTop + title.length * 84 + 70;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">
  <rect width="100%" height="100%" fill="${palette.background}"/>
  <rect x="40" y="40" width="${WIDTH - 80}" height="${height - 80}" rx="36" fill="none" stroke="${palette.accent}" stroke-width="8"/>
  <text x="${WIDTH / 2}" y="170" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="40" letter-spacing="8" fill="${palette.accent}">HERO AWARD</text>
  ${title.map((line, i) => `<text x="${WIDTH / 2}" y="${titleTop + i * 84}" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" font-size="72" fill="${palette.text}">${escapeXml(line)}</text>`).join("\n  ")}
  ${description.map((line, i) => `<text x="${WIDTH / 2}" y="${descriptionTop + i * 52}" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="36" fill="${palette.text}">${escapeXml(line)}</text>`).join("\n  ")}
  <text x="${WIDTH / 2}" y="${height - 110}" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-style="italic" font-size="40" fill="${palette.accent}">${escapeXml(who)}</text>
</svg>`;
}

export const sharpCardRenderer: CardRenderer = {
  size: { width: WIDTH, height: SQUARE, portraitHeight: PORTRAIT },
  async heroAward(award) {
    return new Uint8Array(await sharp(Buffer.from(heroAwardSvg(award))).png().toBuffer());
  },
};
