// Whole-campaign export (one versioned JSON document, streamed from one snapshot) and import (a new
// campaign from such a document: new ids, every reference remapped, validated before anything is
// written, all or nothing).
import { CREATOR_ROLES } from "../domain/campaign.ts";
import { IMAGE_FORMATS } from "../domain/images.ts";
import { CAMPAIGN_TOKEN_LIMIT, ENTRY_TOKEN_LIMIT } from "../domain/journals.ts";
import type { BlobStore } from "../ports/blobs.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { ImportedJournalChunk, ImportSection, PortableRow } from "../ports/records.ts";
import type { Deps } from "./deps.ts";
import { nowIso } from "./deps.ts";
import { countedChunks } from "./journals.ts";

export const EXPORT_FORMAT = "campaign-memory-service/campaign-export";
export const EXPORT_VERSION = 1;

export interface ExportRequest {
  campaignId: string;
  /** Only what this user may read (`scope=mine`); null: everything. */
  viewerId: string | null;
  serviceVersion: string;
  /** Managed images' bytes inline (base64) after the records. */
  includeImages?: boolean;
}

/** An image's bytes, or null when the store no longer has it. */
async function readBlob(store: BlobStore, key: string): Promise<Uint8Array | null> {
  const stream = await store.read(key);
  return stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : null;
}

const sha256Hex = (deps: Pick<Deps, "digests">, bytes: Uint8Array) => {
  const digest = deps.digests.sha256();
  digest.update(bytes);
  return digest.hex();
};

/**
 * The export document as text pieces: `{"header":{…},"records":{"campaign":[…],…},"trailer":{…}}`.
 * `records` is written exactly as JSON.stringify would write it, so its SHA-256 (in the trailer) can
 * be checked after any re-formatting of the file.
 */
export async function* exportCampaign(deps: Pick<Deps, "records" | "clock" | "digests" | "images">, request: ExportRequest): AsyncGenerator<string> {
  const header = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: nowIso(deps),
    campaign_id: request.campaignId,
    scope: request.viewerId ? "mine" : "all",
    service_version: request.serviceVersion,
  };
  yield `{"header":${JSON.stringify(header)},"records":`;
  const digest = deps.digests.sha256();
  const counts: Record<string, number> = {};
  const images: PortableRow[] = [];
  const sections = deps.records.portable.sections;
  let open = -1; // index of the section whose array is open
  const piece = (text: string) => {
    digest.update(text);
    return text;
  };
  /** Closes the open section and opens (empty) every section up to `index`. */
  const advanceTo = (index: number): string => {
    let text = "";
    while (open < index) {
      if (open >= 0) text += "]";
      open++;
      text += `${open === 0 ? "{" : ","}${JSON.stringify(sections[open])}:[`;
      counts[sections[open]!] = 0;
    }
    return text;
  };
  for await (const batch of deps.records.portable.read(request.campaignId, { viewerId: request.viewerId })) {
    const index = sections.indexOf(batch.section);
    let text = advanceTo(index);
    const first = counts[batch.section] === 0;
    text += (first ? "" : ",") + batch.rows.map((row) => JSON.stringify(row)).join(",");
    counts[batch.section]! += batch.rows.length;
    if (request.includeImages && batch.section === "images") images.push(...batch.rows);
    yield piece(text);
  }
  yield piece(`${advanceTo(sections.length - 1)}]}`);
  if (request.includeImages) {
    // One image in memory at a time, read after the snapshot: one deleted since is left out (the import then drops its row).
    let written = 0;
    yield `,"images":[`;
    for (const row of images) {
      const key = String(row.object_key);
      const bytes = await readBlob(deps.images.store, key);
      if (!bytes) continue;
      yield (written++ ? "," : "") + JSON.stringify({ object_key: key, content_type: row.content_type, sha256: sha256Hex(deps, bytes), data: Buffer.from(bytes).toString("base64") });
    }
    yield "]";
  }
  yield `,"trailer":${JSON.stringify({ counts, records_sha256: digest.hex() })}}`;
}

