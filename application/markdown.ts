// The Obsidian-compatible Markdown vault of a campaign: one note per record, front matter (id, type,
// aliases, tags, session) and the record's text with its [[wikilinks]] intact; journals in their folder tree.
import type { PortableRow } from "../ports/records.ts";
import type { Deps } from "./deps.ts";

export interface VaultNote {
  /** Folder path inside the vault, e.g. "Characters" or "Journals/Lore/Gods". */
  folder: string;
  /** File name without .md. */
  name: string;
  frontMatter: Record<string, unknown>;
  body: string;
}

/** Characters Obsidian and the file systems it syncs to do not allow in a file name. */
export const safeName = (name: string): string => name.replace(/[\\/:*?"<>|#^[\]\u0000-\u001f]/g, " ").replace(/\s+/g, " ").trim().slice(0, 120) || "Untitled";

const text = (...parts: unknown[]) => parts.filter((part) => typeof part === "string" && part.trim()).join("\n\n");
const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/** A managed image written into the vault beside the notes: its path there and the object to read. */
export interface VaultPicture {
  path: string;
  objectKey: string;
}

const EXTENSION: Record<string, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif", "image/avif": "avif" };

/**
 * The vault's notes, from the same snapshot and scope as the JSON export. A record's image is front
 * matter `image`: with `includeImages`, a managed image of the campaign is written into the vault
 * (`Images/<note name>.<ext>`) and named as `"[[Images/…]]"`; otherwise (and for an image from
 * elsewhere) the URL. The note's text is never changed for it, so the import reads it back whole.
 */
export async function campaignVault(
  deps: Pick<Deps, "records">,
  campaignId: string,
  viewerId: string | null,
  options: { includeImages?: boolean } = {},
): Promise<{ notes: VaultNote[]; pictures: VaultPicture[] }> {
  const rows = new Map<string, PortableRow[]>();
  for await (const batch of deps.records.portable.read(campaignId, { viewerId })) {
    if (batch.section === "transcript_utterances" || batch.section === "search_index") continue;
    rows.set(batch.section, [...(rows.get(batch.section) ?? []), ...batch.rows]);
  }
  const of = (section: string) => rows.get(section) ?? [];
  const sessionTitle = new Map(of("sessions").map((s) => [String(s.id), `${String(s.session_date).slice(0, 10)} ${s.title}`]));
  const folderPath = new Map(of("journal_folders").map((f) => [String(f.id), String(f.path)]));
  const notes: VaultNote[] = [];
  const imageOf = new Map<VaultNote, string>();
  const add = (folder: string, name: string, frontMatter: Record<string, unknown>, body: string, image?: unknown) => {
    const note = { folder, name: safeName(name), frontMatter: Object.fromEntries(Object.entries(frontMatter).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length))), body };
    notes.push(note);
    if (typeof image === "string" && image) imageOf.set(note, image);
  };

  const [campaign] = of("campaign");
  if (campaign) add("", String(campaign.title), { id: campaign.id, type: "campaign", tags: ["campaign"] }, text(campaign.description, campaign.summary), campaign.image);
  for (const c of of("characters"))
    add("Characters", String(c.character_name), { id: c.id, type: "character", aliases: list(c.character_aliases), tags: [String(c.type ?? "NPC").toLowerCase()], player: c.player_name }, text(c.description, c.backstory && `## Backstory\n\n${c.backstory}`), c.image);
  for (const [section, folder] of [["factions", "Factions"], ["locations", "Locations"], ["items", "Items"]] as const)
    for (const e of of(section)) add(folder, String(e.name), { id: e.id, type: section.slice(0, -1), aliases: list(e.aliases), tags: e.type ? [String(e.type)] : [], parent: e.parent_id }, text(e.description), e.image);
  for (const s of of("sessions")) add("Sessions", sessionTitle.get(String(s.id))!, { id: s.id, type: "session", session: s.id, date: s.session_date, tags: [String(s.type)] }, text(s.summary), s.image);
  for (const b of of("beats")) add("Beats", String(b.label), { id: b.id, type: "beat", tags: [String(b.type)], parent: b.parent_id, session: list(b.game_session_ids).map((id) => sessionTitle.get(id) ?? id) }, text(b.description));
  for (const m of of("moments")) add("Moments", String(m.label ?? m.id), { id: m.id, type: "moment", tags: list(m.categories), session: m.session_id ? (sessionTitle.get(String(m.session_id)) ?? m.session_id) : null }, text(m.content), m.image);
  for (const q of of("quests"))
    add("Quests", String(q.quest_name), { id: q.id, type: "quest", tags: [String(q.status), String(q.quest_category)], giver: q.quest_giver }, text(q.success_definition && `**Success:** ${q.success_definition}`, q.next_action && `**Next:** ${q.next_action}`, q.resolution && `**Resolution:** ${q.resolution}`));
  for (const j of of("journal_entries"))
    add(["Journals", ...(j.folder_id ? [folderPath.get(String(j.folder_id)) ?? ""] : [])].filter(Boolean).join("/"), String(j.title), { id: j.id, type: "journal", tags: list(j.tags), public: j.is_public }, text(j.summary && `> ${j.summary}`, j.content));
  // Two records of one name in one folder: the second gets " (2)", as Obsidian itself names copies.
  const taken = new Set<string>();
  for (const note of notes) {
    let name = note.name;
    for (let n = 2; taken.has(`${note.folder}/${name}`.toLowerCase()); n++) name = `${note.name} (${n})`;
    note.name = name;
    taken.add(`${note.folder}/${name}`.toLowerCase());
  }
  // Images named after their note (the key's file name is the uploader's); a second of one name gets " (2)".
  const managed = new Map(of("images").map((row) => [String(row.url), row]));
  const pictures: VaultPicture[] = [];
  for (const note of notes) {
    const url = imageOf.get(note);
    if (!url) continue;
    const row = managed.get(url);
    const extension = row ? EXTENSION[String(row.content_type)] : undefined;
    if (!options.includeImages || !row || !extension) {
      note.frontMatter.image = url;
      continue;
    }
    let path = `Images/${note.name}.${extension}`;
    for (let n = 2; taken.has(path.toLowerCase()); n++) path = `Images/${note.name} (${n}).${extension}`;
    taken.add(path.toLowerCase());
    note.frontMatter.image = `[[${path}]]`;
    pictures.push({ path, objectKey: String(row.object_key) });
  }
  return { notes, pictures };
}
