// Record ports for the compendium, links, search and tasks on SQL.
import { characterSearchText, type Character, type CharacterType } from "../../domain/characters.ts";
import { entitySearchText, type Entity, type EntityKind } from "../../domain/entities.ts";
import type { Link, LinkFromType, LinkToType } from "../../domain/links.ts";
import { queryWords, searchSnippet } from "../../domain/snippets.ts";
import { offsetOf, type PageRequest } from "../../domain/pagination.ts";
import type {
  CharacterRepository,
  EntityRepository,
  LinkRepository,
  Listing,
  LookupRepository,
  ReadOptions,
  RecordRef,
  SearchHit,
  SearchIndex,
  Task,
  TaskRepository,
  TextSource,
} from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { VISIBLE_TO } from "./journals.ts";

/** The tail of a read for update (ReadOptions.lock): `no key` so foreign-key checks of other writers are not blocked. */
export const lockClause = (options: ReadOptions | undefined, table?: string): string =>
  options?.lock ? ` for no key update${table ? ` of ${table}` : ""}` : "";

export const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();
export const isoOrNull = (value: unknown): string | null => (value == null ? null : iso(value));
export const str = (value: unknown): string => String(value);
export const strOrNull = (value: unknown): string | null => (value == null ? null : String(value));
export const json = (value: unknown): string => JSON.stringify(value);
export const jsonArray = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
export const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : json(value));
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string } | null)?.code === "23505";
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The total a page's rows carry; a page past the end has none, so it asks. */
const totalOf = async (db: SqlExecutor, rows: Row[], from: string, params: unknown[], page: PageRequest): Promise<number> =>
  rows.length ? Number(rows[0]!.total_count) : page.page > 1 ? Number((await db.query(`select count(*)::int as n ${from}`, params))[0]!.n) : 0;

/**
 * Runs a paged query with the total. The total is a separate count in the same statement (run
 * once), so the page itself can stop after `size` rows read in index order; a `count(*) over ()`
 * would make every page read, and keep, every row of the campaign. A page past the end asks once
 * more for the total. (Ranked searches, which see every match anyway: `rankedPage`.)
 */
export async function paged(db: SqlExecutor, select: string, from: string, order: string, params: unknown[], page: PageRequest): Promise<Listing<Row>> {
  const limitAt = params.length + 1;
  const rows = await db.query(
    `select ${select}, (select count(*) ${from})::int as total_count ${from} order by ${order} limit $${limitAt} offset $${limitAt + 1}`,
    [...params, page.size, offsetOf(page)],
  );
  return { rows, total: await totalOf(db, rows, from, params, page) };
}

/**
 * A prefix query for full-text search: every word of the input must start a word of the text
 * ("radra thor" finds "Radrabel Thorlasqua"). Only letters and digits reach the query syntax.
 * Null when the input has no word at all.
 */
export const prefixQuery = (input: string): string | null => {
  const words = queryWords(input);
  return words.length ? words.slice(0, 16).map((word) => `${word}:*`).join(" & ") : null;
};

/** The searchable tables, by the alias their queries use. */
const SEARCHED = {
  c: { table: "characters", vector: "c.search_vector", text: "c.search_text", name: "c.character_name" },
  e: { table: "entities", vector: "e.search_vector", text: "e.search_text", name: "e.name" },
} as const;

/**
 * List search in two steps, each served by an index: full-text prefix matches; only when there are
 * none, the fallbacks: substring anywhere, or a similar name (misspellings, by trigram word
 * similarity). Prefix matches rank the exact name first, then names that start with the query, then
 * the rest (an alias, a later word): string comparisons on the page's candidates are cheap, where
 * `ts_rank` cost half the query and told hits of one prefix word hardly apart. Newest first within
 * a rank, as unsearched lists are.
 */
async function searchedList(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  where: string[],
  params: unknown[],
  search: string,
  page: PageRequest,
): Promise<Listing<Row>> {
  const { table, vector, text, name } = SEARCHED[alias];
  const from = (match: string) => `from ${table} ${alias} where ${[...where, match].join(" and ")}`;
  const tsquery = prefixQuery(search);
  if (tsquery) {
    const [query, exact, prefix] = [params.length + 1, params.length + 2, params.length + 3];
    const lowered = search.toLowerCase();
    const found = await rankedPage(
      db,
      columns,
      alias,
      from(`${vector} @@ to_tsquery('simple', $${query})`),
      [...params, tsquery],
      `(lower(${name}) = $${exact})::int + (lower(${name}) like $${prefix})::int`,
      [lowered, `${likePattern(lowered).slice(1)}`],
      page,
    );
    if (found.total > 0) return found;
  }
  const [q, like] = [params.length + 1, params.length + 2];
  const fallback = from(`(${text} ilike $${like} or $${q} <% ${text})`);
  return rankedPage(db, columns, alias, fallback, [...params, search, likePattern(search)], `(${text} ilike $${like})::int + word_similarity($${q}, ${text})`, [], page);
}

