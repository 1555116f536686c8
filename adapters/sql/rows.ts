// Row helpers every SQL repository uses: value conversion, read locks, unique violations, paged queries, search pages.
import { offsetOf, type PageRequest } from "../../domain/pagination.ts";
import type { Listing, ReadOptions } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";

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
/** A lock not granted within the statement's `lock_timeout` (SQLSTATE 55P03). */
export const isLockTimeout = (error: unknown): boolean => (error as { code?: string } | null)?.code === "55P03";
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The total a page's rows carry; a page past the end has none, so it asks. */
export const totalOf = async (db: SqlExecutor, rows: Row[], from: string, params: unknown[], page: PageRequest, count?: string): Promise<number> =>
  rows.length
    ? Number(rows[0]!.total_count)
    : page.page > 1
      ? Number((await db.query(`select ${count ?? `(select count(*) ${from})`}::int as n`, params))[0]!.n)
      : 0;

/**
 * The total of an unfiltered list: the campaign's counter for the kind (migration 0015), kept exact
 * by triggers in the writing transaction, so the total costs one index read however big the
 * campaign. `campaignParam` is the `$n` holding the campaign id.
 */
export const counted = (campaignParam: string, kind: string) =>
  `coalesce((select n from record_counts where campaign_id = ${campaignParam} and kind = '${kind}'), 0)`;

/**
 * The total of a list filtered by one enumerated column (migration 0029): the counter named by the
 * prefix and the value the client sent (`valueParam`); a value no row has has no counter, so 0.
 */
export const countedBy = (campaignParam: string, prefix: string, valueParam: string) =>
  `coalesce((select n from record_counts where campaign_id = ${campaignParam} and kind = '${prefix}' || ${valueParam}::text), 0)`;

/**
 * A page's LIMIT/OFFSET: parameters from `$at`, or, for the first page of a whole list
 * (`wholeList`), its size written into the statement. PostgreSQL cannot estimate a LIMIT or OFFSET
 * that is a parameter in a generic plan (it assumes a tenth of the rows), so the generic plan of a
 * parameterised page looked dear beside a custom one and every call was planned anew: most of
 * PostgreSQL's CPU for a list's first page (issue 15, 100k: links 0.53-0.65 ms a call, 0.11-0.16
 * with its plan kept). Only for a whole list, read in the order of an index led by its equality
 * columns: that plan is the best for every campaign, so a kept (generic) plan is safe. A filter's
 * value can make another index the better one (links of a type none has: the campaign's index read
 * whole, 1 s at 500k, in the generic plan), so filtered pages stay planned per call.
 */
export const pageLimit = (page: PageRequest, at: number, wholeList: boolean): { limit: string; limitParams: number[] } =>
  wholeList && offsetOf(page) === 0 && Number.isSafeInteger(page.size) && page.size > 0
    ? { limit: `limit ${page.size}`, limitParams: [] }
    : { limit: `limit $${at} offset $${at + 1}`, limitParams: [page.size, offsetOf(page)] };

/**
 * Runs a paged query with the total. The total is a separate count in the same statement (run
 * once), so the page itself can stop after `size` rows read in index order; a `count(*) over ()`
 * would make every page read, and keep, every row of the campaign. `count`, when given, is the
 * total's SQL (a maintained counter, see `counted`) in place of counting `from`. A page past the end
 * asks once more for the total. (Ranked searches, which see every match anyway: `rankedPage`.)
 * `wholeList`: see pageLimit.
 */
export async function paged(db: SqlExecutor, select: string, from: string, order: string, params: unknown[], page: PageRequest, count?: string, wholeList = false): Promise<Listing<Row>> {
  const { limit, limitParams } = pageLimit(page, params.length + 1, wholeList);
  const rows = await db.query(
    `select ${select}, ${count ?? `(select count(*) ${from})`}::int as total_count ${from} order by ${order} ${limit}`,
    [...params, ...limitParams],
  );
  return { rows, total: await totalOf(db, rows, from, params, page, count) };
}

/**
 * A page from a search function that returns (id, total) in order, or one row (null, total) for an empty
 * page (quest_search_page, moment_search_page, recap_search_page): `call` is the function's call, `table`
 * the records' table and `columns` its columns as alias `r`. Each record is read by key (`limit 1` keeps
 * the planner from hashing the whole table); the total is the first row's.
 */
export async function searchedPage(db: SqlExecutor, call: string, table: string, columns: string, params: unknown[]): Promise<{ rows: Row[]; total: number }> {
  const rows = await db.query(
    `select ${columns}, f.total from ${call} with ordinality f
     left join lateral (select * from ${table} where ${table}.id = f.id limit 1) r on true order by f.ordinality`,
    params,
  );
  return { rows: rows.filter((row) => row.id != null), total: Number(rows[0]?.total ?? 0) };
}

export const num = (value: unknown) => Number(value);

/** A query's conditions and their parameters; each value gets the next `$n`, which `clause` is given. */
export class Where {
  readonly clauses: string[] = [];
  /** `params`: values the query numbers itself ($1…) before the conditions'. */
  constructor(readonly params: unknown[] = []) {}
  add(value: unknown, clause: (param: string) => string): this {
    this.params.push(value);
    this.clauses.push(clause(`$${this.params.length}`));
    return this;
  }
  /** A condition without a parameter. */
  also(clause: string): this {
    this.clauses.push(clause);
    return this;
  }
  get sql(): string {
    return this.clauses.join(" and ") || "true";
  }
}
