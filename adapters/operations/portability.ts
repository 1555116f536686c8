// Whole-campaign export and import: wire schemas and operations (REST and CLI only; exports are too large for MCP tools).
import { Type } from "@sinclair/typebox";
import { grants } from "../../domain/access.ts";
import { fail, ok } from "../../domain/errors.ts";
import * as portability from "../../application/portability.ts";
import { campaignVault, safeName, type VaultNote, type VaultPicture } from "../../application/markdown.ts";
import { IMAGE_FILE, importVault, type Vault, type VaultFile } from "../../application/vault.ts";
import type { Result } from "../../domain/errors.ts";
import { strToU8, unzipSync, Zip, ZipDeflate, ZipPassThrough } from "fflate";
import { parse, stringify } from "yaml";
import type { Deps } from "../../application/deps.ts";
import { CampaignIdPath, FIRST_PARTY, Id } from "./common.ts";
import { defineOperation, defineOperations, RawResponse } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";

const IncludeImages = Type.Optional(
  Type.Boolean({ description: "true: the managed images' bytes travel inline (base64, with content type and sha256) after the records, so an import elsewhere keeps them. Default false: only their rows and URLs (an import on this service copies the images it still holds)" }),
);

export const ExportQuery = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal("all"), Type.Literal("mine")], {
      description: "all: every record (needs owner or game-master access); mine: only what you may read. Absent: all for owners and game masters, mine for everyone else",
    }),
  ),
  include_images: IncludeImages,
});

export const InternalExportQuery = Type.Object({ include_images: IncludeImages });

export const ImportQuery = Type.Object({ owner_id: Id("The user who will own the new campaign") });

export const ImportResult = Type.Object({ id: Id("The new campaign's id") }, { title: "ImportResult" });

/** 1 GiB: a long campaign's transcripts are tens of MB; the import holds the document in memory once. */
const IMPORT_LIMIT = 1024 * 1024 * 1024;

const EXPORT_DOC =
  "One JSON document, streamed from one consistent snapshot: {header: {format, version, exported_at, campaign_id, scope}, records: {campaign, settings, field_definitions, members, speakers, characters, factions, locations, items, sessions, transcripts, transcript_utterances, cast_analyses, handouts, beats, moments, recap_pipelines, hero_awards, quotes, spotlights, quests, journal_folders, journal_entries, journal_shares, links, search_index, images}, images (with include_images=true): [{object_key, content_type, sha256, data (base64)}], trailer: {counts, records_sha256}}. Import it with POST /internal/v1/campaigns/import or `bun run cms campaigns import FILE --owner USER_ID`.";

const exportResponse = (deps: Deps, campaignId: string, viewerId: string | null, version: string, includeImages: boolean) =>
  new RawResponse("application/json; charset=utf-8", portability.exportCampaign(deps, { campaignId, viewerId, serviceVersion: version, includeImages }), {
    "content-disposition": `attachment; filename="campaign-${campaignId}.json"`,
  });

/**
 * The vault as a zip, streamed: each note `---\n<front matter>---\n\n<text>` (deflated), then each
 * picture read from the store as it is sent (stored as is: already compressed), so a vault with
 * its images is never held whole — only the notes' text and one chunk at a time. A picture whose
 * object is gone since the snapshot is left out.
 */
export async function* vaultZip(
  notes: VaultNote[],
  root: string,
  pictures: VaultPicture[] = [],
  read: (objectKey: string) => Promise<ReadableStream<Uint8Array> | null> = async () => null,
): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => (error ? (failure = error) : ready.push(data)));
  function* drain() {
    if (failure) throw failure;
    while (ready.length) yield ready.shift()!;
  }
  for (const note of notes) {
    const file = new ZipDeflate([root, note.folder, `${note.name}.md`].filter(Boolean).join("/"), { level: 6 });
    zip.add(file);
    file.push(strToU8(`---\n${stringify(note.frontMatter)}---\n\n${note.body}\n`), true);
    yield* drain();
  }
  for (const picture of pictures) {
    const stream = await read(picture.objectKey);
    if (!stream) continue;
    const file = new ZipPassThrough(`${root}/${picture.path}`);
    zip.add(file);
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      file.push(next.value);
      yield* drain();
    }
    file.push(new Uint8Array(0), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}

/** Folder names a vault's notes are sorted into; a zip's single top folder is its root unless it is one of these. */
const KIND_FOLDERS = /^(characters|npcs|pcs|player characters|people|persons|factions|organi[sz]ations|guilds|groups|locations|places|regions|cities|items|objects|artifacts|artefacts|loot|equipment|sessions|session notes|beats|moments|quests|journals)$/i;

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n?---[ \t]*(?:\n|$)/;

const badVault = (path: string, message: string) => {
  const msg = `${path}: ${message}; nothing was imported`;
  return fail("invalid", msg, [{ type: "import_invalid", loc: ["body", path], msg, input: null }]);
};

