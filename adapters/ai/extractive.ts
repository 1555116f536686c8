// The offline handout writer: no model, only the session's own words and records. It picks the
// most central lines rather than inventing any, and says so in its summary.
import { aliasKey } from "../../domain/aliases.ts";
import { stripWikilinks } from "../../domain/wikilinks.ts";
import type { Handout } from "../../domain/sessions.ts";
import type { HandoutMaterial, HandoutWriter } from "../../ports/media.ts";

const STOP = new Set(
  "a an and are as at be but by for from had has have he her his i if in into is it its me my no not of on or our she so than that the their them then there these they this to up was we were what when where which who will with you your yeah okay oh just like all can do don't i'm it's that's gonna get got go going one out right".split(" "),
);

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Lines scored by how many of the session's frequent words they carry (TF over the session). */
function centralLines(utterances: HandoutMaterial["utterances"], count: number, filter: (speaker: string) => boolean) {
  const frequency = new Map<string, number>();
  for (const u of utterances) for (const word of words(u.text)) if (!STOP.has(word) && word.length > 2) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const scored = utterances
    .filter((u) => filter(u.speaker_label) && words(u.text).length >= 8)
    .map((u) => {
      const list = words(u.text).filter((w) => !STOP.has(w) && w.length > 2);
      const score = list.reduce((sum, word) => sum + Math.log(1 + (frequency.get(word) ?? 0)), 0) / Math.sqrt(Math.max(1, words(u.text).length));
      return { u, score };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .sort((a, b) => a.u.position - b.u.position);
  return scored.map(({ u }) => u);
}

const sentence = (text: string, max = 280) => (text.length <= max ? text : `${text.slice(0, max).replace(/\s+\S*$/u, "")}…`);

const mentions = (text: string, names: string[]) => {
  const lower = text.toLowerCase();
  return names.some((name) => name.length > 2 && lower.includes(name.toLowerCase()));
};

export const extractiveHandoutWriter: HandoutWriter = {
  name: "extractive",
  async write(m: HandoutMaterial): Promise<Handout> {
    const isGm = (speaker: string) => m.gmSpeakers.some((gm) => aliasKey(gm) === aliasKey(speaker));
    const narration = m.utterances.some((u) => isGm(u.speaker_label)) ? isGm : () => true;
    const central = centralLines(m.utterances, 5, narration);
    const summary = central.length
      ? `Extractive summary (the session's most central lines, not a written recap): ${central.map((u) => sentence(u.text, 200)).join(" ")}`
      : m.session.summary
        ? stripWikilinks(m.session.summary)
        : "No transcript or summary to draw from yet.";

    const majors = m.beats.filter((b) => b.type === "major");
    const children = (id: string) => m.beats.filter((b) => b.parent_id === id);
    const encounters = majors.map((beat) => ({
      title: beat.label,
      bullets: [beat.description ? stripWikilinks(beat.description) : null, ...children(beat.id).map((c) => c.label)].filter((x): x is string => Boolean(x)),
    }));
    const sessionOutline = majors.length ? majors.map((b) => ({ title: b.label })) : m.beats.map((b) => ({ title: b.label }));

    const mentionCount = (names: string[]) => m.utterances.filter((u) => mentions(u.text, names)).length;
    const characterSpotlight = m.characters
      .map((c) => {
        const spoken = c.speaker ? m.utterances.filter((u) => aliasKey(u.speaker_label) === aliasKey(c.speaker!)).length : 0;
        return { c, activity: spoken + mentionCount([c.name, ...c.aliases]) };
      })
      .filter(({ activity }) => activity > 0)
      .sort((a, b) => b.activity - a.activity)
      .slice(0, 4)
      .map(({ c }) => ({
        name: c.name,
        description: c.description ? sentence(stripWikilinks(c.description)) : "",
        bullets: m.utterances.filter((u) => mentions(u.text, [c.name, ...c.aliases])).slice(0, 3).map((u) => sentence(`${u.speaker_label}: ${u.text}`, 200)),
      }));

    const ranked = (kind: "faction" | "location" | "item") =>
      m.entities
        .filter((e) => e.kind === kind)
        .map((e) => ({ e, n: mentionCount([e.name, ...e.aliases]) }))
        .filter(({ n }) => n > 0)
        .sort((a, b) => b.n - a.n)
        .slice(0, 5)
        .map(({ e }) => ({ name: e.name, description: e.description ? sentence(stripWikilinks(e.description)) : "" }));

    const discoveries = m.utterances
      .filter((u) => narration(u.speaker_label) && /\byou (?:find|learn|notice|discover|see|realize|recognize)\b/iu.test(u.text))
      .slice(0, 5)
      .map((u) => ({ info: sentence(u.text, 240) }));
    const closing = m.utterances.slice(-5);

    return {
      summary,
      sessionOutline,
      encounters,
      characterSpotlight,
      otherEntitySpotlight: [...ranked("faction"), ...ranked("location")],
      items: ranked("item"),
      valuableInformation: discoveries,
      partyStatusAndNextSteps: {
        partyStatus: { summary: closing.length ? "Where the session left off, in the table's own words:" : "", bullets: closing.map((u) => sentence(`${u.speaker_label}: ${u.text}`, 200)) },
        nextSteps: { summary: closing.length ? sentence(closing[closing.length - 1]!.text) : "" },
      },
      moments: m.moments.map((moment) => ({ label: moment.label ?? "", content: moment.content ? stripWikilinks(moment.content) : "" })),
    };
  },
};