/**
 * A page of ranked matches. Every match must be ranked and counted, but only the page's rows are
 * needed whole: ranking, counting and cutting narrow rows, then reading the page's rows by id, did
 * the same work in about two thirds of the time of sorting whole rows.
 */
async function rankedPage(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  from: string,
  fromParams: unknown[],
  rank: string,
  rankParams: unknown[],
  page: PageRequest,
): Promise<Listing<Row>> {
  const limitAt = fromParams.length + rankParams.length + 1;
  const rows = await db.query(
    `select ${columns}, p.total_count
     from (select ${alias}.id, ${alias}.created_at, ${rank} as rank, count(*) over ()::int as total_count ${from}
           order by rank desc, ${alias}.created_at desc, ${alias}.id desc limit $${limitAt} offset $${limitAt + 1}) p
     join ${SEARCHED[alias].table} ${alias} on ${alias}.id = p.id
     order by p.rank desc, p.created_at desc, p.id desc`,
    [...fromParams, ...rankParams, page.size, offsetOf(page)],
  );
  return { rows, total: await totalOf(db, rows, from, fromParams, page) };
}

const toCharacter = (row: Row): Character => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  character_name: str(row.character_name),
  character_aliases: jsonArray(row.character_aliases),
  player_name: strOrNull(row.player_name),
  player_handle: strOrNull(row.player_handle),
  speaker_id: strOrNull(row.speaker_id),
  description: strOrNull(row.description),
  backstory: strOrNull(row.backstory),
  type: str(row.type) as CharacterType,
  image: strOrNull(row.image),
  tcg_image: strOrNull(row.tcg_image),
  approved: Boolean(row.approved),
  merge: Boolean(row.merge),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const CHARACTER_COLUMNS = `c.id, c.campaign_id, c.character_name, c.character_aliases, c.player_name, c.player_handle, c.speaker_id,
  c.description, c.backstory, c.type, c.image, c.tcg_image, c.approved, c.merge, c.created_at, c.updated_at`;

const characterParams = (c: Character) => [
  c.id,
  c.campaign_id,
  c.character_name,
  json(c.character_aliases),
  c.player_name,
  c.player_handle,
  c.speaker_id,
  c.description,
  c.backstory,
  c.type,
  c.image,
  c.tcg_image,
  c.approved,
  c.merge,
  characterSearchText(c),
  c.created_at,
  c.updated_at,
];

