// Journal entries and folders: permissioned campaign notes.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import {
  atLeast,
  CAMPAIGN_TOKEN_LIMIT,
  ENTRY_TOKEN_LIMIT,
  normalizeFolderPath,
  REQUEST_CHARACTER_LIMIT,
  statusTimestamps,
  type JournalEntry,
  type JournalListEntry,
  type JournalFolder,
  type JournalShare,
  type PermissionLevel,
} from "../domain/journals.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { chunkText, lexicalToPlainText } from "../domain/richtext.ts";
import { stripOrKeep, stripWikilinks } from "../domain/wikilinks.ts";
import { wouldCreateCycle } from "../domain/hierarchy.ts";
import { withFields } from "../domain/metadata.ts";
import type { Repositories } from "../ports/records.ts";
import { inCampaign, journalEntryPermission, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";

const ENTRY_NOT_FOUND = "Journal entry not found";

/** What a client may set on a journal entry: the record's own fields (content may be sent as null), typed from it. */
export type JournalFields = Partial<
  Pick<JournalEntry, "title" | "summary" | "content_rich" | "content_metadata" | "tags" | "cover_image" | "is_pinned" | "is_public" | "status" | "published_at" | "archived_at" | "folder_id">
> & { content?: string | null };

export type JournalUpdate = JournalFields & {
  author_id?: string;
  permissions?: { add?: { user_id: string; level: PermissionLevel }[]; remove?: { user_id: string }[] };
};

export type JournalDetail = JournalEntry & { permission_level: PermissionLevel };
export type JournalListItem = JournalListEntry;
export type JournalCard = Pick<JournalEntry, "id" | "title" | "summary" | "updated_at" | "folder_id">;

/**
 * The entry if the caller can see it with at least `needed`: invisible entries are 404, visible but
 * not permitted 403. On top of the campaign read access the table declares (`hidden`: non-members
 * are told 404 too), the entry's own permission rule.
 */
async function entryFor(deps: Deps, caller: Caller, access: CampaignAccess, entryId: string, needed: PermissionLevel): Promise<Result<{ entry: JournalEntry; level: PermissionLevel }>> {
  const found = inCampaign(access, await deps.records.journals.get(entryId), ENTRY_NOT_FOUND);
  if (!found.ok) return found;
  const entry = found.value;
  const level = await journalEntryPermission(deps.records, entry, caller.userId);
  if (!level) return fail("not_found", ENTRY_NOT_FOUND);
  if (!atLeast(level, needed)) return fail("forbidden", `This needs ${needed} permission on the journal entry; you have ${level}`);
  return ok({ entry, level });
}

const requestTooLarge = (fields: JournalFields) => {
  const size = (fields.content?.length ?? 0) + (fields.content_rich === undefined ? 0 : JSON.stringify(fields.content_rich ?? null).length);
  return size > REQUEST_CHARACTER_LIMIT ? fail("bad_request", `Journal content exceeds the limit of ${REQUEST_CHARACTER_LIMIT.toLocaleString("en")} characters per request`) : null;
};

/** content_rich is canonical: when sent, the plain content is derived from it. */
function applyFields(entry: JournalEntry, fields: JournalFields, now: string): JournalEntry {
  const next = withFields(entry, fields, ["title", "summary", "content_metadata", "tags", "cover_image", "is_pinned", "is_public", "folder_id"] as const);
  if (fields.content_rich !== undefined) {
    next.content_rich = fields.content_rich;
    next.content = fields.content_rich === null ? (fields.content ?? "") : lexicalToPlainText(fields.content_rich);
  } else if (fields.content !== undefined) {
    next.content = fields.content ?? "";
    next.content_rich = null;
  }
  if (fields.title !== undefined) next.title = fields.title.trim();
  if (fields.status !== undefined) next.status = fields.status;
  Object.assign(next, statusTimestamps(fields.status, fields, entry, now));
  return next;
}

/** The entry's tokens by the service's one tokenizer (o200k_base, the one Ask's budgets count with). */
async function counted(deps: Deps, entry: JournalEntry): Promise<JournalEntry> {
  return { ...entry, token_count: await deps.ask.tokens.count(entry.content) };
}

/**
 * One batch of the backfill of migration 0019: entries saved before the service counted with its
 * tokenizer (characters / 4) are recounted, entry and chunks, each in its own short transaction.
 * The journal limits sum the stored counts, so a campaign's total is right after every entry.
 * Returns how many entries were taken off the queue (0: nothing left).
 */
export async function recountJournalTokens(deps: Pick<Deps, "records"> & { ask: Pick<Deps["ask"], "tokens"> }, batch = 20): Promise<number> {
  const due = await deps.records.journals.recountsDue(batch);
  for (const entry of due) {
    // Counted outside the transaction (a long text takes turns on the event loop); stored only if unchanged since.
    const tokenCount = await deps.ask.tokens.count(entry.content);
    const chunks = await deps.records.journals.chunks(entry.id);
    const recounted = await Promise.all(chunks.map(async (chunk) => ({ ...chunk, token_count: await deps.ask.tokens.count(chunk.text) })));
    await deps.records.withTransaction((tx) => tx.journals.storeRecount(entry.id, entry.content, tokenCount, recounted));
  }
  return due.length;
}

async function checkLimits(repos: Repositories, entry: JournalEntry): Promise<Result<true>> {
  if (entry.token_count > ENTRY_TOKEN_LIMIT)
    return fail("bad_request", `Journal entry exceeds the limit of ${ENTRY_TOKEN_LIMIT.toLocaleString("en")} tokens (${entry.token_count.toLocaleString("en")} tokens)`);
  const others = await repos.journals.campaignTokens(entry.campaign_id, entry.id);
  if (others + entry.token_count > CAMPAIGN_TOKEN_LIMIT)
    return fail("bad_request", `Journal entries of this campaign would exceed the limit of ${CAMPAIGN_TOKEN_LIMIT.toLocaleString("en")} tokens (${(others + entry.token_count).toLocaleString("en")} tokens)`);
  return ok(true);
}

async function checkFolder(repos: Repositories, entry: JournalEntry): Promise<Result<true>> {
  if (!entry.folder_id) return ok(true);
  const folder = await repos.folders.get(entry.folder_id);
  return folder && folder.campaign_id === entry.campaign_id ? ok(true) : fail("not_found", "Journal folder not found");
}

/** An entry's content cut into Ask's chunks (wikilinks as their text), each counted with the service's tokenizer. */
export async function countedChunks(deps: { ask: Pick<Deps["ask"], "tokens"> }, content: string) {
  const texts = chunkText(stripWikilinks(content));
  return Promise.all(texts.map(async (text, position) => ({ position, text, token_count: await deps.ask.tokens.count(text) })));
}

/** Chunks, the search document (with who may see it) and wikilinks: all in the entry's transaction. */
export async function afterWrite(tx: Repositories, deps: Deps, entry: JournalEntry, previous: JournalEntry | null) {
  const contentChanged = !previous || previous.content !== entry.content;
  if (contentChanged) {
    await tx.journals.replaceChunks(entry.id, entry.campaign_id, await countedChunks(deps, entry.content));
    await syncWikilinks(tx, deps, { campaignId: entry.campaign_id, type: "Journal", id: entry.id }, entry.content);
  }
  await reindex(tx, deps, entry);
}

async function reindex(tx: Repositories, deps: Deps, entry: JournalEntry) {
  const shares = await tx.journals.shares(entry.id);
  await tx.search.upsert(
    {
      campaign_id: entry.campaign_id,
      doc_type: "journals",
      doc_id: entry.id,
      title: entry.title,
      body: [entry.summary ? stripWikilinks(entry.summary) : "", stripWikilinks(entry.content), entry.tags.join(", ")].filter(Boolean).join("\n"),
      visibility: { author_id: entry.author_id, is_public: entry.is_public, shared_with: shares.map((s) => s.user_id) },
      facets: { status: entry.status, folder_id: entry.folder_id },
    },
    nowIso(deps),
  );
}

export async function createJournal(deps: Deps, caller: Caller, access: CampaignAccess, fields: JournalFields & { title: string }): Promise<Result<{ success: true; id: string }>> {
  const campaignId = access.campaign.id;
  const tooLarge = requestTooLarge(fields);
  if (tooLarge) return tooLarge;
  if (!fields.title.trim()) return fail("invalid", "Title cannot be empty", [{ type: "string_too_short", loc: ["body", "title"], msg: "Title cannot be empty", input: fields.title }]);
  const now = nowIso(deps);
  const blank: JournalEntry = {
    id: deps.ids.next(),
    campaign_id: campaignId,
    title: "",
    summary: null,
    content: "",
    content_rich: null,
    content_metadata: null,
    tags: [],
    token_count: 0,
    cover_image: null,
    is_pinned: false,
    is_public: false,
    status: "draft",
    published_at: null,
    archived_at: null,
    folder_id: null,
    author_id: caller.userId,
    last_edited_by_id: caller.userId,
    created_at: now,
    updated_at: null,
  };
  const entry = await counted(deps, applyFields(blank, fields, now));
  return deps.records.withTransaction(async (tx): Promise<Result<{ success: true; id: string }>> => {
    for (const check of [await checkFolder(tx, entry), await checkLimits(tx, entry)]) if (!check.ok) return check;
    await tx.journals.insert(entry);
    await afterWrite(tx, deps, entry, null);
    return ok({ success: true, id: entry.id });
  });
}

export async function getJournal(deps: Deps, caller: Caller, access: CampaignAccess, entryId: string, withLinks = false): Promise<Result<JournalDetail>> {
  const found = await entryFor(deps, caller, access, entryId, "view");
  if (!found.ok) return found;
  const { entry, level } = found.value;
  return ok({ ...entry, summary: stripOrKeep(entry.summary, withLinks), content: stripOrKeep(entry.content, withLinks), permission_level: level });
}

export async function listJournals(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: PageRequest & { folder_id?: string; fields?: "card"; with_links?: boolean },
): Promise<Result<Page<JournalListItem | JournalCard>>> {
  const campaignId = access.campaign.id;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.journals.listVisible(campaignId, caller.userId, { folderId: query.folder_id }, page);
  const data = rows.map((item) => {
    const summary = stripOrKeep(item.summary, query.with_links ?? false);
    return query.fields === "card" ? { id: item.id, title: item.title, summary, updated_at: item.updated_at, folder_id: item.folder_id } : { ...item, summary };
  });
  return ok(toPage(data, total, page));
}

export async function updateJournal(deps: Deps, caller: Caller, access: CampaignAccess, entryId: string, update: JournalUpdate): Promise<Result<{ success: true; id: string }>> {
  const managing = update.permissions !== undefined || update.author_id !== undefined;
  const found = await entryFor(deps, caller, access, entryId, managing ? "manage" : "edit");
  if (!found.ok) return found;
  const tooLarge = requestTooLarge(update);
  if (tooLarge) return tooLarge;
  if (update.title !== undefined && !update.title.trim())
    return fail("invalid", "Title cannot be empty", [{ type: "string_too_short", loc: ["body", "title"], msg: "Title cannot be empty", input: update.title }]);
  return deps.records.withTransaction(async (tx): Promise<Result<{ success: true; id: string }>> => {
    const previous = await tx.journals.get(entryId, { lock: true });
    if (!previous) return fail("not_found", ENTRY_NOT_FOUND);
    const now = nowIso(deps);
    const entry = { ...(await counted(deps, applyFields(previous, update, now))), last_edited_by_id: caller.userId, updated_at: now };
    for (const check of [await checkFolder(tx, entry), await checkLimits(tx, entry)]) if (!check.ok) return check;
    const members = async (userId: string) => {
      const campaign = await tx.campaigns.getWithStanding(entry.campaign_id, userId);
      return Boolean(campaign && (campaign.campaign.owner_id === userId || campaign.roles.length > 0));
    };
    if (update.author_id !== undefined && update.author_id !== previous.author_id) {
      if (!(await members(update.author_id))) return fail("bad_request", "The new author must be a member of this campaign");
      entry.author_id = update.author_id;
      // The previous author keeps working on the entry they handed over.
      await tx.journals.putShare(entry.id, { user_id: previous.author_id, level: "edit" }, now);
      await tx.journals.removeShare(entry.id, update.author_id);
    }
    for (const { user_id } of update.permissions?.remove ?? []) {
      if (user_id === entry.author_id) return fail("bad_request", "Cannot remove the current owner from this journal entry.");
      await tx.journals.removeShare(entry.id, user_id);
    }
    for (const share of update.permissions?.add ?? []) {
      if (share.user_id === entry.author_id) continue; // the author manages already
      if (!(await members(share.user_id))) return fail("bad_request", `User ${share.user_id} is not a member of this campaign`);
      await tx.journals.putShare(entry.id, share satisfies JournalShare, now);
    }
    await tx.journals.replace(entry);
    await afterWrite(tx, deps, entry, previous);
    return ok({ success: true, id: entry.id });
  });
}

export async function deleteJournal(deps: Deps, caller: Caller, access: CampaignAccess, entryId: string): Promise<Result<{ success: true }>> {
  const found = await entryFor(deps, caller, access, entryId, "manage");
  if (!found.ok) return found;
  const deleted = await deps.records.withTransaction(async (tx) => {
    if (!(await tx.journals.get(entryId, { lock: true }))) return false;
    await tx.search.remove("journals", entryId);
    await tx.links.deleteTouching(entryId);
    return tx.journals.delete(entryId); // chunks (and their embeddings) and shares go with it
  });
  return deleted ? ok({ success: true }) : fail("not_found", ENTRY_NOT_FOUND);
}

// Folders ------------------------------------------------------------------------------------------

/** What a client may set on a journal folder, typed from the record. */
export type FolderFields = Partial<Pick<JournalFolder, "name" | "path" | "parent_id" | "description" | "position" | "metadata">>;

async function checkFolderFields(repos: Repositories, folder: JournalFolder): Promise<Result<true>> {
  if (!folder.path) return fail("bad_request", "Folder path cannot be empty");
  if (!folder.name) return fail("bad_request", "Folder name cannot be empty");
  if (!folder.parent_id) return ok(true);
  if (folder.parent_id === folder.id) return fail("bad_request", "Folder cannot be its own parent");
  const parent = await repos.folders.get(folder.parent_id);
  if (!parent || parent.campaign_id !== folder.campaign_id) return fail("bad_request", "Invalid parent folder");
  const ancestry = await repos.folders.ancestry(folder.parent_id);
  if (wouldCreateCycle(folder.id, folder.parent_id, (id) => ancestry.get(id))) return fail("bad_request", "Folder cannot be its own parent");
  return ok(true);
}

const DUPLICATE_PATH = "Folder path already exists for this campaign";

export async function createFolder(deps: Deps, caller: Caller, access: CampaignAccess, fields: FolderFields & { name: string; path: string }): Promise<Result<{ success: true; id: string }>> {
  const campaignId = access.campaign.id;
  const folder: JournalFolder = {
    id: deps.ids.next(),
    campaign_id: campaignId,
    parent_id: fields.parent_id ?? null,
    name: fields.name.trim(),
    path: normalizeFolderPath(fields.path),
    description: fields.description ?? null,
    position: fields.position ?? 0,
    metadata: fields.metadata ?? null,
    created_at: nowIso(deps),
    updated_at: null,
  };
  const checked = await checkFolderFields(deps.records, folder);
  if (!checked.ok) return checked;
  return (await deps.records.folders.insert(folder)) ? ok({ success: true, id: folder.id }) : fail("bad_request", DUPLICATE_PATH);
}

async function folderFor(deps: Deps, access: CampaignAccess, folderId: string): Promise<Result<JournalFolder>> {
  return inCampaign(access, await deps.records.folders.get(folderId), "Journal folder not found");
}

export async function getFolder(deps: Deps, caller: Caller, access: CampaignAccess, folderId: string): Promise<Result<JournalFolder>> {
  return folderFor(deps, access, folderId);
}

export async function listFolders(deps: Deps, caller: Caller, access: CampaignAccess, parentId?: string): Promise<Result<{ data: JournalFolder[] }>> {
  const campaignId = access.campaign.id;
  return ok({ data: await deps.records.folders.list(campaignId, parentId) });
}

export async function updateFolder(deps: Deps, caller: Caller, access: CampaignAccess, folderId: string, fields: FolderFields): Promise<Result<{ success: true; id: string }>> {
  const found = await folderFor(deps, access, folderId);
  if (!found.ok) return found;
  return deps.records.withTransaction(async (tx): Promise<Result<{ success: true; id: string }>> => {
    const current = await tx.folders.get(folderId, { lock: true });
    if (!current) return fail("not_found", "Journal folder not found");
    const folder: JournalFolder = { ...current, updated_at: nowIso(deps) };
    if (fields.name !== undefined) folder.name = fields.name.trim();
    if (fields.path !== undefined) folder.path = normalizeFolderPath(fields.path);
    if (fields.parent_id !== undefined) folder.parent_id = fields.parent_id;
    if (fields.description !== undefined) folder.description = fields.description;
    if (fields.position !== undefined) folder.position = fields.position;
    if (fields.metadata !== undefined) folder.metadata = fields.metadata;
    const checked = await checkFolderFields(tx, folder);
    if (!checked.ok) return checked;
    // Last write of the transaction: a duplicate path ends it (PostgreSQL aborts it), nothing else is lost.
    return (await tx.folders.replace(folder)) ? ok({ success: true, id: folder.id }) : fail("bad_request", DUPLICATE_PATH);
  });
}

/** Its entries move to the campaign root, its child folders up one level. */
export async function deleteFolder(deps: Deps, caller: Caller, access: CampaignAccess, folderId: string): Promise<Result<{ success: true }>> {
  const found = await folderFor(deps, access, folderId);
  if (!found.ok) return found;
  const deleted = await deps.records.withTransaction(async (tx) => {
    // Locked and read again: the parent its children move to is the one the folder has now.
    const folder = await tx.folders.get(folderId, { lock: true });
    if (!folder) return false;
    await tx.journals.moveFolderEntriesToRoot(folderId);
    await tx.folders.reparentChildren(folderId, folder.parent_id, nowIso(deps));
    return tx.folders.delete(folderId);
  });
  return deleted ? ok({ success: true }) : fail("not_found", "Journal folder not found");
}