/**
 * The notes of a zipped vault, their YAML front matter read (the application never sees YAML), and
 * its picture files. Hidden files and folders (.obsidian, .trash) and other files are left out; a
 * single top folder (as our export writes) is the vault's name.
 */
export function vaultFromZip(zip: Uint8Array, fallbackName: string): Result<Vault> {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch (error) {
    return fail("invalid", `The body is not a zip archive (${(error as Error).message}); nothing was imported`);
  }
  const paths = Object.keys(files).filter((path) => !path.endsWith("/") && !path.split("/").some((part) => part.startsWith(".") || part === "__MACOSX"));
  const tops = new Set(paths.map((path) => (path.includes("/") ? path.split("/")[0]! : "")));
  const [top] = tops;
  const root = tops.size === 1 && top && !KIND_FOLDERS.test(top) ? top : null;
  const notes: VaultFile[] = [];
  for (const path of paths.filter((p) => p.toLowerCase().endsWith(".md")).sort()) {
    const inVault = root ? path.slice(root.length + 1) : path;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(files[path]!);
    } catch {
      return badVault(inVault, "is not UTF-8 text");
    }
    text = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
    const match = FRONT_MATTER.exec(text);
    let frontMatter: Record<string, unknown> | null = null;
    if (match) {
      let parsed: unknown;
      try {
        parsed = parse(match[1]!);
      } catch (error) {
        const reason = (error as Error).message.split("\n")[0];
        return badVault(inVault, `the front matter is not valid YAML (${reason})`);
      }
      if (parsed !== null && (typeof parsed !== "object" || Array.isArray(parsed)))
        return badVault(inVault, "the front matter must be a map of fields (key: value)");
      frontMatter = (parsed as Record<string, unknown> | null) ?? {};
    }
    notes.push({ path: inVault, frontMatter, body: (match ? text.slice(match[0].length) : text).replace(/^\n+/, "").replace(/\s+$/, "") });
  }
  // Picture files go with the notes, for the notes that embed them; other files are left out.
  const assets = paths.filter((p) => IMAGE_FILE.test(p)).map((path) => ({ path: root ? path.slice(root.length + 1) : path, bytes: files[path]! }));
  return ok({ name: root ?? fallbackName, notes, assets });
}

export const MarkdownImportQuery = Type.Object({
  owner_id: Id("The user who will own the new campaign"),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The campaign's title unless a note says type: campaign (default: the zip's single top folder, else \"Imported vault\")" })),
});

export const MarkdownImportResult = Type.Object(
  {
    id: Id("The new campaign's id"),
    counts: Type.Record(Type.String(), Type.Integer(), { description: "Records created, by kind (character, faction, location, item, session, beat, moment, quest, journal, journal_folder), and image: the managed images made from the vault's pictures" }),
  },
  { title: "MarkdownImportResult" },
);

export const MarkdownExportQuery = Type.Object({
  format: Type.Optional(Type.Literal("markdown", { description: "markdown (the only format of the zip)" })),
  scope: ExportQuery.properties.scope,
  include_images: Type.Optional(
    Type.Boolean({
      description:
        "true: each record's managed image is written into the vault as Images/<note name>.<ext> and named in the note's front matter as image: \"[[Images/…]]\" (streamed: read from the store one at a time). Default false: front matter image is the image's URL (an import on this service copies the images it still holds)",
    }),
  ),
});

