// Journal entries and folders: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as journals from "../../application/journals.ts";
import { BODY_LIMITS, defineOperation, defineOperations } from "./operation.ts";
import { byQueryCampaign } from "./crud.ts";
import { Fields, Id, IdQuery, ImageUrl, literals, Nullable, PageOf, PageQuery, Success, SuccessId, Timestamp, WithLinks, WithLinksQuery, Defaulted } from "./common.ts";

const PermissionLevel = literals(["view", "comment", "edit", "manage"] as const);
const JournalStatus = literals(["draft", "published", "archived"] as const);

const journalListFields = {
  id: Id(),
  campaign_id: Id(),
  title: Type.String(),
  summary: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  token_count: Type.Integer(),
  cover_image: Nullable(Type.String()),
  is_pinned: Type.Boolean(),
  is_public: Type.Boolean(),
  status: JournalStatus,
  published_at: Nullable(Timestamp),
  archived_at: Nullable(Timestamp),
  folder_id: Nullable(Id()),
  author_id: Id(),
  last_edited_by_id: Nullable(Id()),
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const JournalListItem = Type.Object(journalListFields, { title: "JournalEntrySummary" });
export const JournalCard = Type.Object(
  { id: Id(), title: Type.String(), summary: Nullable(Type.String()), updated_at: Nullable(Timestamp), folder_id: Nullable(Id()) },
  { title: "JournalCard" },
);
export const JournalDetail = Type.Object(
  {
    ...journalListFields,
    content: Type.String({ description: "Plain text (derived from content_rich when that is set)" }),
    content_rich: Type.Unknown({ description: "Rich-text (Lexical) editor state" }),
    content_metadata: Type.Unknown(),
    permission_level: PermissionLevel,
  },
  { title: "JournalEntry" },
);

const journalInputFields = {
  summary: Nullable(Type.String({ maxLength: 5000 })),
  content: Nullable(Type.String({ description: "Plain text; ignored when content_rich is sent. May hold [[wikilinks]]." })),
  content_rich: Type.Unknown({ description: "Lexical editor state JSON; canonical when sent" }),
  content_metadata: Type.Unknown(),
  tags: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
  cover_image: Nullable(ImageUrl),
  is_pinned: Type.Boolean(),
  is_public: Type.Boolean({ description: "Visible to everyone in the campaign" }),
  status: JournalStatus,
  published_at: Nullable(Timestamp),
  archived_at: Nullable(Timestamp),
  folder_id: Nullable(Id("A journal folder of the same campaign")),
};

export const JournalCreate = Type.Object(
  { world_id: Id("Campaign id"), title: Type.String({ minLength: 1, maxLength: 300 }), ...Type.Partial(Type.Object(journalInputFields)).properties },
  { title: "JournalCreate" },
);

export const JournalUpdate = Type.Object(
  {
    id: Id("Journal entry id"),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    ...Type.Partial(Type.Object(journalInputFields)).properties,
    author_id: Type.Optional(Id("Hands the entry to another member of the campaign (needs manage)")),
    permissions: Type.Optional(
      Type.Object(
        {
          add: Type.Optional(Type.Array(Type.Object({ user_id: Id(), level: PermissionLevel }), { maxItems: 100 })),
          remove: Type.Optional(Type.Array(Type.Object({ user_id: Id() }), { maxItems: 100 })),
        },
        { description: "Share changes (needs manage); the author cannot be removed" },
      ),
    ),
  },
  { title: "JournalUpdate" },
);

export const JournalListQuery = Type.Object({
  campaign_id: Id("Campaign id (world id)"),
  folder_id: Type.Optional(Id("Only entries in this folder")),
  fields: Fields,
  with_links: Defaulted(WithLinks),
  ...PageQuery,
});

export const Folder = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    parent_id: Nullable(Id()),
    name: Type.String(),
    path: Type.String(),
    description: Nullable(Type.String()),
    position: Type.Integer(),
    metadata: Type.Unknown(),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "JournalFolder" },
);

const folderFields = {
  parent_id: Nullable(Id("Parent folder of the same campaign; never the folder itself or a descendant")),
  description: Nullable(Type.String({ maxLength: 5000 })),
  position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  metadata: Type.Unknown(),
};

