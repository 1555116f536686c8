import { Type } from "@sinclair/typebox";
import * as journals from "../../application/journals.ts";
import * as quests from "../../application/quests.ts";
import { createSession, deleteSession, type SessionDraft } from "../../application/sessions.ts";
import type { QuestPatch } from "../../domain/quests.ts";
import { BODY_LIMITS, defineOperations } from "./operation.ts";
import * as S from "./schemas.ts";

const QUESTS =
  "Quests are the campaign's quest log. Status is derived from the objectives whenever objectives are sent (all completed → done, any in progress → in-progress, else any blocked → blocked, else every unfinished one failed → failed, else some completed → in-progress, else planned); otherwise a sent status applies.";
const JOURNALS =
  "Journal entries are permissioned notes: visible when public, authored by you, or shared with you (view < comment < edit < manage). content_rich (Lexical editor state) is canonical when sent; content is then derived from it.";

const questPath = Type.Object({ quest_id: S.Id("Quest id") });

export const recordOperations = defineOperations([
  {
    id: "listQuests",
    summary: "List quests",
    description: `Lists quest summaries (with objective, progress and related counts, first and last session) in quest-log order. search matches name, giver and the narrative fields. ${QUESTS}`,
    tag: "Quests",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/quests", status: 200 },
    mcp: { name: "list_quests", title: "List quests", readOnly: true },
    input: { query: S.QuestListQuery },
    output: S.PageOf(S.QuestSummary, "QuestPage"),
    run: ({ deps, caller }, { query }) =>
      quests.listQuests(deps, caller, query.campaign_id, { search: query.search, status: query.status, quest_category: query.quest_category }, { page: query.page, size: query.size }),
  },
  {
    id: "createQuest",
    summary: "Create a quest",
    description: `Adds a quest to the end of the log. Objectives may be strings or {text, status}; related entities come as related_entity_refs and/or per-type label arrays. ${QUESTS}`,
    tag: "Quests",
    auth: "user",
    campaignAccess: "write",
    http: { method: "POST", path: "/v1/quests", status: 201, maxBodyBytes: BODY_LIMITS.quest },
    mcp: { name: "create_quest", title: "Create a quest", readOnly: false, destructive: false, idempotent: false },
    input: { body: S.QuestCreate },
    output: S.Quest,
    run: ({ deps, caller }, { body }) => {
      const { campaign_id, ...patch } = body;
      return quests.createQuest(deps, caller, campaign_id, patch as QuestPatch & { quest_name: string });
    },
  },
  {
    id: "getQuest",
    summary: "Get a quest",
    description: `Reads one quest in full. ${QUESTS}`,
    tag: "Quests",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/quests/{quest_id}", status: 200 },
    mcp: { name: "get_quest", title: "Get a quest", readOnly: true },
    input: { path: questPath },
    output: S.Quest,
    run: ({ deps, caller }, { path }) => quests.getQuest(deps, caller, path.quest_id),
  },
  {
    id: "updateQuest",
    summary: "Update a quest",
    description: `Patch rules: omitted fields stay; objectives replace the list and recompute the status; related_entity_refs replace the whole set; each per-type array (related_characters, …) replaces only its own bucket; progress_log replaces the progress list; status applies only when objectives are omitted. ${QUESTS}`,
    tag: "Quests",
    auth: "user",
    campaignAccess: "write",
    http: { method: "PATCH", path: "/v1/quests/{quest_id}", status: 200, maxBodyBytes: BODY_LIMITS.quest },
    mcp: { name: "update_quest", title: "Update a quest", readOnly: false, destructive: false, idempotent: false },
    input: { path: questPath, body: S.QuestUpdate },
    output: S.Quest,
    run: ({ deps, caller }, { path, body }) => quests.updateQuest(deps, caller, path.quest_id, body as QuestPatch),
  },
  {
    id: "deleteQuest",
    summary: "Delete a quest",
    description: "Removes a quest from the log.",
    tag: "Quests",
    auth: "user",
    campaignAccess: "write",
    http: { method: "DELETE", path: "/v1/quests/{quest_id}", status: 204 },
    mcp: { name: "delete_quest", title: "Delete a quest", readOnly: false, destructive: true, idempotent: true },
    input: { path: questPath },
    run: ({ deps, caller }, { path }) => quests.deleteQuest(deps, caller, path.quest_id),
  },
  {
    id: "listJournals",
    summary: "List journal entries",
    description: `Lists the entries you may see (pinned first, then most recently changed), without their content. fields=card gives id, title, summary, updated_at, folder_id. ${JOURNALS}`,
    tag: "Journals",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/journals", status: 200 },
    mcp: { name: "list_journals", title: "List journal entries", readOnly: true },
    input: { query: S.JournalListQuery },
    output: S.PageOf(Type.Union([S.JournalListItem, S.JournalCard]), "JournalPage"),
    run: ({ deps, caller }, { query }) =>
      journals.listJournals(deps, caller, query.campaign_id, { page: query.page, size: query.size, folder_id: query.folder_id, fields: query.fields, with_links: query.with_links }),
  },
  {
    id: "getJournal",
    summary: "Get a journal entry",
    description: `Reads one entry with its content and your permission_level. An entry you may not see is 404. ${JOURNALS}`,
    tag: "Journals",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/journals/{entry_id}", status: 200 },
    mcp: { name: "get_journal", title: "Get a journal entry", readOnly: true },
    input: { path: Type.Object({ entry_id: S.Id("Journal entry id") }), query: S.WithLinksQuery },
    output: S.JournalDetail,
    run: ({ deps, caller }, { path, query }) => journals.getJournal(deps, caller, path.entry_id, query.with_links ?? false),
  },
  {
    id: "createJournal",
    summary: "Create a journal entry",
    description: `Creates an entry authored by you (you manage it). Limits: 50,000 tokens an entry, 1,000,000 a campaign, 2,000,000 characters a request. Publishing or archiving stamps published_at/archived_at unless given. ${JOURNALS}`,
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "POST", path: "/v1/journals", status: 201, maxBodyBytes: BODY_LIMITS.journal },
    mcp: { name: "create_journal", title: "Create a journal entry", readOnly: false, destructive: false, idempotent: false },
    input: { body: S.JournalCreate },
    output: S.SuccessId,
    run: ({ deps, caller }, { body }) => {
      const { world_id, ...fields } = body;
      return journals.createJournal(deps, caller, world_id, fields as journals.JournalFields & { title: string });
    },
  },
  {
    id: "updateJournal",
    summary: "Update a journal entry",
    description: `Changes any field of the entry named by id (needs edit). author_id hands it to another campaign member and permissions {add, remove} changes shares (both need manage); the author can never be removed. ${JOURNALS}`,
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "PUT", path: "/v1/journals", status: 200, maxBodyBytes: BODY_LIMITS.journal },
    mcp: { name: "update_journal", title: "Update a journal entry", readOnly: false, destructive: false, idempotent: true },
    input: { body: S.JournalUpdate },
    output: S.SuccessId,
    run: ({ deps, caller }, { body }) => {
      const { id, ...update } = body;
      return journals.updateJournal(deps, caller, id, update as journals.JournalUpdate);
    },
  },
  {
    id: "deleteJournal",
    summary: "Delete a journal entry",
    description: "Deletes an entry with its chunks and embeddings (needs manage permission on it).",
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "DELETE", path: "/v1/journals", status: 200 },
    mcp: { name: "delete_journal", title: "Delete a journal entry", readOnly: false, destructive: true, idempotent: true },
    input: { query: S.IdQuery("Journal entry id") },
    output: S.Success,
    run: ({ deps, caller }, { query }) => journals.deleteJournal(deps, caller, query.id),
  },
  {
    id: "listJournalFolders",
    summary: "List journal folders",
    description: "All journal folders of a campaign (not paginated), ordered by path then position; parent_id lists one folder's children.",
    tag: "Journals",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "list_journal_folders", title: "List journal folders", readOnly: true },
    input: { query: S.FolderListQuery },
    output: Type.Object({ data: Type.Array(S.Folder) }, { title: "JournalFolderList" }),
    run: ({ deps, caller }, { query }) => journals.listFolders(deps, caller, query.campaign_id, query.parent_id),
  },
  {
    id: "getJournalFolder",
    summary: "Get a journal folder",
    description: "Reads one journal folder.",
    tag: "Journals",
    auth: "user",
    campaignAccess: "read",
    http: { method: "GET", path: "/v1/journal-folders/{folder_id}", status: 200 },
    mcp: { name: "get_journal_folder", title: "Get a journal folder", readOnly: true },
    input: { path: Type.Object({ folder_id: S.Id("Folder id") }) },
    output: S.Folder,
    run: ({ deps, caller }, { path }) => journals.getFolder(deps, caller, path.folder_id),
  },
  {
    id: "createJournalFolder",
    summary: "Create a journal folder",
    description: "Creates a folder. The path is normalized (\"/Lore//NPCs/\" becomes \"Lore/NPCs\") and unique per campaign; a parent must be a folder of the same campaign.",
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "POST", path: "/v1/journal-folders", status: 201 },
    mcp: { name: "create_journal_folder", title: "Create a journal folder", readOnly: false, destructive: false, idempotent: false },
    input: { body: S.FolderCreate },
    output: S.SuccessId,
    run: ({ deps, caller }, { body }) => {
      const { world_id, ...fields } = body;
      return journals.createFolder(deps, caller, world_id, fields as journals.FolderFields & { name: string; path: string });
    },
  },
  {
    id: "updateJournalFolder",
    summary: "Update a journal folder",
    description: "Changes the folder named by id. A folder can never become its own parent or its descendant's child.",
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "PUT", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "update_journal_folder", title: "Update a journal folder", readOnly: false, destructive: false, idempotent: true },
    input: { body: S.FolderUpdate },
    output: S.SuccessId,
    run: ({ deps, caller }, { body }) => {
      const { id, ...fields } = body;
      return journals.updateFolder(deps, caller, id, fields as journals.FolderFields);
    },
  },
  {
    id: "deleteJournalFolder",
    summary: "Delete a journal folder",
    description: "Deletes a folder: its entries move to the campaign root and its child folders up one level.",
    tag: "Journals",
    auth: "user",
    campaignAccess: "write",
    http: { method: "DELETE", path: "/v1/journal-folders", status: 200 },
    mcp: { name: "delete_journal_folder", title: "Delete a journal folder", readOnly: false, destructive: true, idempotent: true },
    input: { query: S.IdQuery("Folder id") },
    output: S.Success,
    run: ({ deps, caller }, { query }) => journals.deleteFolder(deps, caller, query.id),
  },
  {
    id: "internalCreateSession",
    summary: "Create a session",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface.",
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/sessions", status: 201, maxBodyBytes: BODY_LIMITS.session },
    input: { body: S.SessionCreate },
    output: S.Session,
    run: ({ deps, caller }, { body }) => createSession(deps, caller, body as SessionDraft),
  },
  {
    id: "internalDeleteSession",
    summary: "Delete a session",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface.",
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/sessions/{session_id}", status: 204 },
    input: { path: Type.Object({ session_id: S.Id("Session id") }) },
    run: ({ deps, caller }, { path }) => deleteSession(deps, caller, path.session_id),
  },
]);
