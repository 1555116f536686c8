// Journal entries and folders on SQL.
import type { JournalEntry, JournalFolder, JournalStatus, PermissionLevel } from "../../domain/journals.ts";
import type { FolderRepository, JournalRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, isUniqueViolation, json, jsonArray, jsonOrNull, lockClause, paged, str, strOrNull } from "./rows.ts";

const toEntry = (row: Row): JournalEntry => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  title: str(row.title),
  summary: strOrNull(row.summary),
  content: str(row.content ?? ""),
  content_rich: row.content_rich ?? null,
  content_metadata: row.content_metadata ?? null,
  tags: jsonArray(row.tags),
  token_count: Number(row.token_count),
  cover_image: strOrNull(row.cover_image),
  is_pinned: Boolean(row.is_pinned),
  is_public: Boolean(row.is_public),
  status: str(row.status) as JournalStatus,
  published_at: isoOrNull(row.published_at),
  archived_at: isoOrNull(row.archived_at),
  folder_id: strOrNull(row.folder_id),
  author_id: str(row.author_id),
  last_edited_by_id: strOrNull(row.last_edited_by_id),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});


const entryParams = (e: JournalEntry) => [
  e.id,
  e.campaign_id,
  e.title,
  e.summary,
  e.content,
  jsonOrNull(e.content_rich),
  jsonOrNull(e.content_metadata),
  json(e.tags),
  e.token_count,
  e.cover_image,
  e.is_pinned,
  e.is_public,
  e.status,
  e.published_at,
  e.archived_at,
  e.folder_id,
  e.author_id,
  e.last_edited_by_id,
  e.created_at,
  e.updated_at,
];

/** The journal permission rule as a filter: public, authored by the viewer, or shared with them. */
export const VISIBLE_TO = (entry: string, viewer: string) =>
  `(${entry}.is_public or ${entry}.author_id = ${viewer} or exists (select 1 from journal_shares s where s.entry_id = ${entry}.id and s.user_id = ${viewer}))`;

export function journals(db: SqlExecutor): JournalRepository {
  return {
    async insert(e) {
      await db.query(
        `insert into journal_entries (id, campaign_id, title, summary, content, content_rich, content_metadata, tags, token_count, cover_image, is_pinned,
           is_public, status, published_at, archived_at, folder_id, author_id, last_edited_by_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8::text::jsonb, $9, $10, $11, $12, $13, $14::timestamptz, $15::timestamptz, $16, $17,
           $18, $19::timestamptz, $20::timestamptz)`,
        entryParams(e),
      );
    },
    async replace(e) {
      await db.query(
        `update journal_entries set campaign_id = $2, title = $3, summary = $4, content = $5, content_rich = $6::text::jsonb, content_metadata = $7::text::jsonb,
           tags = $8::text::jsonb, token_count = $9, cover_image = $10, is_pinned = $11, is_public = $12, status = $13, published_at = $14::timestamptz,
           archived_at = $15::timestamptz, folder_id = $16, author_id = $17, last_edited_by_id = $18, created_at = $19::timestamptz, updated_at = $20::timestamptz
         where id = $1`,
        entryParams(e),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from journal_entries where id = $1${lockClause(options)}`, [id]);
      return row ? toEntry(row) : null;
    },
    async listVisible(campaignId, viewerId, filters, page) {
      const params: unknown[] = [campaignId, viewerId];
      const where = [`e.campaign_id = $1`, VISIBLE_TO("e", "$2")];
      if (filters.folderId) {
        params.push(filters.folderId);
        where.push(`e.folder_id = $${params.length}`);
      }
      const order = `e.is_pinned desc, coalesce(e.updated_at, e.created_at) desc, e.id desc`;
      const { rows, total } = await paged(db, "e.*", `from journal_entries e where ${where.join(" and ")}`, order, params, page);
      return { rows: rows.map(toEntry), total };
    },
    async delete(id) {
      return (await db.query(`delete from journal_entries where id = $1 returning id`, [id])).length > 0;
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
  };
}

const toFolder = (row: Row): JournalFolder => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  parent_id: strOrNull(row.parent_id),
  name: str(row.name),
  path: str(row.path),
  description: strOrNull(row.description),
  position: Number(row.position),
  metadata: row.metadata ?? null,
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const folderParams = (f: JournalFolder) => [f.id, f.campaign_id, f.parent_id, f.name, f.path, f.description, f.position, jsonOrNull(f.metadata), f.created_at, f.updated_at];

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
  return {
    insert: (f) =>
      guarded(() =>
        db.query(
          `insert into journal_folders (id, campaign_id, parent_id, name, path, description, position, metadata, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9::timestamptz, $10::timestamptz)`,
          folderParams(f),
        ),
      ),
    replace: (f) =>
      guarded(() =>
        db.query(
          `update journal_folders set campaign_id = $2, parent_id = $3, name = $4, path = $5, description = $6, position = $7, metadata = $8::text::jsonb,
             created_at = $9::timestamptz, updated_at = $10::timestamptz where id = $1`,
          folderParams(f),
        ),
      ),
    async get(id, options) {
      const [row] = await db.query(`select * from journal_folders where id = $1${lockClause(options)}`, [id]);
      return row ? toFolder(row) : null;
    },
    async list(campaignId, parentId) {
      const rows = parentId
        ? await db.query(`select * from journal_folders where campaign_id = $1 and parent_id = $2 order by path, position, id`, [campaignId, parentId])
        : await db.query(`select * from journal_folders where campaign_id = $1 order by path, position, id`, [campaignId]);
      return rows.map(toFolder);
    },
    async ancestry(id) {
      const rows = await db.query(
        `with recursive up(id, parent_id, depth) as (
           select id, parent_id, 0 from journal_folders where id = $1
           union all
           select f.id, f.parent_id, up.depth + 1 from journal_folders f join up on f.id = up.parent_id where up.depth < 10000
         ) cycle id set looped using path
         select id, parent_id from up`,
        [id],
      );
      return new Map(rows.map((row) => [str(row.id), strOrNull(row.parent_id)]));
    },
    async reparentChildren(folderId, newParentId, at) {
      return (await db.query(`update journal_folders set parent_id = $2, updated_at = $3::timestamptz where parent_id = $1 returning id`, [folderId, newParentId, at])).length;
    },
    async delete(id) {
      return (await db.query(`delete from journal_folders where id = $1 returning id`, [id])).length > 0;
    },
  };
}
