// Journal entries and folders on SQL.
import type { JournalEntry, JournalFolder, JournalListEntry, JournalStatus, PermissionLevel } from "../../domain/journals.ts";
import type { FolderRepository, JournalRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { counted, isUniqueViolation, json, paged, str, Where } from "./rows.ts";
import { ancestry, boolean, campaignRecord, crud, integer, jsonb, oneOf, recordOf, table, text, textList, textOrNull, timestamps, timestamptz, timestamptzOrNull, type Codecs } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const ENTRY_COLUMNS: Codecs<JournalEntry> = {
  ...campaignRecord,
  title: text,
  summary: textOrNull,
  content: text,
  content_rich: jsonb<JournalEntry["content_rich"]>(null),
  content_metadata: jsonb<JournalEntry["content_metadata"]>(null),
  tags: textList,
  token_count: integer,
  cover_image: textOrNull,
  is_pinned: boolean,
  is_public: boolean,
  status: oneOf<JournalStatus>(),
  published_at: timestamptzOrNull,
  archived_at: timestamptzOrNull,
  folder_id: textOrNull,
  author_id: text,
  last_edited_by_id: textOrNull,
  ...timestamps,
};
const ENTRIES = table<JournalEntry>("journal_entries", ENTRY_COLUMNS, { addressedAs: "journals" });

/**
 * What a list reads: every column but the content (up to 2,000,000 characters and its rich form),
 * which a list never answers; reading it cost the database its detoasting and the service its decoding.
 */
const { content: _content, content_rich: _rich, content_metadata: _metadata, ...LISTED_COLUMNS } = ENTRY_COLUMNS;
const listedRecord = recordOf<JournalListEntry>(LISTED_COLUMNS);
const LISTED_SELECT = Object.keys(LISTED_COLUMNS).map((column) => `e.${column}`).join(", ");

/** The journal permission rule as a filter: public, authored by the viewer, or shared with them. */
export const VISIBLE_TO = (entry: string, viewer: string) =>
  `(${entry}.is_public or ${entry}.author_id = ${viewer} or exists (select 1 from journal_shares s where s.entry_id = ${entry}.id and s.user_id = ${viewer}))`;

export function journals(db: SqlExecutor): JournalRepository {
  return {
    ...crud(db, ENTRIES),
    async listVisible(campaignId, viewerId, filters, page) {
      const where = new Where().add(campaignId, (p) => `e.campaign_id = ${p}`).add(viewerId, (p) => VISIBLE_TO("e", p));
      if (filters.folderId) where.add(filters.folderId, (p) => `e.folder_id = ${p}`);
      const order = `e.is_pinned desc, coalesce(e.updated_at, e.created_at) desc, e.id desc`;
      // Unfiltered, the total is the campaign's counter of public entries plus the viewer's counter
      // of their own private ones (migration 0024) plus a count of those shared with them. That count
      // starts from the viewer's shares and checks each entry by id (`offset 0`): joined, the planner
      // read every private entry of the campaign to match a few shares (10k private: 21 ms warm, 84 cold).
      const count = filters.folderId
        ? undefined
        : `(${counted("$1", "journals:public")}
            + coalesce((select n from record_counts where campaign_id = $1 and kind = 'journals:private:' || $2::text), 0)
            + (select count(*) from journal_shares s where s.user_id = $2
               and exists (select 1 from journal_entries j where j.id = s.entry_id and j.campaign_id = $1 and not j.is_public and j.author_id <> $2 offset 0)))`;
      const { rows, total } = await paged(db, LISTED_SELECT, `from journal_entries e where ${where.sql}`, order, where.params, page, count, !filters.folderId);
      return { rows: rows.map(listedRecord), total };
    },
    async shares(entryId) {
      const rows = await db.query(`select user_id, level from journal_shares where entry_id = $1 order by created_at, user_id`, [entryId]);
      return rows.map((row) => ({ user_id: str(row.user_id), level: str(row.level) as PermissionLevel }));
    },
    async putShare(entryId, share, at) {
      await db.query(
        `insert into journal_shares (entry_id, user_id, level, created_at) values ($1, $2, $3, $4::timestamptz)
         on conflict (entry_id, user_id) do update set level = excluded.level`,
        [entryId, share.user_id, share.level, at],
      );
    },
    async removeShare(entryId, userId) {
      await db.query(`delete from journal_shares where entry_id = $1 and user_id = $2`, [entryId, userId]);
    },
    async campaignTokens(campaignId, exceptEntryId) {
      const [row] = await db.query(`select coalesce(sum(token_count), 0)::int as total from journal_entries where campaign_id = $1 and id is distinct from $2`, [campaignId, exceptEntryId]);
      return Number(row!.total);
    },
    async replaceChunks(entryId, campaignId, chunks) {
      await db.query(`delete from journal_chunks where entry_id = $1`, [entryId]);
      if (!chunks.length) return;
      await db.query(
        `insert into journal_chunks (entry_id, campaign_id, position, text, token_count)
         select $1, $2, (c->>'position')::int, c->>'text', (c->>'token_count')::int from jsonb_array_elements($3::text::jsonb) c`,
        [entryId, campaignId, json(chunks)],
      );
    },
    async chunks(entryId) {
      const rows = await db.query(`select position, text, token_count from journal_chunks where entry_id = $1 order by position`, [entryId]);
      return rows.map((row) => ({ position: Number(row.position), text: str(row.text), token_count: Number(row.token_count) }));
    },
    async moveFolderEntriesToRoot(folderId) {
      return (await db.query(`update journal_entries set folder_id = null where folder_id = $1 returning id`, [folderId])).length;
    },
    async recountsDue(limit) {
      const rows = await db.query(`select e.id, e.content from journal_token_recounts q join journal_entries e on e.id = q.entry_id order by q.entry_id limit $1`, [limit]);
      return rows.map((row) => ({ id: str(row.id), content: str(row.content) }));
    },
    async storeRecount(entryId, content, tokenCount, chunks) {
      // Rows whose count is already right are left alone: no change-feed entry, no reindex.
      const [still] = await db.query(`select 1 as one from journal_entries where id = $1 and content = $2 for update`, [entryId, content]);
      if (still) {
        await db.query(`update journal_entries set token_count = $2 where id = $1 and token_count <> $2`, [entryId, tokenCount]);
        if (chunks.length)
          await db.query(
            `update journal_chunks k set token_count = (c->>'token_count')::int
             from jsonb_array_elements($2::text::jsonb) c
             where k.entry_id = $1 and k.position = (c->>'position')::int and k.text = c->>'text' and k.token_count <> (c->>'token_count')::int`,
            [entryId, json(chunks)],
          );
      }
      await db.query(`delete from journal_token_recounts where entry_id = $1`, [entryId]);
    },
  };
}

const FOLDERS = table<JournalFolder>("journal_folders", {
  ...campaignRecord,
  parent_id: textOrNull,
  name: text,
  path: text,
  description: textOrNull,
  position: integer,
  metadata: jsonb<JournalFolder["metadata"]>(null),
  ...timestamps,
}, { addressedAs: "journal_folders" });
const FOLDER_COLUMNS = FOLDERS.columns();

export function folders(db: SqlExecutor): FolderRepository {
  const guarded = async (work: () => Promise<unknown>) => {
    try {
      await work();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  };
  const base = crud(db, FOLDERS);
  return {
    ...base,
    insert: (f) => guarded(() => base.insert(f)),
    replace: (f) => guarded(() => base.replace(f)),
    async list(campaignId, parentId) {
      const rows = parentId
        ? await db.query(`select ${FOLDER_COLUMNS} from journal_folders where campaign_id = $1 and parent_id = $2 order by path, position, id`, [campaignId, parentId])
        : await db.query(`select ${FOLDER_COLUMNS} from journal_folders where campaign_id = $1 order by path, position, id`, [campaignId]);
      return rows.map(FOLDERS.toRecord);
    },
    ancestry: (id) => ancestry(db, "journal_folders", id),
    async reparentChildren(folderId, newParentId, at) {
      return (await db.query(`update journal_folders set parent_id = $2, updated_at = $3::timestamptz where parent_id = $1 returning id`, [folderId, newParentId, at])).length;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { journals, folders } satisfies SqlRepositories;