/** Sections whose rows carry their own id, and the columns that name other records of the file. */
const REFERENCES: Record<string, string[]> = {
  characters: ["speaker_id"],
  factions: ["parent_id"],
  locations: ["parent_id"],
  items: ["parent_id"],
  transcripts: ["session_id"],
  transcript_utterances: ["session_id"],
  cast_analyses: ["session_id"],
  handouts: ["session_id"],
  beats: ["parent_id"],
  moments: ["session_id"],
  recap_pipelines: ["session_id"],
  hero_awards: ["session_id"],
  quotes: ["session_id", "pipeline_id", "source_moment_id"],
  spotlights: ["session_id", "pipeline_id", "source_moment_id"],
  journal_folders: ["parent_id"],
  journal_entries: ["folder_id"],
  journal_shares: ["entry_id"],
  links: ["from_id", "to_id"],
  search_index: ["doc_id"],
  images: ["entity_id"],
};

/** Columns that name users: kept when the user exists here, otherwise handled as the column allows. */
const USER_COLUMNS: Record<string, { column: string; missing: "drop" | "null" | "owner" }[]> = {
  members: [{ column: "user_id", missing: "drop" }],
  speakers: [{ column: "user_id", missing: "null" }],
  journal_entries: [
    { column: "author_id", missing: "owner" },
    { column: "last_edited_by_id", missing: "null" },
  ],
  journal_shares: [{ column: "user_id", missing: "drop" }],
  images: [{ column: "created_by", missing: "null" }],
};

/** Columns that show an image (`image`, `tcg_image`, `cover_image`). */
const IMAGE_COLUMN = /(^|_)image$/;
const CONTENT_TYPES = new Set<string>(Object.values(IMAGE_FORMATS));

interface InlineImage {
  bytes: Uint8Array;
  contentType: string;
}

/** The document's `images` (include_images): each checked against its own sha256, or the first bad one named. */
function inlineImages(deps: Pick<Deps, "digests" | "images">, value: unknown, rows: PortableRow[]): Result<Map<string, InlineImage>> {
  const found = new Map<string, InlineImage>();
  if (value === undefined) return ok(found);
  if (!Array.isArray(value)) return bad("images", "must be a list");
  const keys = new Set(rows.map((row) => String(row.object_key)));
  for (const [index, image] of value.entries()) {
    const at = `images[${index}]`;
    if (!isRecord(image)) return bad(at, "must be an object");
    if (typeof image.object_key !== "string" || !keys.has(image.object_key)) return bad(`${at}.object_key`, "must name an image of records.images");
    if (typeof image.content_type !== "string" || !CONTENT_TYPES.has(image.content_type)) return bad(`${at}.content_type`, `must be one of ${[...CONTENT_TYPES].join(", ")}`);
    if (typeof image.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(image.data)) return bad(`${at}.data`, "must be the image's bytes in base64");
    const bytes = new Uint8Array(Buffer.from(image.data, "base64"));
    if (bytes.length > deps.images.settings.maxBytes) return bad(`${at}.data`, `is larger than the image limit (${deps.images.settings.maxBytes} bytes)`);
    if (image.sha256 !== sha256Hex(deps, bytes)) return bad(`${at}.sha256`, "does not match the image's bytes: the file was changed or damaged after export");
    found.set(image.object_key, { bytes, contentType: image.content_type });
  }
  return ok(found);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const bad = (at: string, message: string) => {
  const msg = `${at} ${message}; nothing was imported`;
  return fail("invalid", msg, [{ type: "import_invalid", loc: ["body", ...at.split(/[.[\]]+/).filter(Boolean).map((p) => (/^\d+$/.test(p) ? Number(p) : p))], msg, input: null }]);
};

/** Every string equal to a mapped id (values and object keys, at any depth) replaced by its new id. */
function remap(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === "string") {
    const whole = ids.get(value);
    if (whole) return whole;
    // Derived keys that start with a record's id ("<session id>:<chunk>" of the transcript index).
    const colon = value.indexOf(":");
    const head = colon > 0 ? ids.get(value.slice(0, colon)) : undefined;
    return head ? head + value.slice(colon) : value;
  }
  if (Array.isArray(value)) return value.map((item) => remap(item, ids));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[ids.get(key) ?? key] = remap(item, ids);
    return out;
  }
  return value;
}

