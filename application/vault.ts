// Markdown (Obsidian) import: a new campaign from a vault of notes — one made by our Markdown export
// (front matter id, type, aliases, tags, session; a folder per kind) or by hand (no front matter:
// the kind comes from the folders, anything else becomes a journal entry in the same folder tree).
// One transaction: the records, then their wikilinks and search documents, all or nothing.
import { dedupeAliases, normalizeAlias } from "../domain/aliases.ts";
import { DEFAULT_LANGUAGE, type Campaign } from "../domain/campaign.ts";
import { CHARACTER_TYPES, type Character, type CharacterType } from "../domain/characters.ts";
import type { Entity, EntityKind } from "../domain/entities.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import { imageTooLarge, objectKeyFor, refusedByModeration, type ImageEntityType } from "../domain/images.ts";
import { CAMPAIGN_TOKEN_LIMIT, ENTRY_TOKEN_LIMIT, type JournalEntry, type JournalFolder } from "../domain/journals.ts";
import type { Moment } from "../domain/moments.ts";
import { applyQuestPatch, emptyQuest, QUEST_CATEGORIES, QUEST_STATUSES, type Quest, type QuestCategory, type QuestStatus } from "../domain/quests.ts";
import { BEAT_TYPES, type Beat, type BeatType } from "../domain/beats.ts";
import { SESSION_TYPES, type Session, type SessionType } from "../domain/sessions.ts";
import type { Repositories } from "../ports/records.ts";
import { afterWrite as afterBeat } from "./beats.ts";
import { seedCampaign } from "./campaigns.ts";
import { afterWrite as afterCharacter } from "./characters.ts";
import { nowIso, type Deps } from "./deps.ts";
import { afterWrite as afterEntity } from "./entities.ts";
import { oneAtATime } from "./images.ts";
import { afterWrite as afterJournal } from "./journals.ts";
import { syncWikilinks } from "./links.ts";
import { afterWrite as afterMoment } from "./moments.ts";
import { indexQuest, resolveAgainstCampaign } from "./quests.ts";
import { indexSession } from "./sessions.ts";

/** One note of the vault, its front matter already read (null: the note has none). */
export interface VaultFile {
  /** Path inside the vault, "/"-separated, with ".md": "Characters/Grog.md". */
  path: string;
  frontMatter: Record<string, unknown> | null;
  body: string;
}

/** A picture file of the vault (.png, .jpg, .jpeg, .gif, .webp, .avif), for the notes that embed it. */
export interface VaultAsset {
  /** Path inside the vault, "/"-separated: "attachments/pike.png". */
  path: string;
  bytes: Uint8Array;
}

export interface Vault {
  /** The vault's folder name: the campaign's title unless a note says `type: campaign`. */
  name: string;
  notes: VaultFile[];
  /** Picture files (other files are never read). */
  assets?: VaultAsset[];
}

/** Files a note's embed can make a managed image of (the formats uploads accept). */
export const IMAGE_FILE = /\.(png|jpe?g|gif|webp|avif)$/i;

/** Kinds with an `image` field; the others (beats, quests, journal entries) keep their embeds as text only. */
const IMAGE_KIND: Partial<Record<Kind, ImageEntityType>> = { campaign: "campaign", character: "character", faction: "faction", location: "location", item: "item", session: "session", moment: "moment" };

/**
 * A note's embeds in order: `![[pic.png]]`, `![[sub/pic.jpg|300]]`, `![alt](relative/pic.png)`
 * (percent-encoded or in <…>). External URLs are not embeds of the vault.
 */
export function embedTargets(body: string): string[] {
  const targets: string[] = [];
  for (const match of body.matchAll(/!\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]|!\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)/g)) {
    if (match[1]) targets.push(match[1].trim());
    else {
      const target = match[2]!.replace(/^<|>$/g, "");
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      try {
        targets.push(decodeURI(target));
      } catch {
        targets.push(target);
      }
    }
  }
  return targets;
}