export function characters(db: SqlExecutor): CharacterRepository {
  return {
    async insert(c) {
      await db.query(
        `insert into characters (id, campaign_id, character_name, character_aliases, player_name, player_handle, speaker_id, description,
           backstory, type, image, tcg_image, approved, merge, search_text, created_at, updated_at)
         values ($1, $2, $3, $4::text::jsonb, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::timestamptz, $17::timestamptz)`,
        characterParams(c),
      );
    },
    async replace(c) {
      await db.query(
        `update characters set campaign_id = $2, character_name = $3, character_aliases = $4::text::jsonb, player_name = $5, player_handle = $6,
           speaker_id = $7, description = $8, backstory = $9, type = $10, image = $11, tcg_image = $12, approved = $13, merge = $14,
           search_text = $15, created_at = $16::timestamptz, updated_at = $17::timestamptz
         where id = $1`,
        characterParams(c),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select ${CHARACTER_COLUMNS} from characters c where c.id = $1${lockClause(options, "c")}`, [id]);
      return row ? toCharacter(row) : null;
    },
    async list(campaignId, filters, page) {
      const params: unknown[] = [campaignId];
      const where = [`c.campaign_id = $1`];
      const order = `c.created_at desc, c.id desc`;
      if (filters.type) {
        params.push(filters.type);
        where.push(`c.type = $${params.length}`);
      }
      if (filters.approvedOnly) where.push(`c.approved`);
      const { rows, total } = filters.search
        ? await searchedList(db, CHARACTER_COLUMNS, "c", where, params, filters.search, page)
        : await paged(db, CHARACTER_COLUMNS, `from characters c where ${where.join(" and ")}`, order, params, page);
      return { rows: rows.map(toCharacter), total };
    },
    async delete(id) {
      return (await db.query(`delete from characters where id = $1 returning id`, [id])).length > 0;
    },
  };
}

const ENTITY_COLUMNS = `e.id, e.campaign_id, e.kind, e.name, e.aliases, e.description, e.type, e.image, e.tcg_image, e.parent_id, e.merge, e.created_at, e.updated_at`;

const toEntity = (row: Row): Entity => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  kind: str(row.kind) as EntityKind,
  name: str(row.name),
  aliases: jsonArray(row.aliases),
  description: strOrNull(row.description),
  type: strOrNull(row.type),
  image: strOrNull(row.image),
  tcg_image: strOrNull(row.tcg_image),
  parent_id: strOrNull(row.parent_id),
  merge: Boolean(row.merge),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const entityParams = (e: Entity) => [
  e.id,
  e.campaign_id,
  e.kind,
  e.name,
  json(e.aliases),
  e.description,
  e.type,
  e.image,
  e.tcg_image,
  e.parent_id,
  e.merge,
  entitySearchText(e),
  e.created_at,
  e.updated_at,
];

export function entities(db: SqlExecutor): EntityRepository {
  return {
    async insert(e) {
      await db.query(
        `insert into entities (id, campaign_id, kind, name, aliases, description, type, image, tcg_image, parent_id, merge, search_text, created_at, updated_at)
         values ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8, $9, $10, $11, $12, $13::timestamptz, $14::timestamptz)`,
        entityParams(e),
      );
    },
    async replace(e) {
      await db.query(
        `update entities set campaign_id = $2, kind = $3, name = $4, aliases = $5::text::jsonb, description = $6, type = $7, image = $8,
           tcg_image = $9, parent_id = $10, merge = $11, search_text = $12, created_at = $13::timestamptz, updated_at = $14::timestamptz
         where id = $1`,
        entityParams(e),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select ${ENTITY_COLUMNS} from entities e where e.id = $1${lockClause(options, "e")}`, [id]);
      return row ? toEntity(row) : null;
    },
    async list(campaignId, kind, filters, page) {
      const params: unknown[] = [campaignId, kind];
      const where = [`e.campaign_id = $1`, `e.kind = $2`];
      const order = `e.created_at desc, e.id desc`;
      const { rows, total } = filters.search
        ? await searchedList(db, ENTITY_COLUMNS, "e", where, params, filters.search, page)
        : await paged(db, ENTITY_COLUMNS, `from entities e where ${where.join(" and ")}`, order, params, page);
      return { rows: rows.map(toEntity), total };
    },
    async ancestry(id) {
      const rows = await db.query(
        `with recursive up(id, parent_id, depth) as (
           select id, parent_id, 0 from entities where id = $1
           union all
           select e.id, e.parent_id, up.depth + 1 from entities e join up on e.id = up.parent_id where up.depth < 10000
         ) cycle id set looped using path
         select id, parent_id from up`,
        [id],
      );
      return new Map(rows.map((row) => [str(row.id), strOrNull(row.parent_id)]));
    },
    async delete(id) {
      return (await db.query(`delete from entities where id = $1 returning id`, [id])).length > 0;
    },
  };
}

const LINK_COLUMNS = `l.id, l.campaign_id, l.from_id, l.from_type, l.to_id, l.to_type, l.alias, l.created_at`;
const toLink = (row: Row): Link => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  from_id: str(row.from_id),
  from_type: str(row.from_type) as LinkFromType,
  to_id: str(row.to_id),
  to_type: str(row.to_type) as LinkToType,
  alias: str(row.alias),
  created_at: iso(row.created_at),
});

/** A link whose source or target is a journal entry shows only to those who may see that entry. */
const JOURNAL_ENDS_VISIBLE = (viewer: string) =>
  `(l.from_type <> 'Journal' or exists (select 1 from journal_entries j where j.id = l.from_id and ${VISIBLE_TO("j", viewer)}))
   and (l.to_type <> 'Journal' or exists (select 1 from journal_entries j where j.id = l.to_id and ${VISIBLE_TO("j", viewer)}))`;

