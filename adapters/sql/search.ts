// Search on SQL: the search index, and the ranked list search characters and entities use.
import { offsetOf, type PageRequest } from "../../domain/pagination.ts";
import { queryWords, searchSnippet } from "../../domain/snippets.ts";
import type { Listing, SearchHit, SearchIndex } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { json, likePattern, str, totalOf } from "./rows.ts";
import type { SqlRepositories } from "./records.ts";

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
 * The first string after every string that starts with `prefix`, in code point ("C") order: the
 * last character counted up (a prefix ending in the last code point gets one more of it, which
 * only the word filter then still has to catch).
 */
export const prefixEnd = (prefix: string): string => {
  const chars = [...prefix];
  const last = chars.pop()?.codePointAt(0);
  if (last === undefined) return "\u{10FFFF}";
  if (last === 0x10ffff) return `${prefix}\u{10FFFF}`;
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
  return chars.join("") + String.fromCodePoint(next);
};

/**
 * List search in two steps, each served by an index: full-text prefix matches; only when there are
 * none, the fallbacks: substring anywhere, or a similar name (misspellings, by trigram word
 * similarity). Prefix matches come in three tiers: the exact name, then names that start with the
 * query in name order, then the rest (an alias, a later word) newest first. The first two are read
 * in the order of a name index (migration 0023), so a first page stops after its rows however many
 * names share the prefix; the third is only read when the page reaches it. The total is a count of
 * the text index's matches, without ranking them.
 */
export async function searchedList(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  where: string[],
  params: unknown[],
  search: string,
  page: PageRequest,
): Promise<Listing<Row>> {
  const { table, vector, text } = SEARCHED[alias];
  const from = (match: string) => `from ${table} ${alias} where ${[...where, match].join(" and ")}`;
  const tsquery = prefixQuery(search);
  if (tsquery) {
    const found = await tieredPage(db, columns, alias, where, [...params, tsquery], search.toLowerCase(), page);
    if (found.total > 0) return found;
  }
  const [q, like] = [params.length + 1, params.length + 2];
  const fallback = from(`(${text} ilike $${like} or $${q} <% ${text})`);
  // Substring hits first, newest first; then similar names, most similar first. word_similarity is
  // only computed for the rows without the substring: it was most of the fallback's time (788
  // substring hits at 100k: 14 of 22 ms).
  return rankedPage(db, columns, alias, fallback, [...params, search, likePattern(search)], `case when ${text} ilike $${like} then 2 else word_similarity($${q}, ${text}) end`, [], page);
}

/**
 * A page of full-text prefix matches in tiers (see searchedList). The tiers split the matches
 * exactly: the name starts with the query (exact name first, then by name) or it does not. Each
 * tier reads at most the page's end (`limit size + offset`), and the outer LIMIT stops at the first
 * tier that fills it; the total counts the matches once, from the text index. The last tier is
 * fenced (`offset 0`): planned for all its rows, it takes them from the text index; with the LIMIT
 * in view the planner walked the campaign newest first testing each row (at 100k: the whole
 * campaign when a later word or an alias matches few).
 */
async function tieredPage(db: SqlExecutor, columns: string, alias: keyof typeof SEARCHED, where: string[], params: unknown[], lowered: string, page: PageRequest): Promise<Listing<Row>> {
  const { table, vector, name } = SEARCHED[alias];
  const n = params.length;
  const [exact, low, high, like, end, size, offset] = [n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7];
  const key = `lower(${name}) collate "C"`;
  const match = `${vector} @@ to_tsquery('simple', $${n})`;
  const starts = `${key} >= $${low} and ${key} < $${high} and lower(${name}) like $${like}`;
  const tier = (condition: string, order: string) =>
    `(select ${alias}.* from ${table} ${alias} where ${[...where, match, condition].join(" and ")} order by ${order} limit $${end})`;
  const newest = `${alias}.created_at desc, ${alias}.id desc`;
  const from = `from ${table} ${alias} where ${[...where, match].join(" and ")}`;
  const rows = await db.query(
    `select ${columns}, (select count(*) ${from})::int as total_count
     from (${tier(`${key} = $${exact}`, newest)}
           union all ${tier(`${starts} and ${key} <> $${exact}`, `${key}, ${newest}`)}
           union all (select t.* from (select ${alias}.* from ${table} ${alias} where ${[...where, match, `not (${starts})`].join(" and ")} offset 0) t
                      order by t.created_at desc, t.id desc limit $${end})) ${alias}
     limit $${size} offset $${offset}`,
    [...params, lowered, lowered, prefixEnd(lowered), `${likePattern(lowered).slice(1)}`, offsetOf(page) + page.size, page.size, offsetOf(page)],
  );
  return { rows, total: await totalOf(db, rows, from, params, page) };
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

/** How many matches per type the cross-type search ranks at most (besides title matches, as many again). */
const CANDIDATES = 200;

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
      // on titles only when that finds nothing. Snippets are cut here: ts_headline cost as much as
      // the rest of the query. Documents with a visibility facet (journal entries) show only to those
      // the journal rule lets see them (search_visible, migration 0015).
      const ranked = (source: string, rank: string) =>
        `select doc_type, doc_id, title, score, body
         from (
           select d.doc_type, d.doc_id, d.title, d.body, s.score,
                  row_number() over (partition by d.doc_type order by s.score desc, d.doc_id) as position
           from ${source} cross join lateral (select ${rank} as score) s
         ) ranked
         where position <= $4 order by doc_type, position`;
      const tsquery = prefixQuery(query);
      let rows: Row[] = [];
      if (tsquery)
        // Two stages, so a word in a quarter of the campaign does not rank a quarter of the campaign:
        // per type, at most CANDIDATES documents whose title matches and as many whose text does, then
        // ts_rank over those alone, in one call that answers only each type's first hits
        // (search_ranked, migration 0028). Title hits outrank body hits (weight A over B), so the best
        // are among the candidates; below CANDIDATES hits a type's answer is exactly the full ranking.
        rows = await db.query(
          `select doc_type, doc_id, title, score, body
           from search_ranked($1, $3, to_tsquery('simple', $6), websearch_to_tsquery('english', $2), $5, ${CANDIDATES}, $4)`,
          [campaignId, query, docTypes.join(","), perType, viewerId, tsquery],
        );
      if (!rows.length)
        rows = await db.query(
          ranked(
            // search_similar (migration 0021): the title trigram index on PGlite too, never a table scan.
            `search_similar($1, $3, $2, $6, $5) d`,
            `(d.title ilike $6)::int + word_similarity($2, d.title)`,
          ),
          [campaignId, query, docTypes.join(","), perType, viewerId, likePattern(query)],
        );
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

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { search: searchIndex } satisfies SqlRepositories;