export const FolderCreate = Type.Object(
  {
    world_id: Id("Campaign id"),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    path: Type.String({ minLength: 1, maxLength: 1000, description: "Normalized: trimmed segments, no leading, trailing or doubled slashes; unique per campaign" }),
    ...Type.Partial(Type.Object(folderFields)).properties,
  },
  { title: "JournalFolderCreate" },
);

export const FolderUpdate = Type.Object(
  {
    id: Id("Folder id"),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    ...Type.Partial(Type.Object(folderFields)).properties,
  },
  { title: "JournalFolderUpdate" },
);

export const FolderListQuery = Type.Object({ campaign_id: Id("Campaign id"), parent_id: Type.Optional(Id("Only the children of this folder")) });

const JOURNALS =
  "Journal entries are permissioned notes: visible when public, authored by you, or shared with you (view < comment < edit < manage). content_rich (Lexical editor state) is canonical when sent; content is then derived from it.";

export const journalOperations = defineOperations({ publishedAt: 100 }, [
  defineOperation({
    id: "listJournals",
    summary: "List journal entries",
    description: `Lists the entries you may see (pinned first, then most recently changed), without their content. fields=card gives id, title, summary, updated_at, folder_id. ${JOURNALS}`,
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byQueryCampaign },
    http: { method: "GET", path: "/v1/journals", status: 200 },
    mcp: { name: "list_journals", title: "List journal entries", readOnly: true },
    input: { query: JournalListQuery },
    output: PageOf(Type.Union([JournalListItem, JournalCard]), "JournalPage"),
    run: ({ deps, caller, access }, { query }) =>
      journals.listJournals(deps, caller, access, { page: query.page, size: query.size, folder_id: query.folder_id, fields: query.fields, with_links: query.with_links }),
  }),
  defineOperation({
    id: "getJournal",
    summary: "Get a journal entry",
    description: `Reads one entry with its content and your permission_level. An entry you may not see is 404. ${JOURNALS}`,
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "worlds_read", hidden: true, campaign: ({ path }) => ({ record: "journals", id: path.entry_id, notFound: "Journal entry not found" }) },
    http: { method: "GET", path: "/v1/journals/{entry_id}", status: 200 },
    mcp: { name: "get_journal", title: "Get a journal entry", readOnly: true },
    input: { path: Type.Object({ entry_id: Id("Journal entry id") }), query: WithLinksQuery },
    output: JournalDetail,
    run: ({ deps, caller, access }, { path, query }) => journals.getJournal(deps, caller, access, path.entry_id, query.with_links ?? false),
  }),
  defineOperation({
    id: "createJournal",
    summary: "Create a journal entry",
    description: `Creates an entry authored by you (you manage it). Limits: 50,000 tokens an entry, 1,000,000 a campaign, 2,000,000 characters a request. Publishing or archiving stamps published_at/archived_at unless given. ${JOURNALS}`,
    tag: "Journals",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ body }) => ({ campaign_id: body.world_id }) },
    http: { method: "POST", path: "/v1/journals", status: 201, maxBodyBytes: BODY_LIMITS.journal },
    mcp: { name: "create_journal", title: "Create a journal entry", readOnly: false, destructive: false, idempotent: false },
    input: { body: JournalCreate },
    output: SuccessId,
    run: ({ deps, caller, access }, { body }) => {
      const { world_id, ...fields } = body;
      return journals.createJournal(deps, caller, access, fields);
    },
  }),
  defineOperation({
    id: "updateJournal",
    summary: "Update a journal entry",
    description: `Changes any field of the entry named by id (needs edit). author_id hands it to another campaign member and permissions {add, remove} changes shares (both need manage); the author can never be removed. ${JOURNALS}`,
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "agent_write", hidden: true, campaign: ({ body }) => ({ record: "journals", id: body.id, notFound: "Journal entry not found" }) },
    http: { method: "PUT", path: "/v1/journals", status: 200, maxBodyBytes: BODY_LIMITS.journal },
    mcp: { name: "update_journal", title: "Update a journal entry", readOnly: false, destructive: false, idempotent: true },
    input: { body: JournalUpdate },
    output: SuccessId,
    run: ({ deps, caller, access }, { body }) => {
      const { id, ...update } = body;
      return journals.updateJournal(deps, caller, access, id, update);
    },
  }),
  defineOperation({
    id: "deleteJournal",
    summary: "Delete a journal entry",
    description: "Deletes an entry with its chunks and embeddings (needs manage permission on it).",
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "agent_write", hidden: true, campaign: ({ query }) => ({ record: "journals", id: query.id, notFound: "Journal entry not found" }) },
    http: { method: "DELETE", path: "/v1/journals", status: 200 },
    mcp: { name: "delete_journal", title: "Delete a journal entry", readOnly: false, destructive: true, idempotent: true },
    input: { query: IdQuery("Journal entry id") },
    output: Success,
    run: ({ deps, caller, access }, { query }) => journals.deleteJournal(deps, caller, access, query.id),
  }),
  defineOperation({
    id: "listJournalFolders",
    summary: "List journal folders",
    description: "All journal folders of a campaign (not paginated), ordered by path then position; parent_id lists one folder's children.",
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byQueryCampaign },
    http: { method: "GET", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "list_journal_folders", title: "List journal folders", readOnly: true },
    input: { query: FolderListQuery },
    output: Type.Object({ data: Type.Array(Folder) }, { title: "JournalFolderList" }),
    run: ({ deps, caller, access }, { query }) => journals.listFolders(deps, caller, access, query.parent_id),
  }),
  defineOperation({
    id: "getJournalFolder",
    summary: "Get a journal folder",
    description: "Reads one journal folder.",
    tag: "Journals",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: ({ path }) => ({ record: "journal_folders", id: path.folder_id, notFound: "Journal folder not found" }) },
    http: { method: "GET", path: "/v1/journal-folders/{folder_id}", status: 200 },
    mcp: { name: "get_journal_folder", title: "Get a journal folder", readOnly: true },
    input: { path: Type.Object({ folder_id: Id("Folder id") }) },
    output: Folder,
    run: ({ deps, caller, access }, { path }) => journals.getFolder(deps, caller, access, path.folder_id),
  }),
  defineOperation({
    id: "createJournalFolder",
    summary: "Create a journal folder",
    description: "Creates a folder. The path is normalized (\"/Lore//NPCs/\" becomes \"Lore/NPCs\") and unique per campaign; a parent must be a folder of the same campaign.",
    tag: "Journals",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ body }) => ({ campaign_id: body.world_id }) },
    http: { method: "POST", path: "/v1/journal-folders", status: 201 },
    mcp: { name: "create_journal_folder", title: "Create a journal folder", readOnly: false, destructive: false, idempotent: false },
    input: { body: FolderCreate },
    output: SuccessId,
    run: ({ deps, caller, access }, { body }) => {
      const { world_id, ...fields } = body;
      return journals.createFolder(deps, caller, access, fields);
    },
  }),
  defineOperation({
    id: "updateJournalFolder",
    summary: "Update a journal folder",
    description: "Changes the folder named by id. A folder can never become its own parent or its descendant's child.",
    tag: "Journals",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ body }) => ({ record: "journal_folders", id: body.id, notFound: "Journal folder not found" }) },
    http: { method: "PUT", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "update_journal_folder", title: "Update a journal folder", readOnly: false, destructive: false, idempotent: true },
    input: { body: FolderUpdate },
    output: SuccessId,
    run: ({ deps, caller, access }, { body }) => {
      const { id, ...fields } = body;
      return journals.updateFolder(deps, caller, access, id, fields);
    },
  }),
  defineOperation({
    id: "deleteJournalFolder",
    summary: "Delete a journal folder",
    description: "Deletes a folder: its entries move to the campaign root and its child folders up one level.",
    tag: "Journals",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ query }) => ({ record: "journal_folders", id: query.id, notFound: "Journal folder not found" }) },
    http: { method: "DELETE", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "delete_journal_folder", title: "Delete a journal folder", readOnly: false, destructive: true, idempotent: true },
    input: { query: IdQuery("Folder id") },
    output: Success,
    run: ({ deps, caller, access }, { query }) => journals.deleteFolder(deps, caller, access, query.id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    journals: typeof journalOperations;
  }
}