export function links(db: SqlExecutor): LinkRepository {
  return {
    async upsert(link) {
      const [row] = await db.query(
        `insert into links as l (id, campaign_id, from_id, from_type, to_id, to_type, alias, alias_key, origin, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
         on conflict (from_type, from_id, alias_key) do update
           set to_id = excluded.to_id, to_type = excluded.to_type, alias = excluded.alias, origin = excluded.origin
         returning ${LINK_COLUMNS}`,
        [link.id, link.campaign_id, link.from_id, link.from_type, link.to_id, link.to_type, link.alias, link.alias_key, link.origin, link.created_at],
      );
      return toLink(row!);
    },
    async get(id, options) {
      const [row] = await db.query(`select ${LINK_COLUMNS} from links l where l.id = $1${lockClause(options, "l")}`, [id]);
      return row ? toLink(row) : null;
    },
    async list(campaignId, filters, page, viewerId) {
      const params: unknown[] = [campaignId];
      const where = [`l.campaign_id = $1`];
      if (viewerId !== null) {
        params.push(viewerId);
        where.push(JOURNAL_ENDS_VISIBLE(`$${params.length}`));
      }
      for (const column of ["to_id", "from_id", "to_type", "from_type"] as const) {
        if (filters[column] === undefined) continue;
        params.push(filters[column]);
        where.push(`l.${column} = $${params.length}`);
      }
      if (filters.alias !== undefined) {
        params.push(filters.alias.trim().toLowerCase().replace(/\s+/g, " "));
        where.push(`l.alias_key = $${params.length}`);
      }
      const { rows, total } = await paged(db, LINK_COLUMNS, `from links l where ${where.join(" and ")}`, `l.created_at desc, l.id desc`, params, page);
      return { rows: rows.map(toLink), total };
    },
    async updateAlias(id, alias, aliasKey) {
      try {
        const [row] = await db.query(`update links l set alias = $2, alias_key = $3 where l.id = $1 returning ${LINK_COLUMNS}`, [id, alias, aliasKey]);
        return row ? toLink(row) : null;
      } catch (error) {
        if (isUniqueViolation(error)) return "conflict";
        throw error;
      }
    },
    async delete(id) {
      return (await db.query(`delete from links where id = $1 returning id`, [id])).length > 0;
    },
    async deleteTouching(recordId) {
      return (await db.query(`delete from links where from_id = $1 or to_id = $1 returning id`, [recordId])).length;
    },
    async pruneWikilinks(fromType, fromId, keep) {
      const rows = await db.query(
        `delete from links where from_type = $1 and from_id = $2 and origin = 'wikilink'
           and not (alias_key = any (select jsonb_array_elements_text($3::text::jsonb))) returning id`,
        [fromType, fromId, json(keep)],
      );
      return rows.length;
    },
    async listTo(campaignId, toId) {
      const rows = await db.query(`select ${LINK_COLUMNS} from links l where l.campaign_id = $1 and l.to_id = $2 order by l.created_at`, [campaignId, toId]);
      return rows.map(toLink);
    },
    async retarget(linkIds, toType, toId) {
      if (!linkIds.length) return;
      await db.query(`update links set to_type = $2, to_id = $3 where id = any (select jsonb_array_elements_text($1::text::jsonb))`, [json(linkIds), toType, toId]);
    },
  };
}

const ENTITY_TYPE_NAMES: Record<string, EntityKind> = { Faction: "faction", Location: "location", Item: "item" };

/** Text fields that hold wikilinks, per table: [link source type, table, id column, text column]. */
const TEXT_FIELDS: [LinkFromType, string, string][] = [
  ["Character", "characters", "description"],
  ["Backstory", "characters", "backstory"],
  ["World", "campaigns", "summary"],
  ["GameSession", "sessions", "summary"],
];