/** Creates a campaign owned by `ownerId` from an export document's text. */
export async function importCampaign(deps: Pick<Deps, "records" | "clock" | "ids" | "digests" | "log" | "images" | "ask">, ownerId: string, text: string): Promise<Result<{ id: string }>> {
  if (!(await deps.records.users.get(ownerId))) return fail("not_found", "User not found (owner_id)");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fail("invalid", `The file is not valid JSON (is it truncated?): ${(error as Error).message}; nothing was imported`);
  }
  if (!isRecord(document) || !isRecord(document.header)) return bad("header", "is missing: this is not a campaign export");
  const { header } = document;
  if (header.format !== EXPORT_FORMAT) return bad("header.format", `must be "${EXPORT_FORMAT}"`);
  if (!Number.isInteger(header.version) || (header.version as number) < 1 || (header.version as number) > EXPORT_VERSION)
    return bad("header.version", `must be a version this service reads (1 to ${EXPORT_VERSION})`);
  if (!isRecord(document.records)) return bad("records", "is missing or not an object");
  const records = document.records;
  const trailer = document.trailer;
  if (trailer !== undefined && !isRecord(trailer)) return bad("trailer", "must be an object");
  if (trailer && trailer.records_sha256 !== undefined) {
    const digest = deps.digests.sha256();
    digest.update(JSON.stringify(records));
    if (digest.hex() !== trailer.records_sha256)
      return bad("trailer.records_sha256", "does not match the records: the file was changed or damaged after export (remove records_sha256 to import an edited file)");
  }

  const sections: ImportSection[] = [];
  for (const [name, rows] of Object.entries(records)) {
    if (!Array.isArray(rows)) return bad(`records.${name}`, "must be a list");
    sections.push({ section: name, rows: rows as PortableRow[] });
  }
  const problem = await deps.records.portable.check(sections);
  if (problem) return bad(problem.at, problem.message);
  const order = deps.records.portable.sections;
  sections.sort((a, b) => order.indexOf(a.section) - order.indexOf(b.section));

  const campaignRows = records.campaign as PortableRow[] | undefined;
  if (!campaignRows || campaignRows.length !== 1) return bad("records.campaign", "must hold exactly one campaign");
  const campaign = campaignRows[0]!;
  const oldCampaignId = String(campaign.id);

  // Ids: every record's own id, each once; new ids sorted as the old ones were, so every order by id survives.
  const seen = new Set<string>();
  for (const { section, rows } of sections)
    for (const [index, row] of rows.entries()) {
      if (typeof row.id === "string") {
        if (seen.has(row.id)) return bad(`records.${section}[${index}].id`, "appears twice in the file");
        seen.add(row.id);
      }
      if (section !== "campaign" && "campaign_id" in row && row.campaign_id !== oldCampaignId)
        return bad(`records.${section}[${index}].campaign_id`, "is not the exported campaign's id");
    }
  for (const { section, rows } of sections)
    for (const column of REFERENCES[section] ?? [])
      for (const [index, row] of rows.entries()) {
        const value = row[column];
        if (value !== null && value !== undefined && !seen.has(String(value)) && !seen.has(String(value).split(":")[0]!))
          return bad(`records.${section}[${index}].${column}`, "names a record that is not in the file");
      }
  // Journal token counts are the service's own, whatever the file says: a hand-edited file could
  // understate them and slip past the journal limits (per entry and per campaign).
  let journalTokens = 0;
  for (const [index, row] of (sections.find((s) => s.section === "journal_entries")?.rows ?? []).entries()) {
    const tokens = await deps.ask.tokens.count(typeof row.content === "string" ? row.content : "");
    const said = `the file says ${typeof row.token_count === "number" ? row.token_count.toLocaleString("en") : String(row.token_count)}`;
    const at = `records.journal_entries[${index}].content`;
    if (tokens > ENTRY_TOKEN_LIMIT)
      return bad(at, `(entry ${String(row.id)}) has ${tokens.toLocaleString("en")} tokens, over the journal entry limit of ${ENTRY_TOKEN_LIMIT.toLocaleString("en")} (${said})`);
    journalTokens += tokens;
    if (journalTokens > CAMPAIGN_TOKEN_LIMIT)
      return bad(at, `(entry ${String(row.id)}) brings the campaign's journal entries to ${journalTokens.toLocaleString("en")} tokens, over the limit of ${CAMPAIGN_TOKEN_LIMIT.toLocaleString("en")}`);
    row.token_count = tokens;
  }
  const oldIds = [...seen].sort();
  const newIds = oldIds.map(() => deps.ids.next()).sort();
  const ids = new Map(oldIds.map((id, index) => [id, newIds[index]!]));

  // Users: the exported owner becomes the new owner; others are kept if they have an account here.
  // Managed images: the new campaign gets its own copy of each (inline bytes, else the object this
  // store still holds); an image whose bytes are nowhere is dropped and the records showing it cleared.
  const imageRows = sections.find((s) => s.section === "images")?.rows ?? [];
  const inline = inlineImages(deps, document.images, imageRows);
  if (!inline.ok) return inline;
  const store = deps.images.store;
  const oldPrefix = `campaigns/${oldCampaignId}/`;
  const newCampaignIdEarly = ids.get(oldCampaignId)!;
  const blobs: { key: string; bytes: Uint8Array; contentType: string }[] = [];
  const gone = new Set<string>();
  for (const row of imageRows) {
    const oldKey = String(row.object_key);
    const url = String(row.url);
    const bytes = inline.value.get(oldKey)?.bytes ?? (store.keyOfUrl(url) === oldKey ? await readBlob(store, oldKey) : null);
    if (!bytes) {
      gone.add(url);
      continue;
    }
    const newKey = `campaigns/${newCampaignIdEarly}/${oldKey.startsWith(oldPrefix) ? oldKey.slice(oldPrefix.length) : `${row.entity_type}/${oldKey.split("/").pop()}`}`;
    ids.set(oldKey, newKey);
    ids.set(url, store.publicUrl(newKey));
    blobs.push({ key: newKey, bytes, contentType: inline.value.get(oldKey)?.contentType ?? String(row.content_type) });
  }
  /** A URL into the old campaign's images that nothing copied: it would die with that campaign. */
  const deadUrl = (value: unknown) => typeof value === "string" && (gone.has(value) || Boolean(store.keyOfUrl(value)?.startsWith(oldPrefix)));

  const exportedOwner = String(campaign.owner_id);
  const named = new Set<string>();
  for (const { section, rows } of sections) for (const { column } of USER_COLUMNS[section] ?? []) for (const row of rows) if (typeof row[column] === "string") named.add(row[column] as string);
  const existing = await deps.records.portable.existingUsers([...named]);
  ids.set(exportedOwner, ownerId);
  const newCampaignId = ids.get(oldCampaignId)!;
  const ready: ImportSection[] = [];
  for (const { section, rows } of sections) {
    const userColumns = USER_COLUMNS[section] ?? [];
    const kept: PortableRow[] = [];
    for (const row of rows) {
      let copy: PortableRow | null = { ...row };
      for (const { column, missing } of userColumns) {
        const user = copy[column];
        if (typeof user !== "string" || user === exportedOwner || existing.has(user)) continue;
        if (missing === "drop") copy = null;
        else copy[column] = missing === "null" ? null : ownerId;
        if (!copy) break;
      }
      // The new owner's own membership is the exported owner's; any other of theirs would be a second one.
      if (copy && section === "members" && copy.user_id === ownerId && exportedOwner !== ownerId) copy = null;
      if (copy && section === "images" && gone.has(String(copy.url))) copy = null;
      if (copy) {
        const row = remap(copy, ids) as PortableRow;
        for (const column of Object.keys(row)) if (IMAGE_COLUMN.test(column) && deadUrl(row[column])) row[column] = null;
        kept.push(row);
      }
    }
    if (section === "campaign") kept[0]!.owner_id = ownerId;
    ready.push({ section, rows: kept });
  }
  const members = ready.find((s) => s.section === "members");
  if (!members?.rows.some((row) => row.user_id === ownerId)) {
    const row = { campaign_id: newCampaignId, user_id: ownerId, roles: [...CREATOR_ROLES], created_at: nowIso(deps) };
    if (members) members.rows.push(row);
    else ready.splice(1, 0, { section: "members", rows: [row] });
  }
  // Journal chunks are derived (not in the file): cut and counted as a save cuts and counts them.
  const journalChunks: ImportedJournalChunk[] = [];
  for (const row of ready.find((s) => s.section === "journal_entries")?.rows ?? [])
    for (const chunk of await countedChunks(deps, typeof row.content === "string" ? row.content : ""))
      journalChunks.push({ entry_id: String(row.id), campaign_id: newCampaignId, ...chunk });
  // Bytes first: a row never names a missing object. A failed write takes them back.
  for (const blob of blobs) await store.put(blob.key, blob.bytes, blob.contentType);
  try {
    await deps.records.portable.write(ready, journalChunks);
  } catch (error) {
    for (const blob of blobs) await store.delete(blob.key).catch(() => undefined);
    const code = (error as { code?: string }).code ?? "";
    // A file that passed every check but breaks a rule of the database (two speakers of one name…): refused whole.
    if (/^(23|22)/.test(code)) return fail("invalid", `The file breaks a rule of the records (${(error as Error).message}); nothing was imported`);
    throw error;
  }
  return ok({ id: newCampaignId });
}