/**
 * Finds an embed's file the way Obsidian does: a path relative to the note's folder or to the vault,
 * else the file name (or its last folders) anywhere in the vault — in the note's own folder first,
 * then the shortest path. Case does not matter.
 */
export function assetFinder(assets: readonly VaultAsset[]): (target: string, notePath: string) => VaultAsset | undefined {
  const byPath = new Map(assets.map((asset) => [asset.path.toLowerCase(), asset]));
  const shortestFirst = [...assets].sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.path.localeCompare(b.path));
  const normalize = (parts: string[]): string | null => {
    const out: string[] = [];
    for (const part of parts)
      if (part === "..") {
        if (!out.length) return null;
        out.pop();
      } else if (part && part !== ".") out.push(part);
    return out.join("/").toLowerCase();
  };
  return (target, notePath) => {
    const folder = notePath.split("/").slice(0, -1);
    const parts = target.split("/");
    for (const path of [normalize([...folder, ...parts]), normalize(parts)]) {
      const found = path ? byPath.get(path) : undefined;
      if (found) return found;
    }
    const tail = normalize(parts);
    if (!tail) return undefined;
    const matches = shortestFirst.filter((asset) => `/${asset.path.toLowerCase()}`.endsWith(`/${tail}`));
    const here = folder.join("/").toLowerCase();
    return matches.find((asset) => asset.path.split("/").slice(0, -1).join("/").toLowerCase() === here) ?? matches[0];
  };
}

type Kind = "campaign" | "character" | "faction" | "location" | "item" | "session" | "beat" | "moment" | "quest" | "journal";

/** Folder names (lower case) that say what their notes are; the deepest such folder of a path decides. */
const FOLDER_KINDS: Record<string, Kind> = {
  characters: "character", npcs: "character", pcs: "character", "player characters": "character", people: "character", persons: "character",
  factions: "faction", organizations: "faction", organisations: "faction", guilds: "faction", groups: "faction",
  locations: "location", places: "location", regions: "location", cities: "location",
  items: "item", objects: "item", artifacts: "item", artefacts: "item", loot: "item", equipment: "item",
  sessions: "session", "session notes": "session",
  beats: "beat", moments: "moment", quests: "quest",
  journals: "journal",
};

const KINDS = new Set<Kind>(["campaign", "character", "faction", "location", "item", "session", "beat", "moment", "quest", "journal"]);

const strings = (value: unknown): string[] =>
  typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === "string" || typeof v === "number").map(String) : [];
const string = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : typeof value === "number" ? String(value) : null);
const oneOf = <T extends string>(values: readonly T[], candidates: string[], fallback: T): T =>
  (candidates.map((c) => values.find((v) => v.toLowerCase() === c.toLowerCase())).find(Boolean) as T | undefined) ?? fallback;

interface Planned {
  file: VaultFile;
  kind: Kind;
  name: string;
  /** Folders of the path, without the file name (and without a leading "Journals" for journals). */
  folders: string[];
  newId: string;
}

const badNote = (path: string, message: string) => {
  const msg = `${path}: ${message}; nothing was imported`;
  return fail("invalid", msg, [{ type: "import_invalid", loc: ["body", path], msg, input: null }]);
};

const badImage = (assetPath: string, notePath: string, problem: string) => {
  const msg = `${assetPath} (embedded in ${notePath}): ${problem.charAt(0).toLowerCase()}${problem.slice(1)}; nothing was imported`;
  return fail("invalid", msg, [{ type: "import_invalid", loc: ["body", assetPath], msg, input: null }]);
};

/** The kind of a note: its front matter's `type`, else the deepest folder named for a kind, else a journal entry. */
function kindOf(file: VaultFile, folders: string[]): Kind {
  const declared = string(file.frontMatter?.type)?.toLowerCase();
  if (declared && KINDS.has(declared as Kind)) return declared as Kind;
  for (const folder of [...folders].reverse()) {
    const kind = FOLDER_KINDS[folder.toLowerCase()];
    if (kind) return kind;
  }
  return "journal";
}