export const portabilityOperations = defineOperations({ publishedAt: 190 }, [
  defineOperation({
    id: "exportCampaign",
    summary: "Export a whole campaign",
    description: `${EXPORT_DOC} scope=all needs owner or game-master access; scope=mine gives any member what they may read (their private journal entries and those shared with them, not others'); without scope, each gets the most they may.`,
    tag: "Export and import",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/export", status: 200 },
    input: { path: CampaignIdPath, query: ExportQuery },
    run: async ({ deps, caller, access, info }, { query }) => {
      const mine = query.scope === "mine" || (query.scope === undefined && !grants(access.level, "manage"));
      if (!mine && !grants(access.level, "manage")) return fail("forbidden", "Exporting the whole campaign needs owner or game-master (admin) access; use scope=mine for what you may read");
      return ok(exportResponse(deps, access.campaign.id, mine ? caller.userId : null, info.version, query.include_images === true));
    },
  }),
  defineOperation({
    id: "exportCampaignMarkdown",
    summary: "Export a campaign as an Obsidian vault",
    description:
      "A zip of Markdown notes, one per record in a folder per kind (Characters, Factions, Locations, Items, Sessions, Beats, Moments, Quests; journal entries in Journals/<their folder path>), each with YAML front matter (id, type, aliases, tags, session, image) and the record's text with its [[wikilinks]] intact: open it as a vault in Obsidian. With include_images=true the managed images are in the zip too (Images/), named by front matter image. Scopes as for the JSON export. Import a vault with `bun run cms campaigns import-markdown DIR --owner USER_ID`.",
    tag: "Export and import",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/export.zip", status: 200 },
    input: { path: CampaignIdPath, query: MarkdownExportQuery },
    run: async ({ deps, caller, access }, { query }) => {
      const mine = query.scope === "mine" || (query.scope === undefined && !grants(access.level, "manage"));
      if (!mine && !grants(access.level, "manage")) return fail("forbidden", "Exporting the whole campaign needs owner or game-master (admin) access; use scope=mine for what you may read");
      const root = safeName(access.campaign.title);
      const { notes, pictures } = await campaignVault(deps, access.campaign.id, mine ? caller.userId : null, { includeImages: query.include_images === true });
      // Pictures are read after the snapshot, as the JSON export does: an image deleted since is left out.
      const zip = vaultZip(notes, root, pictures, (key) => deps.images.store.read(key));
      return ok(new RawResponse("application/zip", zip, { "content-disposition": `attachment; filename="campaign-${access.campaign.id}.zip"` }));
    },
  }),
  defineOperation({
    id: "internalExportCampaign",
    summary: "Export a whole campaign (first party)",
    description: `${FIRST_PARTY} ${EXPORT_DOC}`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "GET", path: "/internal/v1/campaigns/{campaign_id}/export", status: 200 },
    input: { path: CampaignIdPath, query: InternalExportQuery },
    run: async ({ deps, info }, { path, query }) => {
      const found = await deps.records.campaigns.get(path.campaign_id);
      return found ? ok(exportResponse(deps, found.id, null, info.version, query.include_images === true)) : fail("not_found", "Campaign not found");
    },
  }),
  defineOperation({
    id: "internalImportCampaign",
    summary: "Import a campaign",
    description: `${FIRST_PARTY} Creates a new campaign owned by owner_id from an export document (the request body): new ids, every reference remapped, validated whole before anything is written (the first bad record is named), all or nothing. Members and journal authors who have no account here are left out (authors become the owner). Journal entries' token_count is counted again with the service's tokenizer (o200k_base), whatever the file says: an entry over 50,000 tokens, or entries over 1,000,000 together, refuse the file (422 naming the entry). Managed images become the new campaign's own: stored from the document's inline images (include_images=true), else copied from this service's store while the source still holds them; an image found nowhere is dropped and cleared from its records, so the new campaign never shows a URL of the old one.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/import", status: 201, rawBody: true, maxBodyBytes: IMPORT_LIMIT },
    input: { query: ImportQuery },
    output: ImportResult,
    run: async ({ deps, stream }, { query }) => {
      let text = "";
      if (stream) for await (const piece of stream.pieces) text += piece;
      return portability.importCampaign(deps, query.owner_id, text);
    },
  }),
  defineOperation({
    id: "internalImportMarkdown",
    summary: "Import a Markdown (Obsidian) vault",
    description: `${FIRST_PARTY} Creates a new campaign owned by owner_id from a zipped vault (the request body, application/zip; the zip export.zip gives, or any Obsidian vault): a note's kind is its front matter's type, else the deepest folder named for a kind (Characters, NPCs, PCs, Factions, Locations, Places, Items, Sessions, Beats, Moments, Quests), else it is a journal entry in a journal folder of the same path. Front matter id, aliases, tags, session, parent (an id or name of the same kind; otherwise the folder note) and image are read; text is kept as written and [[wikilinks]] (also [[Note|shown]] and [[Note#heading]]) become links to characters, factions, locations and items (journal entries are not link targets: [[A journal note]] stays text). Pictures: a character, faction, location, item, session or moment (or the campaign note) gets as its managed image the picture front matter image names, else the first picture file of the zip its text embeds (![[pic.png]], ![[sub/pic.jpg|300]], ![](relative/pic.png); found by path, else by name anywhere in the vault, shortest path first), checked and re-encoded like an upload; the embed stays in the text. A picture that is not a valid JPEG, PNG, WebP, GIF or AVIF, or over the size or pixel limits, refuses the vault (422 naming the file). A quest's giver naming no character or faction of the vault is dropped and kept as a last line \`Giver: NAME\` of its success_definition; in nested location folders a folder note (Locations/Emon.md or Locations/Emon/Emon.md) is the parent of the locations in Locations/Emon/. All or nothing; a note whose front matter is not YAML is named. Also \`bun run cms campaigns import-markdown DIR --owner USER_ID\`.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/import-markdown", status: 201, rawBody: true, maxBodyBytes: IMPORT_LIMIT },
    input: { query: MarkdownImportQuery },
    output: MarkdownImportResult,
    run: async ({ deps, stream }, { query }) => {
      const parts: Uint8Array[] = [];
      if (stream?.bytes) for await (const part of stream.bytes) parts.push(part);
      if (!parts.length) return fail("invalid", "The body is empty: send the vault as a zip (application/zip); nothing was imported");
      const vault = vaultFromZip(Buffer.concat(parts), query.title ?? "Imported vault");
      if (!vault.ok) return vault;
      return importVault(deps, query.owner_id, query.title ? { ...vault.value, name: query.title } : vault.value);
    },
  }),
]);

declare module "./index.ts" {
  interface PublishedOperations {
    portability: typeof portabilityOperations;
  }
}