export function lookup(db: SqlExecutor): LookupRepository {
  return {
    async findRecord(type, id) {
      let row: Row | undefined;
      if (type === "Character" || type === "Backstory") {
        [row] = await db.query(`select id, campaign_id, character_name as name from characters where id = $1`, [id]);
      } else if (ENTITY_TYPE_NAMES[type]) {
        [row] = await db.query(`select id, campaign_id, name from entities where id = $1 and kind = $2`, [id, ENTITY_TYPE_NAMES[type]]);
      } else if (type === "GameSession") {
        [row] = await db.query(`select id, campaign_id, title as name from sessions where id = $1`, [id]);
      } else if (type === "Journal") {
        [row] = await db.query(`select id, campaign_id, title as name from journal_entries where id = $1`, [id]);
      } else if (type === "World") {
        [row] = await db.query(`select id, id as campaign_id, title as name from campaigns where id = $1`, [id]);
      } else if (type === "Beat") {
        [row] = await db.query(`select id, campaign_id, label as name from beats where id = $1`, [id]);
      } else if (type === "Moment") {
        [row] = await db.query(`select id, campaign_id, coalesce(label, '') as name from moments where id = $1`, [id]);
      }
      return row ? { type: type as RecordRef["type"], id: str(row.id), campaign_id: str(row.campaign_id), name: str(row.name) } : null;
    },
    async resolveNames(campaignId, keys) {
      if (!keys.length) return [];
      // Two statements, as a locking read cannot be a union. `for share`: a target being deleted
      // meanwhile is either waited for (and then not found) or waits for the link to be made
      // (and then removes it), so no link is left pointing at a deleted record.
      const wanted = `with wanted as (select jsonb_array_elements_text($2::text::jsonb) as key)`;
      const characterRows = await db.query(
        `${wanted} select 'Character' as type, c.id, c.character_name as name, c.character_aliases as aliases, c.created_at
         from characters c where c.campaign_id = $1
          and (lower(c.character_name) in (select key from wanted)
               or exists (select 1 from jsonb_array_elements_text(c.character_aliases) a where lower(a) in (select key from wanted)))
         order by c.id for share of c`,
        [campaignId, json(keys)],
      );
      const entityRows = await db.query(
        `${wanted} select initcap(e.kind) as type, e.id, e.name, e.aliases, e.created_at
         from entities e where e.campaign_id = $1
          and (lower(e.name) in (select key from wanted)
               or exists (select 1 from jsonb_array_elements_text(e.aliases) a where lower(a) in (select key from wanted)))
         order by e.id for share of e`,
        [campaignId, json(keys)],
      );
      const rows = [...characterRows, ...entityRows].sort((a, b) => iso(a.created_at).localeCompare(iso(b.created_at)));
      return rows.map((row) => ({ type: str(row.type) as RecordRef["type"], id: str(row.id), campaign_id: campaignId, name: str(row.name), aliases: jsonArray(row.aliases) }));
    },
    async textsMentioning(campaignId, needle, options) {
      const sources: TextSource[] = [];
      const pattern = likePattern(needle);
      for (const [sourceType, table, column] of TEXT_FIELDS) {
        const campaignColumn = table === "campaigns" ? "id" : "campaign_id";
        const rows = await db.query(`select id, ${column} as text from ${table} where ${campaignColumn} = $1 and ${column} ilike $2 order by id${lockClause(options)}`, [campaignId, pattern]);
        for (const row of rows) sources.push({ sourceType, sourceId: str(row.id), field: `${table}.${column}`, text: str(row.text) });
      }
      const rows = await db.query(`select id, kind, description as text from entities where campaign_id = $1 and description ilike $2 order by id${lockClause(options)}`, [campaignId, pattern]);
      for (const row of rows) {
        const kind = str(row.kind);
        sources.push({ sourceType: (kind[0]!.toUpperCase() + kind.slice(1)) as LinkFromType, sourceId: str(row.id), field: "entities.description", text: str(row.text) });
      }
      return sources;
    },
    async writeText(source, text, at) {
      const [table, column] = source.field.split(".") as [string, string];
      const allowed = [...TEXT_FIELDS.map(([, t, c]) => `${t}.${c}`), "entities.description"];
      if (!allowed.includes(source.field)) throw new Error(`not a text field: ${source.field}`);
      await db.query(`update ${table} set ${column} = $2, updated_at = $3::timestamptz where id = $1`, [source.sourceId, text, at]);
    },
  };
}

