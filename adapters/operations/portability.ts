// Whole-campaign export and import: wire schemas and operations (REST and CLI only; exports are too large for MCP tools).
import { Type } from "@sinclair/typebox";
import { grants } from "../../domain/access.ts";
import { fail, ok } from "../../domain/errors.ts";
import * as portability from "../../application/portability.ts";
import { campaignVault, safeName, type VaultNote } from "../../application/markdown.ts";
import { strToU8, zipSync } from "fflate";
import { stringify } from "yaml";
import type { Deps } from "../../application/deps.ts";
import { CampaignIdPath, FIRST_PARTY, Id } from "./common.ts";
import { defineOperation, defineOperations, RawResponse } from "./operation.ts";

export const ExportQuery = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal("all"), Type.Literal("mine")], {
      description: "all: every record (needs owner or game-master access); mine: only what you may read. Absent: all for owners and game masters, mine for everyone else",
    }),
  ),
});

export const ImportQuery = Type.Object({ owner_id: Id("The user who will own the new campaign") });

export const ImportResult = Type.Object({ id: Id("The new campaign's id") }, { title: "ImportResult" });

/** 1 GiB: a long campaign's transcripts are tens of MB; the import holds the document in memory once. */
const IMPORT_LIMIT = 1024 * 1024 * 1024;

const EXPORT_DOC =
  "One JSON document, streamed from one consistent snapshot: {header: {format, version, exported_at, campaign_id, scope}, records: {campaign, settings, field_definitions, members, speakers, characters, factions, locations, items, sessions, transcripts, transcript_utterances, cast_analyses, handouts, beats, moments, recap_pipelines, hero_awards, quotes, spotlights, quests, journal_folders, journal_entries, journal_shares, links, search_index}, trailer: {counts, records_sha256}}. Import it with POST /internal/v1/campaigns/import or `bun run cms campaigns import FILE --owner USER_ID`.";

const exportResponse = (deps: Deps, campaignId: string, viewerId: string | null, version: string) =>
  new RawResponse("application/json; charset=utf-8", portability.exportCampaign(deps, { campaignId, viewerId, serviceVersion: version }), {
    "content-disposition": `attachment; filename="campaign-${campaignId}.json"`,
  });

/** The vault as a zip: each note `---\n<front matter>---\n\n<text>`. */
export function vaultZip(notes: VaultNote[], root: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const note of notes) {
    const path = [root, note.folder, `${note.name}.md`].filter(Boolean).join("/");
    files[path] = strToU8(`---\n${stringify(note.frontMatter)}---\n\n${note.body}\n`);
  }
  return zipSync(files, { level: 6 });
}

export const MarkdownExportQuery = Type.Object({
  format: Type.Optional(Type.Literal("markdown", { description: "markdown (the only format of the zip)" })),
  scope: ExportQuery.properties.scope,
});

export const portabilityOperations = defineOperations({ publishedAt: 190 }, [
  defineOperation({
    id: "exportCampaign",
    summary: "Export a whole campaign",
    description: `${EXPORT_DOC} scope=all needs owner or game-master access; scope=mine gives any member what they may read (their private journal entries and those shared with them, not others'); without scope, each gets the most they may.`,
    tag: "Export and import",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: ({ path }) => ({ campaign_id: path.campaign_id }) },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/export", status: 200 },
    input: { path: CampaignIdPath, query: ExportQuery },
    run: async ({ deps, caller, access, info }, { query }) => {
      const mine = query.scope === "mine" || (query.scope === undefined && !grants(access.level, "manage"));
      if (!mine && !grants(access.level, "manage")) return fail("forbidden", "Exporting the whole campaign needs owner or game-master (admin) access; use scope=mine for what you may read");
      return ok(exportResponse(deps, access.campaign.id, mine ? caller.userId : null, info.version));
    },
  }),
  defineOperation({
    id: "exportCampaignMarkdown",
    summary: "Export a campaign as an Obsidian vault",
    description:
      "A zip of Markdown notes, one per record in a folder per kind (Characters, Factions, Locations, Items, Sessions, Beats, Moments, Quests; journal entries in Journals/<their folder path>), each with YAML front matter (id, type, aliases, tags, session) and the record's text with its [[wikilinks]] intact: open it as a vault in Obsidian. Scopes as for the JSON export. Import a vault with `bun run cms campaigns import-markdown DIR --owner USER_ID`.",
    tag: "Export and import",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: ({ path }) => ({ campaign_id: path.campaign_id }) },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/export.zip", status: 200 },
    input: { path: CampaignIdPath, query: MarkdownExportQuery },
    run: async ({ deps, caller, access }, { query }) => {
      const mine = query.scope === "mine" || (query.scope === undefined && !grants(access.level, "manage"));
      if (!mine && !grants(access.level, "manage")) return fail("forbidden", "Exporting the whole campaign needs owner or game-master (admin) access; use scope=mine for what you may read");
      const root = safeName(access.campaign.title);
      const zip = vaultZip(await campaignVault(deps, access.campaign.id, mine ? caller.userId : null), root);
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
    input: { path: CampaignIdPath },
    run: async ({ deps, info }, { path }) => {
      const found = await deps.records.campaigns.get(path.campaign_id);
      return found ? ok(exportResponse(deps, found.id, null, info.version)) : fail("not_found", "Campaign not found");
    },
  }),
  defineOperation({
    id: "internalImportCampaign",
    summary: "Import a campaign",
    description: `${FIRST_PARTY} Creates a new campaign owned by owner_id from an export document (the request body): new ids, every reference remapped, validated whole before anything is written (the first bad record is named), all or nothing. Members and journal authors who have no account here are left out (authors become the owner).`,
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
]);

declare module "./index.ts" {
  interface PublishedOperations {
    portability: typeof portabilityOperations;
  }
}