/** "2024-03-01 The Heist" → date and title (a session note made by our export); other names keep a null date. */
const sessionName = (name: string): { date: string | null; title: string } => {
  const match = /^(\d{4}-\d{2}-\d{2})\s+(.+)$/.exec(name);
  return match ? { date: match[1]!, title: match[2]! } : { date: null, title: name };
};

/** Splits "text\n\n## Backstory\n\nmore" (how the export writes a character) into description and backstory. */
const splitSection = (body: string, heading: string): [string, string | null] => {
  const marker = new RegExp(`(^|\\n)## ${heading}\\n\\n`);
  const match = marker.exec(body);
  if (!match) return [body, null];
  return [body.slice(0, match.index).trim(), body.slice(match.index + match[0].length).trim() || null];
};

/** `**Success:** …` paragraphs of a quest note made by the export. */
const questField = (body: string, label: string): string | null => {
  const match = new RegExp(`(?:^|\\n)\\*\\*${label}:\\*\\* ([\\s\\S]*?)(?=\\n\\n\\*\\*(?:Success|Next|Resolution):\\*\\*|$)`).exec(body);
  return match ? match[1]!.trim() || null : null;
};

/** Creates a campaign owned by `ownerId` from a vault's notes. */
export async function importVault(deps: Deps, ownerId: string, vault: Vault): Promise<Result<{ id: string; counts: Record<string, number> }>> {
  if (!(await deps.records.users.get(ownerId))) return fail("not_found", "User not found (owner_id)");
  if (!vault.notes.length) return fail("invalid", "The vault holds no Markdown notes (.md); nothing was imported");
  const at = nowIso(deps);
  const notes = [...vault.notes].sort((a, b) => a.path.localeCompare(b.path));
  const planned: Planned[] = [];
  for (const file of notes) {
    const parts = file.path.split("/");
    const name = normalizeAlias(parts.pop()!.replace(/\.md$/i, ""));
    if (!name) return badNote(file.path, "the note has no name");
    const kind = kindOf(file, parts);
    const folders = kind === "journal" && parts[0]?.toLowerCase() === "journals" ? parts.slice(1) : parts;
    planned.push({ file, kind, name, folders, newId: "" });
  }
  // Ids drawn sorted, so records listed by id keep the vault's order.
  const ids = planned.map(() => deps.ids.next()).sort();
  planned.forEach((p, index) => (p.newId = ids[index]!));
  const campaignNotes = planned.filter((p) => p.kind === "campaign");
  if (campaignNotes.length > 1) return badNote(campaignNotes[1]!.file.path, "a second note says type: campaign (a vault is one campaign)");
  const campaignNote = campaignNotes[0];
  const title = normalizeAlias(string(campaignNote?.file.frontMatter?.title) ?? campaignNote?.name ?? vault.name) || "Imported vault";
  const campaign: Campaign = {
    id: deps.ids.next(),
    title,
    description: campaignNote?.file.body.trim() || null,
    system: string(campaignNote?.file.frontMatter?.system),
    summary: null,
    language: DEFAULT_LANGUAGE,
    image: null,
    public: false,
    mature: false,
    owner_id: ownerId,
    archived: false,
    archived_at: null,
    created_at: at,
    updated_at: null,
  };

  // Front matter ids (from our export) name records in `parent` and `session`; sessions are also named by their note's name.
  const byOldId = new Map<string, Planned>();
  for (const p of planned) {
    const id = string(p.file.frontMatter?.id);
    if (id) byOldId.set(id, p);
  }
  const sessionByName = new Map(planned.filter((p) => p.kind === "session").map((p) => [p.name.toLowerCase(), p]));
  const sessionOf = (value: string): Planned | undefined => {
    const byId = byOldId.get(value);
    return byId?.kind === "session" ? byId : sessionByName.get(normalizeAlias(value.replace(/^\[\[|\]\]$/g, "")).toLowerCase());
  };
  // Obsidian's folder notes: the location "Emon" of `Locations/Emon.md` or `Locations/Emon/Emon.md`
  // is the parent of the locations in `Locations/Emon/`. Keyed by path without ".md", lower case.
  const locationAt = new Map(planned.filter((p) => p.kind === "location").map((p) => [p.file.path.replace(/\.md$/i, "").toLowerCase(), p]));
  const folderNoteParent = (p: Planned): Planned | undefined => {
    // A folder note's own folder is not its parent's: look one folder up.
    const folders = p.folders.at(-1)?.toLowerCase() === p.name.toLowerCase() ? p.folders.slice(0, -1) : p.folders;
    const folder = folders.at(-1);
    if (!folder) return undefined;
    return [[...folders, folder], [...folders.slice(0, -1), folder]].map((path) => locationAt.get(path.join("/").toLowerCase())).find((found) => found && found !== p);
  };
  // Front matter `parent` by id (our export) or by note name (`parent: "[[Emon]]"`, by hand); one of
  // another kind, or naming nothing, gives way to the folder note.
  const byKindAndName = new Map<string, Planned>();
  for (const p of planned) if (!byKindAndName.has(`${p.kind}/${p.name.toLowerCase()}`)) byKindAndName.set(`${p.kind}/${p.name.toLowerCase()}`, p);
  const parentOf = (p: Planned, kind: Kind): string | null => {
    const named = string(p.file.frontMatter?.parent);
    const candidates = named ? [byOldId.get(named), byKindAndName.get(`${kind}/${normalizeAlias(named.replace(/^\[\[([^|\]#]*)(?:[#|][^\]]*)?\]\]$/, "$1")).toLowerCase()}`)] : [];
    const parent = candidates.find((c) => c && c.kind === kind && c !== p) ?? (kind === "location" ? folderNoteParent(p) : undefined);
    return parent && parent.kind === kind && parent !== p ? parent.newId : null;
  };

  // Journal folders: every folder of a journal entry's path, parents first.
  const folders = new Map<string, JournalFolder>();
  for (const p of planned.filter((p) => p.kind === "journal"))
    for (let depth = 1; depth <= p.folders.length; depth++) {
      const path = p.folders.slice(0, depth).join("/");
      if (folders.has(path.toLowerCase())) continue;
      const parent = depth > 1 ? folders.get(p.folders.slice(0, depth - 1).join("/").toLowerCase())! : null;
      folders.set(path.toLowerCase(), { id: deps.ids.next(), campaign_id: campaign.id, parent_id: parent?.id ?? null, name: p.folders[depth - 1]!, path, description: null, position: 0, metadata: null, created_at: at, updated_at: null });
    }

  // Pictures: a record of a kind with an `image` gets the first picture its note names — front matter
  // `image` ("[[pike.png]]", a path, or a URL of this service's images, as our export writes without
  // include_images), else its first embed of a picture file of the vault — checked and re-encoded as
  // an upload is. Stored before the transaction and taken back if the import fails, so no row ever
  // names a missing object. The note's text keeps its embeds as written.
  const findAsset = assetFinder(vault.assets ?? []);
  const { store, processor, moderator, settings } = deps.images;
  const limits = { maxBytes: settings.maxBytes, maxPixels: settings.maxPixels };
  const images: { entityType: ImageEntityType; entityId: string; key: string; url: string; contentType: string }[] = [];
  const imageUrl = new Map<Planned, string>();
  const takeBack = async () => {
    for (const image of images) await store.delete(image.key).catch(() => undefined);
  };
  // A store or moderator failing mid-way (S3 down) takes back what was stored too.
  const storePictures = async (): Promise<Result<true>> => {
    for (const p of planned) {
      const entityType = IMAGE_KIND[p.kind];
      if (!entityType) continue;
      const declared = string(p.file.frontMatter?.image);
      let picked: { path: string; bytes: Uint8Array | null; size: number } | undefined;
      if (declared && /^https?:\/\//i.test(declared)) {
        const key = store.keyOfUrl(declared);
        // An image from elsewhere stays a link, as a record's image may be (never fetched; https only, as the API asks).
        if (!key) {
          if (/^https:\/\//i.test(declared)) imageUrl.set(p, declared);
          continue;
        }
        const info = await store.head(key);
        if (info) picked = { path: key, size: info.size, bytes: info.size > limits.maxBytes ? null : new Uint8Array(await new Response(await store.read(key)).arrayBuffer()) };
      } else if (declared) {
        const asset = findAsset(declared.replace(/^!?\[\[([^\]|#]*)(?:[#|][^\]]*)?\]\]$/, "$1").trim(), p.file.path);
        if (asset) picked = { ...asset, size: asset.bytes.byteLength };
      }
      if (!picked)
        for (const target of embedTargets(p.file.body)) {
          const asset = findAsset(target, p.file.path);
          if (asset) {
            picked = { ...asset, size: asset.bytes.byteLength };
            break;
          }
        }
      if (!picked) continue;
      // One decode at a time with the uploads' (each holds a decoded picture); nothing is kept between
      // notes, so a vault of many pictures holds one re-encoding at a time (a file several notes embed is
      // cleaned again for each).
      const bytes = picked.bytes;
      let cleaned: Awaited<ReturnType<typeof processor.clean>> = bytes
        ? await oneAtATime(() => processor.clean(bytes, limits))
        : { ok: false, problem: imageTooLarge(picked.size, limits.maxBytes) };
      if (cleaned.ok) {
        const verdict = await moderator.review(cleaned.image);
        if (!verdict.allowed) cleaned = { ok: false, problem: refusedByModeration(verdict.reason) };
      }
      if (!cleaned.ok) {
        await takeBack();
        return badImage(picked.path, p.file.path, cleaned.problem);
      }
      const key = objectKeyFor(campaign.id, entityType, deps.ids.next(), picked.path.split("/").pop()!);
      const url = store.publicUrl(key);
      images.push({ entityType, entityId: p.kind === "campaign" ? campaign.id : p.newId, key, url, contentType: cleaned.image.contentType });
      await store.put(key, cleaned.image.bytes, cleaned.image.contentType);
      imageUrl.set(p, url);
    }
    return ok(true);
  };
  try {
    const stored = await storePictures();
    if (!stored.ok) return stored;
  } catch (error) {
    await takeBack();
    throw error;
  }
  if (campaignNote) campaign.image = imageUrl.get(campaignNote) ?? null;

  const counts: Record<string, number> = {};
  const count = (kind: string) => (counts[kind] = (counts[kind] ?? 0) + 1);
  let journalTokens = 0;
  const written: ((tx: Repositories) => Promise<void>)[] = [];
  const write = () => deps.records.withTransaction(async (tx): Promise<Result<{ id: string; counts: Record<string, number> }>> => {
    for (const key of Object.keys(counts)) delete counts[key];
    written.length = 0;
    journalTokens = 0;
    await seedCampaign(tx, deps, campaign, at);
    for (const folder of folders.values()) await tx.folders.insert(folder);
    // Sessions first (beats and moments name them), then every other record, then links and search over them all.
    for (const p of [...planned.filter((p) => p.kind === "session"), ...planned.filter((p) => p.kind !== "session")]) {
      const front = p.file.frontMatter ?? {};
      const tags = strings(front.tags);
      const aliases = dedupeAliases(strings(front.aliases).map(normalizeAlias).filter(Boolean));
      const body = p.file.body.trim();
      switch (p.kind) {
        case "campaign":
          continue;
        case "character": {
          const [description, backstory] = splitSection(body, "Backstory");
          const character: Character = {
            id: p.newId, campaign_id: campaign.id, character_name: p.name, character_aliases: aliases, player_name: string(front.player), player_handle: null, speaker_id: null,
            description: description || null, backstory, type: oneOf<CharacterType>(CHARACTER_TYPES, [string(front.character_type) ?? "", ...tags, ...p.folders.map((f) => (/^(pcs|player characters)$/i.test(f) ? "PC" : ""))], "NPC"),
            image: imageUrl.get(p) ?? null, tcg_image: null, approved: true, merge: false, created_at: at, updated_at: null,
          };
          await tx.characters.insert(character);
          written.push((tx) => afterCharacter(tx, deps, character, null));
          break;
        }
        case "faction":
        case "location":
        case "item": {
          const entity: Entity = { id: p.newId, campaign_id: campaign.id, kind: p.kind as EntityKind, name: p.name, aliases, description: body || null, type: tags[0] ?? null, image: imageUrl.get(p) ?? null, tcg_image: null, parent_id: parentOf(p, p.kind), merge: false, created_at: at, updated_at: null };
          // The parent may come later in the vault: set once every record exists.
          await tx.entities.insert({ ...entity, parent_id: null });
          written.push(async (tx) => {
            if (entity.parent_id) await tx.entities.replace(entity);
            await afterEntity(tx, deps, entity, null);
          });
          break;
        }
        case "session": {
          const { date, title } = sessionName(p.name);
          const when = string(front.date) ?? date;
          const parsed = when && !Number.isNaN(Date.parse(when)) ? new Date(when).toISOString() : at;
          const session: Session = {
            id: p.newId, campaign_id: campaign.id, type: oneOf<SessionType>(SESSION_TYPES, tags, "other"), title, summary: body || null, notes: null, session_date: parsed,
            image: imageUrl.get(p) ?? null, public: false, pbp_start_msg_url: null, pbp_end_msg_url: null, created_at: at, updated_at: null,
          };
          await tx.sessions.insert(session);
          written.push(async (tx) => {
            await syncWikilinks(tx, deps, { campaignId: session.campaign_id, type: "GameSession", id: session.id }, session.summary);
            await indexSession(tx, deps, session);
          });
          break;
        }
        case "beat": {
          const sessions = strings(front.session).map(sessionOf).filter((s): s is Planned => Boolean(s)).map((s) => s.newId);
          const beat: Beat = { id: p.newId, campaign_id: campaign.id, label: p.name, type: oneOf<BeatType>(BEAT_TYPES, tags, "major"), description: body || null, index: 0, parent_id: parentOf(p, "beat"), metadata: null, game_session_ids: [...new Set(sessions)], created_at: at, updated_at: null };
          if (beat.type === "major") beat.parent_id = null;
          await tx.beats.insert({ ...beat, parent_id: null });
          written.push(async (tx) => {
            if (beat.parent_id) await tx.beats.replace(beat);
            await afterBeat(tx, deps, beat, null);
          });
          break;
        }
        case "moment": {
          const session = strings(front.session).map(sessionOf).find(Boolean);
          const moment: Moment = { id: p.newId, campaign_id: campaign.id, session_id: session?.newId ?? null, label: p.name, content: body || null, image: imageUrl.get(p) ?? null, index: null, categories: tags, kind: "legacy", metadata: null, created_at: at, updated_at: null };
          await tx.moments.insert(moment);
          written.push((tx) => afterMoment(tx, deps, moment, null));
          break;
        }
        case "quest":
          // After the characters (the giver is resolved by name): written below.
          continue;
        case "journal": {
          const summaryQuote = front.type === "journal" ? /^> (.*)\n\n/.exec(body) : null;
          const content = summaryQuote ? body.slice(summaryQuote[0].length) : body;
          const entry: JournalEntry = {
            id: p.newId, campaign_id: campaign.id, title: p.name, summary: summaryQuote?.[1] ?? null, content, content_rich: null, content_metadata: null, tags, token_count: 0,
            cover_image: null, is_pinned: false, is_public: front.public === true, status: "draft", published_at: null, archived_at: null,
            folder_id: p.folders.length ? folders.get(p.folders.join("/").toLowerCase())!.id : null, author_id: ownerId, last_edited_by_id: ownerId, created_at: at, updated_at: null,
          };
          // The journal limits hold for imported notes as for written ones (the count is the one they are checked with).
          entry.token_count = await deps.ask.tokens.count(content);
          if (entry.token_count > ENTRY_TOKEN_LIMIT)
            return badNote(p.file.path, `the note has ${entry.token_count.toLocaleString("en")} tokens, over the journal entry limit of ${ENTRY_TOKEN_LIMIT.toLocaleString("en")}`);
          journalTokens += entry.token_count;
          if (journalTokens > CAMPAIGN_TOKEN_LIMIT)
            return badNote(p.file.path, `the journal notes reach ${journalTokens.toLocaleString("en")} tokens here, over the campaign limit of ${CAMPAIGN_TOKEN_LIMIT.toLocaleString("en")}`);
          await tx.journals.insert(entry);
          written.push((tx) => afterJournal(tx, deps, entry, null));
          break;
        }
      }
      count(p.kind);
    }
    for (const p of planned.filter((p) => p.kind === "quest")) {
      const front = p.file.frontMatter ?? {};
      const tags = strings(front.tags);
      const body = p.file.body.trim();
      const structured = /\*\*(Success|Next|Resolution):\*\*/.test(body);
      const state = applyQuestPatch(
        emptyQuest(p.name),
        {
          status: oneOf<QuestStatus>(QUEST_STATUSES, tags, "planned"),
          quest_category: oneOf<QuestCategory>(QUEST_CATEGORIES, tags, "n/a"),
          success_definition: structured ? questField(body, "Success") : body || null,
          next_action: structured ? questField(body, "Next") : null,
          resolution: structured ? questField(body, "Resolution") : null,
        },
        () => deps.ids.next(),
      );
      // Obsidian users often write the giver as a wikilink: `giver: "[[Grog|the goliath]]"`.
      const giver = string(front.giver)?.replace(/^\[\[([^|\]]*)(?:\|[^\]]*)?\]\]$/, "$1").trim() || null;
      let resolved = await resolveAgainstCampaign(tx, campaign.id, state, { quest_giver: giver });
      // A giver naming no character or faction of the vault: the quest is kept without one, and the
      // name stays readable as a last line of its success definition (a quest has no description).
      if (!resolved.ok && giver)
        resolved = await resolveAgainstCampaign(tx, campaign.id, { ...state, success_definition: [state.success_definition, `Giver: ${giver}`].filter(Boolean).join("\n\n") }, { quest_giver: null });
      if (!resolved.ok) return badNote(p.file.path, resolved.error.detail);
      const quest: Quest = { ...resolved.value, id: p.newId, campaign_id: campaign.id, order_index: await tx.quests.nextOrderIndex(campaign.id), created_at: at, updated_at: null };
      await tx.quests.insert(quest);
      written.push((tx) => indexQuest(tx, deps, quest));
      count("quest");
    }
    for (const image of images)
      await tx.images.insert({
        object_key: image.key, campaign_id: campaign.id, entity_type: image.entityType, entity_id: image.entityId, origin: "upload", status: "ready", content_type: image.contentType,
        url: image.url, attached: true, created_by: ownerId, expires_at: null, created_at: at, completed_at: at,
      });
    for (const write of written) await write(tx);
    return ok({ id: campaign.id, counts: { ...counts, journal_folder: folders.size, image: images.length } });
  });
  try {
    const result = await write();
    if (!result.ok) await takeBack();
    return result;
  } catch (error) {
    await takeBack();
    const code = (error as { code?: string }).code ?? "";
    // A rule of the records the notes break (two characters of one name in different folders…): refused whole.
    if (/^(23|22)/.test(code)) return fail("invalid", `The vault breaks a rule of the records (${(error as Error).message}); nothing was imported`);
    throw error;
  }
}