export function searchIndex(db: SqlExecutor): SearchIndex {
  return {
    async upsert(doc, at) {
      await db.query(
        `insert into search_documents (campaign_id, doc_type, doc_id, title, body, facets, updated_at)
         values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::timestamptz)
         on conflict (doc_type, doc_id) do update set campaign_id = excluded.campaign_id, title = excluded.title, body = excluded.body,
           facets = excluded.facets, updated_at = excluded.updated_at`,
        [doc.campaign_id, doc.doc_type, doc.doc_id, doc.title, doc.body, json({ ...doc.facets, ...(doc.visibility ? { visibility: doc.visibility } : {}) }), at],
      );
    },
    async remove(docType, docId) {
      await db.query(`delete from search_documents where doc_type = $1 and doc_id = $2`, [docType, docId]);
    },
    async removeByFacet(docType, facet, value) {
      await db.query(`delete from search_documents where doc_type = $1 and facets->>$2 = $3`, [docType, facet, value]);
    },
    async search(campaignId, query, docTypes, perType, viewerId) {
      // Full text first (title words by prefix, body words stemmed); substring or trigram similarity
      // on titles only when that finds nothing. One flat statement whose parameters fold into
      // constants (planning the former CTE-and-semi-join shape cost more than running it); snippets
      // are cut here, ts_headline cost as much as the rest of the query.
      const run = (match: string, rank: string, extra: unknown[]) =>
        db.query(
          `select doc_type, doc_id, title, score, body
           from (
             select d.doc_type, d.doc_id, d.title, d.body, s.score,
                    row_number() over (partition by d.doc_type order by s.score desc, d.doc_id) as position
             from search_documents d cross join lateral (select ${rank} as score) s
             where d.campaign_id = $1 and d.doc_type = any (string_to_array($3, ','))
               -- Documents with a visibility facet (journal entries) show only to those the journal rule lets see them.
               and (not (d.facets ? 'visibility') or (d.facets->'visibility'->>'is_public')::boolean
                    or d.facets->'visibility'->>'author_id' = $5 or d.facets->'visibility'->'shared_with' ? $5)
               and ${match}
           ) ranked
           where position <= $4 order by doc_type, position`,
          [campaignId, query, docTypes.join(","), perType, viewerId, ...extra],
        );
      const tsquery = prefixQuery(query);
      let rows = tsquery
        ? await run(
            `d.search_vector @@ (to_tsquery('simple', $6) || websearch_to_tsquery('english', $2))`,
            `ts_rank(d.search_vector, to_tsquery('simple', $6) || websearch_to_tsquery('english', $2))`,
            [tsquery],
          )
        : [];
      if (!rows.length) rows = await run(`(d.title ilike $6 or $2 <% d.title)`, `(d.title ilike $6)::int + word_similarity($2, d.title)`, [likePattern(query)]);
      const hits = new Map<string, SearchHit[]>();
      const words = queryWords(query);
      for (const row of rows) {
        const hit = { doc_type: str(row.doc_type), doc_id: str(row.doc_id), title: str(row.title), snippet: searchSnippet(str(row.body), words), score: Math.round(Number(row.score) * 1000) / 1000 };
        (hits.get(hit.doc_type) ?? hits.set(hit.doc_type, []).get(hit.doc_type)!).push(hit);
      }
      return hits;
    },
  };
}

const toTask = (row: Row): Task => ({
  id: str(row.id),
  campaign_id: strOrNull(row.campaign_id),
  kind: str(row.kind),
  status: str(row.status) as Task["status"],
  payload: (row.payload ?? {}) as Record<string, unknown>,
  result: (row.result ?? null) as Record<string, unknown> | null,
  error: strOrNull(row.error),
  attempts: Number(row.attempts),
  created_by: strOrNull(row.created_by),
  created_at: iso(row.created_at),
  started_at: isoOrNull(row.started_at),
  finished_at: isoOrNull(row.finished_at),
});

export function tasks(db: SqlExecutor): TaskRepository {
  return {
    async insert(task) {
      const [row] = await db.query(
        `insert into tasks (id, campaign_id, kind, payload, created_by, created_at) values ($1, $2, $3, $4::text::jsonb, $5, $6::timestamptz) returning *`,
        [task.id, task.campaign_id, task.kind, json(task.payload), task.created_by, task.created_at],
      );
      return toTask(row!);
    },
    async get(id) {
      const [row] = await db.query(`select * from tasks where id = $1`, [id]);
      return row ? toTask(row) : null;
    },
    async claim(at, leaseUntil) {
      const [row] = await db.query(
        `update tasks set status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, $1::timestamptz), lease_until = $2::timestamptz
         where id = (select id from tasks
                     where status = 'queued' or (status = 'running' and lease_until < $1::timestamptz)
                     order by created_at limit 1 for update skip locked)
         returning *`,
        [at, leaseUntil],
      );
      return row ? toTask(row) : null;
    },
    async finish(id, status, result, error, at) {
      await db.query(
        `update tasks set status = $2, result = $3::text::jsonb, error = $4, finished_at = $5::timestamptz, lease_until = null where id = $1`,
        [id, status, result === null ? null : json(result), error, at],
      );
    },
  };
}
