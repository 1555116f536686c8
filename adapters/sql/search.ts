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

/**
 * The searchable tables, by the alias their queries use, with the function that pages their name
 * tiers (migration 0026) and what it takes before the query: characters (campaign, approved only,
 * type or null), entities (campaign, kind).
 */
const SEARCHED = {
  c: { table: "characters", vector: "c.search_vector", text: "c.search_text", tiers: "search_character_names" },
  e: { table: "entities", vector: "e.search_vector", text: "e.search_text", tiers: "search_entity_names" },
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
 * Where a list search can count from `search_terms` (migration 0025): the campaign and the lists
 * (a character's approval, an entity's kind) the search covers. Only for searches filtered by
 * nothing else; the caller leaves it out otherwise.
 */
export interface IndexedLists {
  campaignId: string;
  lists: string[];
}

/**
 * Where a one-word search's total is a sum of counters (`search_prefix_counts`, migration 0045):
 * the campaign, the lists and the type (null: every type) the search covers. Characters only. Every
 * character's search text holds its type as a word, so with a type the last prefix tier looks up
 * the word pairs (0041) of that word and the query's.
 */
export interface PrefixCounted extends IndexedLists {
  type: string | null;
}

/** The longest query word search_prefix_counts (0045) has counters for. */
const COUNTED_PREFIX = 12;

/**
 * List search in three steps, each served by an index, each asked only when the one before finds
 * nothing: full-text prefix matches; names that hold the query (substring); names similar to it
 * (misspellings, by trigram word similarity). Prefix matches come in three tiers: the exact name,
 * then names that start with the query in name order, then the rest (an alias, a later word)
 * newest first. The first two are read in the order of a name index (migration 0023), so a first
 * page stops after its rows however many names share the prefix; the third is only read when the
 * page reaches it. Substring matches come newest first, similar names most similar first.
 *
 * The total is exact. A page that is not full is its own total; otherwise the matches are counted
 * from `search_prefix_counts` where `prefixes` is given and the query is one plain word of at most
 * COUNTED_PREFIX letters (a few counters, however many match), else from `search_terms` (a btree of
 * the records' words: an index-only range per query word) where the query is plain lower-case ASCII
 * words and `indexed` is given, else from the text index.
 *
 * `where` and `params` filter the list; `scope` is the same filter as the tier function's first
 * arguments (see SEARCHED).
 */
export async function searchedList(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  where: string[],
  params: unknown[],
  scope: unknown[],
  search: string,
  page: PageRequest,
  indexed?: IndexedLists,
  prefixes?: PrefixCounted,
): Promise<Listing<Row>> {
  const { table, vector, text } = SEARCHED[alias];
  const from = (match: string) => `from ${table} ${alias} where ${[...fenced(where), match].join(" and ")}`;
  const words = queryWords(search).slice(0, 16);
  const plainWords = words.length > 0 && words.every((word) => /^[a-z0-9]+$/.test(word));
  const plain = indexed && plainWords ? indexed : undefined;
  const counted = prefixes && plainWords && words.length === 1 && words[0]!.length <= COUNTED_PREFIX ? prefixes : undefined;
  const tsquery = prefixQuery(search);
  const typed = search.trim().toLowerCase();
  // Plain words as typed: the step after the prefix step can ride on its statement (see firstSteps).
  const asTyped = plain && typed === words.join(" ") ? plain : undefined;
  let substring: Listing<Row> | undefined;
  let similar: Listing<Row> | undefined;
  // The first words end a word and the others start one (firstSteps asked): the text step is next.
  let textStep = false;
  if (tsquery) {
    const known = plain
      ? { indexed: plain, words, gate: true }
      : prefixes?.type && plainWords
      ? { indexed: prefixes as IndexedLists, words: [prefixes.type.toLowerCase(), ...words], gate: false }
      : undefined;
    const first = asTyped
      ? await firstSteps(db, columns, alias, scope, tsquery, search.toLowerCase(), page, asTyped, words, search)
      : { step: "prefix" as const, rows: await tieredPage(db, columns, alias, scope, tsquery, search.toLowerCase(), page, known) };
    if (first.step === "prefix") {
      const total = await pageTotal(first.rows, page, () =>
        counted ? countPrefix(db, counted, words[0]!) : plain ? countWords(db, plain, words) : count(db, from(`${vector} @@ to_tsquery('simple', $${params.length + 1})`), [...params, tsquery]));
      if (total > 0) return { rows: first.rows, total };
    } else if (first.step === "containing") {
      substring = { rows: first.rows, total: await containingTotal(db, first.rows, asTyped!, words[0]!, page) };
    } else if (first.step === "similar") {
      substring = { rows: [], total: 0 };
      // An empty page past the end does not carry the total: the step is asked on its own then.
      if (first.rows.length || page.page === 1) similar = { rows: first.rows, total: first.rows.length ? Number(first.rows[0]!.total_count) : 0 };
    }
    textStep = first.step === "substring";
  }
  substring ??= asTyped && words.length === 1
    ? await wordsContaining(db, columns, alias, asTyped, words[0]!, page)
    : asTyped && !textStep && !(await wordsKnown(db, asTyped, words, true))
    ? { rows: [], total: 0 }
    : await rankedPage(db, columns, alias, `${alias}.id, ${alias}.created_at, 0 as rank`, from(`${text} ilike $${params.length + 1}`), ["rank"], [...params, likePattern(search)], page);
  if (substring.total > 0) return substring;
  if (plain) {
    similar ??= await similarFromVocabulary(db, columns, alias, plain, words, search, page);
    if (similar.total > 0) return similar;
  }
  const q = params.length + 1;
  return rankedPage(db, columns, alias, `${alias}.id, ${alias}.created_at, word_similarity($${q}, ${text}) as rank`, from(`$${q} <% ${text}`), ["rank"], [...params, search], page);
}

/**
 * The conditions with the campaign out of reach of every btree (`campaign_id || ''`), for the
 * statements whose way in must be a text or trigram index: without statistics (a campaign imported
 * record by record and read before any ANALYZE) the planner took the campaign's btree and tested
 * every row of the campaign (whole campaign read for 87 hits). As in search_ranked (0028).
 */
const fenced = (where: string[]) => where.map((clause) => clause.replace(/^(\w+)\.campaign_id = (\$\d+)$/, "$1.campaign_id || '' = $2"));

/** A page's total: a page that is not full (and not past the end) is its own; otherwise `counted()`. */
const pageTotal = async (rows: Row[], page: PageRequest, counted: () => Promise<number>): Promise<number> =>
  rows.length > 0 && rows.length < page.size ? offsetOf(page) + rows.length : rows.length === 0 && page.page === 1 ? 0 : counted();

const count = async (db: SqlExecutor, from: string, params: unknown[]): Promise<number> =>
  Number((await db.query(`select count(*)::int as n ${from}`, params))[0]!.n);

const listsParam = (indexed: IndexedLists) => indexed.lists.join(",");

/**
 * How many records of the lists have, for every word, a word starting with it: one index range of
 * `search_terms` per word (intersected), never the records' rows.
 */
async function countWords(db: SqlExecutor, indexed: IndexedLists, words: string[]): Promise<number> {
  // search_terms_count (migration 0026): the ranges counted in one call, planned once per connection.
  const [row] = await db.query(`select search_terms_count($1, $2, $3::text[], $4::text[]) as n`, [indexed.campaignId, listsParam(indexed), words, words.map(prefixEnd)]);
  return Number(row!.n);
}

/**
 * How many records of the lists (of the type, if any) hold a word starting with `word`: the sum of
 * its counters (one per list and type, migration 0045), never the matches.
 */
async function countPrefix(db: SqlExecutor, counted: PrefixCounted, word: string): Promise<number> {
  // A statement per number of lists, with or without the type: `($4 is null or p.type = $4)` and an
  // array of unknown length (`string_to_array`) made the kept plan look dear, and each call was planned anew.
  const lists = counted.lists.map((_, i) => `$${i + 3}`).join(", ");
  const type = counted.type === null ? "" : ` and p.type = $${counted.lists.length + 3}`;
  const [row] = await db.query(
    `select coalesce(sum(p.n), 0)::int as n from search_prefix_counts p
     where p.campaign_id = $1 and p.prefix = $2 and p.list = any (array[${lists}]::text[])${type}`,
    [counted.campaignId, word, ...counted.lists, ...(counted.type === null ? [] : [counted.type])],
  );
  return Number(row!.n);
}

/** The end of the range of words ending with `word`, in the index of words spelt backwards (migration 0035). */
const reversedPrefixEnd = (word: string) => prefixEnd([...word].reverse().join(""));

/**
 * Whether the lists' vocabulary lets the query match (`search_words_known`, migration 0035): every
 * word starts a word of the lists (the prefix step's tsquery); with `suffixFirst`, the first word ends
 * one instead (the substring step: the text holds the words in a row). A few index ranges, so a typo
 * skips steps that cannot find it (the substring statement was planned anew on every call).
 */
async function wordsKnown(db: SqlExecutor, indexed: IndexedLists, words: string[], suffixFirst: boolean): Promise<boolean> {
  const [row] = await db.query(`select search_words_known($1, $2, $3::text[], $4::text[], $5, $6) as known`, [
    indexed.campaignId, listsParam(indexed), words, words.map(prefixEnd), suffixFirst, reversedPrefixEnd(words[0]!),
  ]);
  return row!.known === true;
}

/**
 * Records with a word that holds `word`, newest first, with their exact number: the campaign's words
 * that hold it (trigram index of `search_vocabulary`), then each word's newest records from
 * `search_terms` (only the page's rows are read from the table). The page of ids and the total are
 * `search_words_containing` (migration 0031: the total from per-word counters less the records
 * holding two of the words, the page from each word's newest offset + size records; planned once
 * per connection).
 */
async function wordsContaining(db: SqlExecutor, columns: string, alias: keyof typeof SEARCHED, indexed: IndexedLists, word: string, page: PageRequest): Promise<Listing<Row>> {
  const rows = await db.query(
    `select ${columns}, h.total_count
     ${containingFrom(alias, "$1", "$2", "$3", "$4", "$5")}`,
    [indexed.campaignId, listsParam(indexed), word, page.size, offsetOf(page)],
  );
  return { rows, total: await containingTotal(db, rows, indexed, word, page) };
}

/** The substring step's page of `search_words_containing`, newest first: its rows carry the total. */
const containingFrom = (alias: keyof typeof SEARCHED, campaign: string, lists: string, word: string, size: string, offset: string, where = "") =>
  `from search_words_containing(${campaign}, ${lists}, ${word}, ${size}, ${offset}) h
   join ${SEARCHED[alias].table} ${alias} on ${alias}.id = h.record_id ${where}
   order by h.created_at desc, h.record_id collate "C" desc`;

/** Past the last page there are no rows to carry the total: the first row of the first page carries it. */
const containingTotal = (db: SqlExecutor, rows: Row[], indexed: IndexedLists, word: string, page: PageRequest) =>
  totalOf(db, rows, "", [indexed.campaignId, listsParam(indexed), word], page, `coalesce((select h.total_count from search_words_containing($1, $2, $3, 1, 0) h), 0)`);

/**
 * Plain words' prefix step, and the step after it, in one statement. The prefix tiers run where the
 * lists' vocabulary has, for every word, a word starting with it (search_words_known, migration
 * 0035); where it has not, the prefix step cannot match, and the statement reads the next step
 * instead: for one word the substring step's page (`containing`); for several, where the first word
 * also ends no word (so the text cannot hold them in a row), the similar names' page (`similar`),
 * else nothing (`substring`: the caller's text step). Each step was a statement of its own, the
 * first ones empty, and a statement cost about 0.1-0.2 ms of the service's CPU (issue 15: the
 * substring and misspelled-name scenarios had the highest CPU a request of the list searches and a
 * p99 over 25 ms). Without a page's row the statement still returns one row, which names the step.
 */
async function firstSteps(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  scope: unknown[],
  tsquery: string,
  lowered: string,
  page: PageRequest,
  indexed: IndexedLists,
  words: string[],
  search: string,
): Promise<{ step: "prefix" | "containing" | "similar" | "substring"; rows: Row[] }> {
  const n = scope.length;
  const p = (i: number) => `$${n + i}`;
  const tier = tierSelect(`${columns}, null::int as total_count, true as found`, alias, scope, tsquery, lowered, page, true);
  // The next step reads the same page: the tiers' size and offset ($n+7, $n+8).
  const [campaign, lists, size, offset] = [p(11), p(12), `${p(7)}::int`, `${p(8)}::int`];
  const oneWord = words.length === 1;
  const next = oneWord
    ? `select ${columns}, h.total_count, true as found ${containingFrom(alias, campaign, lists, `(${p(9)}::text[])[1]`, size, offset, "where not k.prefix_known")}`
    : rankedSql(columns, alias, "t.record_id as id, t.created_at, t.score, t.similarity",
        `from search_similar_names('${SEARCHED[alias].table}', ${campaign}, ${lists}, ${p(9)}::text[], ${p(13)}, ${NEAR_WORDS}, ${SIMILAR_CANDIDATES}) t
         where not k.prefix_known and not k.suffix_known`,
        SIMILAR_RANKS, size, offset, ", true as found");
  const rows = await db.query(
    `with k as materialized (
       select w.prefix_known,
         ${oneWord ? "null::boolean" : `case when not w.prefix_known then search_words_known(${campaign}, ${lists}, ${p(9)}::text[], ${p(10)}::text[], true, ${p(14)}) end`} as suffix_known
       from (select search_words_known(${campaign}, ${lists}, ${p(9)}::text[], ${p(10)}::text[], false, null) as prefix_known offset 0) w)
     select k.prefix_known, k.suffix_known, p.* from k left join lateral (
       (${tier.select} where k.prefix_known ${tier.limit})
       union all
       (${next})
     ) p on true`,
    [
      ...tier.params, words, words.map(prefixEnd), indexed.campaignId, listsParam(indexed),
      ...(oneWord ? [] : [search, reversedPrefixEnd(words[0]!)]),
    ],
  );
  const { prefix_known: prefixKnown, suffix_known: suffixKnown, found } = rows[0]!;
  const step = prefixKnown === true ? "prefix" : oneWord ? "containing" : suffixKnown === true ? "substring" : "similar";
  return { step, rows: found ? rows : [] };
}

/** How many of the vocabulary's words nearest to each query word the similar-names step takes. */
const NEAR_WORDS = 8;
/** How many records, best scored by their nearest words, the similar-names step checks and ranks. */
const SIMILAR_CANDIDATES = 50;

/**
 * Similar names from the campaign's vocabulary, not its records (`search_similar_names`, migration
 * 0030): per query word, the word itself if the lists hold it, else the lists' NEAR_WORDS words
 * nearest to it (trigram similarity >= 0.4); the records holding them (`search_terms`), scored by
 * the sum over query words of their nearest word's similarity; the best SIMILAR_CANDIDATES checked
 * with `<%` on their text, ranked by that score, then by word similarity. The total counts the
 * candidates that pass: exact for the set returned, at most SIMILAR_CANDIDATES records. A full `<%`
 * read trigram posting lists that grow with the campaign; the caller falls back to it when this
 * finds nothing.
 */
async function similarFromVocabulary(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  indexed: IndexedLists,
  words: string[],
  search: string,
  page: PageRequest,
): Promise<Listing<Row>> {
  const params = [SEARCHED[alias].table, indexed.campaignId, listsParam(indexed), words, search];
  const from = `from search_similar_names($1, $2, $3, $4::text[], $5, ${NEAR_WORDS}, ${SIMILAR_CANDIDATES}) t`;
  return rankedPage(db, columns, alias, "t.record_id as id, t.created_at, t.score, t.similarity", from, SIMILAR_RANKS, params, page);
}

// Ranked by the score, then word similarity: word similarity alone put "Vexlia Radra" (0.611)
// before "Vexqualia Radra" (0.600) for "Vexqaulia Radra".
const SIMILAR_RANKS = ["score", "similarity"];

/**
 * A page of full-text prefix matches in tiers (see searchedList). The tiers split the matches
 * exactly: the name starts with the query (exact name first, then by name) or it does not. Each
 * tier is asked only while the page is not full and reads at most what the page still needs
 * (`offset + size` rows in all), so a page that is not full holds every match. The tiers are
 * statements of `search_character_names` / `search_entity_names` (migration 0026), planned once per
 * connection: the name tiers as ordered scans of a name index, the last tier (another word, an
 * alias) from the text index.
 */
async function tieredPage(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  scope: unknown[],
  tsquery: string,
  lowered: string,
  page: PageRequest,
  known?: { indexed: IndexedLists; words: string[]; gate: boolean },
): Promise<Row[]> {
  const n = scope.length;
  // The words and their prefix ends also let the last tier look up word pairs (migration 0041);
  // without them (not plain words, a filter the vocabulary does not know) it reads the text index.
  const tier = tierSelect(columns, alias, scope, tsquery, lowered, page, known !== undefined);
  // Where the vocabulary can tell (search_words_known, migration 0035), a query word that starts no
  // word of the lists stops the statement before the tiers run (a one-time filter): a typo's step.
  // (Not with a type filter: the lists' vocabulary is every type's, and `words` then holds the type's word.)
  const gate = known?.gate
    ? ` where search_words_known($${n + 11}, $${n + 12}, $${n + 9}::text[], $${n + 10}::text[], false, null)`
    : "";
  return db.query(
    `${tier.select}${gate} ${tier.limit}`,
    known
      ? [...tier.params, known.words, known.words.map(prefixEnd), ...(known.gate ? [known.indexed.campaignId, listsParam(known.indexed)] : [])]
      : tier.params,
  );
}

/**
 * The tiers' call, `select <columns> from <tiers>(…) <alias>`, its LIMIT/OFFSET, and its parameters
 * $1…$n+8 for a scope of n: the scope, the query and its bounds, the rows the tiers may read, and the
 * page's size and offset ($n+7, $n+8). With `words`, $n+9 and $n+10 (the caller's to send) are the
 * query words and their prefix ends, for the last tier's word pairs (migration 0041).
 */
function tierSelect(columns: string, alias: keyof typeof SEARCHED, scope: unknown[], tsquery: string, lowered: string, page: PageRequest, words: boolean) {
  const n = scope.length;
  const args = [
    ...scope.map((_, i) => `$${i + 1}`), `to_tsquery('simple', $${n + 1})`, ...[2, 3, 4, 5, 6].map((i) => `$${n + i}`),
    ...(words ? [`$${n + 9}::text[]`, `$${n + 10}::text[]`] : ["null", "null"]),
  ];
  return {
    select: `select ${columns} from ${SEARCHED[alias].tiers}(${args.join(", ")}) ${alias}`,
    limit: `limit $${n + 7} offset $${n + 8}`,
    params: [...scope, tsquery, lowered, lowered, prefixEnd(lowered), likePattern(lowered).slice(1), offsetOf(page) + page.size, page.size, offsetOf(page)],
  };
}

/**
 * A page of ranked matches. Every match must be ranked and counted, but only the page's rows are
 * needed whole: ranking, counting and cutting narrow rows (`narrow`: `id`, `created_at` and the
 * `ranks` columns, from `from`), then reading the page's rows by id, did the same work in about two
 * thirds of the time of sorting whole rows. Order: `ranks` descending, then newest, then id.
 */
async function rankedPage(
  db: SqlExecutor,
  columns: string,
  alias: keyof typeof SEARCHED,
  narrow: string,
  from: string,
  ranks: string[],
  params: unknown[],
  page: PageRequest,
): Promise<Listing<Row>> {
  const rows = await db.query(rankedSql(columns, alias, narrow, from, ranks, `$${params.length + 1}`, `$${params.length + 2}`), [...params, page.size, offsetOf(page)]);
  return { rows, total: await totalOf(db, rows, from, params, page) };
}

/** rankedPage's statement: `limit` and `offset` are its parameters, `extra` more output columns. */
function rankedSql(columns: string, alias: keyof typeof SEARCHED, narrow: string, from: string, ranks: string[], limit: string, offset: string, extra = ""): string {
  // Bare names in the inner ORDER BY are the narrow select's output columns.
  const order = (prefix: string) => [...ranks, "created_at", "id"].map((key) => `${prefix}${key} desc`).join(", ");
  return `select ${columns}, p.total_count${extra}
     from (select ${narrow}, count(*) over ()::int as total_count ${from}
           order by ${order("")} limit ${limit} offset ${offset}) p
     join ${SEARCHED[alias].table} ${alias} on ${alias}.id = p.id
     order by ${order("p.")}`;
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
      // One call, its stages each asked only when the one before found nothing (search_cross_type,
      // migration 0042). Full text first (title words by prefix, body words stemmed): two stages, so
      // a word in a quarter of the campaign does not rank a quarter of the campaign — per type, at
      // most CANDIDATES documents whose title matches and as many whose text does, then ts_rank over
      // those alone (search_ranked, migration 0028). Title hits outrank body hits (weight A over B),
      // so the best are among the candidates; below CANDIDATES hits a type's answer is exactly the
      // full ranking. For plain words the stage is skipped when a word starts no title word of the
      // campaign and no document matches the text query (a misspelt name). Then titles holding the
      // query (score 1 + word similarity) and similar titles from the title vocabulary (migrations
      // 0030, 0035: scored by how near their words are to the query's, word similarity breaking
      // ties, so the misspelt name comes first); the titles-holding half is skipped when no title
      // can hold the query (search_title_words_known, 0035). Last, every title by word similarity
      // (search_similar, 0021: the title trigram index, never a table scan). Snippets are cut here:
      // ts_headline cost as much as the rest. Documents with a visibility facet (journal entries)
      // show only to those the journal rule lets see them (search_visible, migration 0015).
      const words = queryWords(query);
      const first = words.slice(0, 16);
      // Plain words are what the title vocabulary can answer for (to_tsvector('simple') keeps them whole).
      const plain = first.length > 0 && first.every((word) => /^[a-z0-9]{1,64}$/.test(word));
      // The query as typed, several plain words: a title holding it ends a word with the first and
      // starts words with the others.
      const gated = words.length > 1 && words.length <= 16 && words.every((word) => /^[a-z0-9]+$/.test(word)) && query.trim().toLowerCase() === words.join(" ");
      const rows = await db.query(
        `select doc_type, doc_id, title, body, rank, score
         from search_cross_type($1, $2, $3, to_tsquery('simple', $4), $5::text[], $6::text[], $7, $8, $9, $10, $11, $12, ${CANDIDATES}, ${NEAR_WORDS})`,
        [campaignId, docTypes.join(","), query, prefixQuery(query), first, first.map(prefixEnd), plain,
          gated, gated ? reversedPrefixEnd(words[0]!) : null, likePattern(query), viewerId, perType],
      );
      const hits = new Map<string, SearchHit[]>();
      for (const row of rows) {
        const hit = { doc_type: str(row.doc_type), doc_id: str(row.doc_id), title: str(row.title), snippet: searchSnippet(str(row.body), words), score: Math.round(Number(row.rank ?? row.score) * 1000) / 1000 };
        (hits.get(hit.doc_type) ?? hits.set(hit.doc_type, []).get(hit.doc_type)!).push(hit);
      }
      return hits;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { search: searchIndex } satisfies SqlRepositories;
