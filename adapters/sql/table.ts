// A table declared once (its columns with their codecs): the row mapper, the select list, the insert
// and update statements and their parameters all follow from it, and `crud` gives the plain kinds
// insert, get, replace and delete. Bespoke queries (lists, search, visibility) stay hand-written.
import type { OwnedKind, ReadOptions } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, jsonOrNull, lockClause, num, str, strOrNull } from "./rows.ts";

/** How one column's value is read from a row and written as a parameter (`cast` follows the `$n`). */
export interface Codec<V> {
  decode(value: unknown): V;
  encode(value: V): unknown;
  cast: string;
}

const codec = <V>(decode: (value: unknown) => V, encode: (value: V) => unknown = (value) => value, cast = ""): Codec<V> => ({ decode, encode, cast });

export const text = codec(str);
export const textOrNull = codec(strOrNull);
/** A text column holding one of a union of strings (the database's check constraint keeps it so). */
export const oneOf = <S extends string>() => codec((value) => str(value) as S);
export const integer = codec(num);
export const integerOrNull = codec((value) => (value == null ? null : num(value)));
export const boolean = codec(Boolean);
export const timestamptz = codec(iso, (value) => value, "::timestamptz");
export const timestamptzOrNull = codec(isoOrNull, (value) => value, "::timestamptz");
/** A jsonb array of strings (aliases, categories, session ids). */
export const textList = codec(jsonArray, json, "::text::jsonb");
/** A jsonb array of a union of strings (OAuth scopes): the writer only ever stores members. */
export const oneOfList = <S extends string>() => codec((value) => jsonArray(value) as S[], json, "::text::jsonb");
/** A jsonb value the writer never leaves null, of the type it wrote (a task's payload). */
export const jsonOf = <V>() => codec((value) => value as V, json, "::text::jsonb");
/** A jsonb value; a database null reads as (a copy of) `fallback`. */
export const jsonb = <V>(fallback: V) =>
  // A null or plain fallback is answered as it is: structuredClone (even of null) cost ~2 % of a journal list's CPU.
  fallback === null || typeof fallback !== "object"
    ? codec((value) => (value ?? fallback) as V, jsonOrNull, "::text::jsonb")
    : codec((value) => (value ?? structuredClone(fallback)) as V, jsonOrNull, "::text::jsonb");

/** The columns every campaign record starts with, and those it ends with (in this order: records are answered as read). */
export const campaignRecord = { id: text, campaign_id: text };
export const timestamps = { created_at: timestamptz, updated_at: timestamptzOrNull };

/** A column written from the record (or a write's extra value) but not read back: search text, a card image. */
export interface WrittenColumn<T, W> {
  value(record: T, extra: W): unknown;
  /** The SQL for the parameter `$n`; by default just `$n`. */
  placeholder?: (param: string) => string;
}

export interface TableOptions<T, W> {
  /**
   * The kinds operations address by id in this table (see `AddressedKinds`): the owner lookup finds
   * their campaign here. A table holding several kinds names each with the condition that picks it.
   */
  addressedAs?: OwnedKind | { [K in OwnedKind]?: string };
  written?: Record<string, WrittenColumn<T, W>>;
  /** The columns `replace` writes; by default every column but `id`. */
  replaced?: readonly (keyof T & string)[];
}

/** A record's columns, each with its codec. */
export type Codecs<T> = { [K in keyof T]-?: Codec<T[K]> };

/** The row mapper alone: for rows read through joins, or from tables keyed by something else than an id. */
export function recordOf<T>(codecs: Codecs<T>): (row: Row) => T {
  const read = Object.keys(codecs) as (keyof T & string)[];
  // One object literal per row, built by a function made once per table: every record of a table
  // then has one shape, which the mapping itself, later spreads and JSON.stringify all run faster on
  // (Object.fromEntries over pairs was ~15 % of a list page's CPU). Same keys, same order.
  const decoders = read.map((column) => codecs[column].decode);
  const fields = read.map((column, i) => `${JSON.stringify(column)}: decoders[${i}](row[${JSON.stringify(column)}])`);
  return new Function("decoders", `return (row) => ({ ${fields.join(", ")} });`)(decoders) as (row: Row) => T;
}

export interface Table<T, W = void> {
  name: string;
  /** The select list of the read columns, qualified by `alias` when given. */
  columns(alias?: string): string;
  toRecord(row: Row): T;
  insertSql: string;
  insertParams(record: T, extra: W): unknown[];
  /** `update … where id = $1`. */
  replaceSql: string;
  replaceParams(record: T, extra: W): unknown[];
}

/** Where each kind addressed by id is read: `<table> where id = $1 [and <condition>]`, filled as tables are declared. */
const addressed = new Map<string, string>();

/** The `from` clause (without `from`) that finds one record of the kind by id, or undefined for a kind no table declared. */
export const addressedSource = (kind: string): string | undefined => addressed.get(kind);

/** The kinds the declared tables address, for the registration test. */
export const addressedKinds = (): string[] => [...addressed.keys()].sort();

function registerAddressed(name: string, addressedAs: NonNullable<TableOptions<unknown, unknown>["addressedAs"]>): void {
  const conditions: [string, string | undefined][] = typeof addressedAs === "string" ? [[addressedAs, undefined]] : Object.entries(addressedAs);
  for (const [kind, condition] of conditions) {
    const source = `${name} where id = $1${condition ? ` and ${condition}` : ""}`;
    const known = addressed.get(kind);
    if (known !== undefined && known !== source) throw new Error(`Two tables declare they hold "${kind}": ${known} and ${source}`);
    addressed.set(kind, source);
  }
}

export function table<T extends { id: string }, W = void>(
  name: string,
  codecs: Codecs<T>,
  options: TableOptions<T, W> = {},
): Table<T, W> {
  const read = Object.keys(codecs) as (keyof T & string)[];
  const written = Object.entries(options.written ?? {});
  const placeholder = (column: string, at: number) => {
    const extra = options.written?.[column];
    if (extra) return extra.placeholder ? extra.placeholder(`$${at}`) : `$${at}`;
    return `$${at}${codecs[column as keyof T].cast}`;
  };
  const valueOf = (record: T, extra: W, column: string) => {
    const writtenColumn = options.written?.[column];
    if (writtenColumn) return writtenColumn.value(record, extra);
    const key = column as keyof T;
    return codecs[key].encode(record[key]);
  };
  if (options.addressedAs) registerAddressed(name, options.addressedAs);
  const insertColumns = [...read, ...written.map(([column]) => column)];
  const selectLists: Record<string, string> = {};
  const replaced = ["id", ...(options.replaced ?? read.filter((column) => column !== "id")), ...(options.replaced ? [] : written.map(([column]) => column))];
  return {
    name,
    // Asked on every list and get: made once per alias.
    columns: (alias = "") => (selectLists[alias] ??= read.map((column) => (alias ? `${alias}.${column}` : column)).join(", ")),
    toRecord: recordOf(codecs),
    insertSql: `insert into ${name} (${insertColumns.join(", ")}) values (${insertColumns.map((column, i) => placeholder(column, i + 1)).join(", ")})`,
    insertParams: (record, extra) => insertColumns.map((column) => valueOf(record, extra, column)),
    replaceSql: `update ${name} set ${replaced
      .slice(1)
      .map((column, i) => `${column} = ${placeholder(column, i + 2)}`)
      .join(", ")} where id = $1`,
    replaceParams: (record, extra) => replaced.map((column) => valueOf(record, extra, column)),
  };
}

/** Insert, get (with the read lock option), replace and delete by id: what every plain kind's repository starts from. */
export function crud<T extends { id: string }, W = void>(db: SqlExecutor, t: Table<T, W>) {
  return {
    async insert(record: T, extra: W): Promise<void> {
      await db.query(t.insertSql, t.insertParams(record, extra));
    },
    async replace(record: T, extra: W): Promise<void> {
      await db.query(t.replaceSql, t.replaceParams(record, extra));
    },
    async get(id: string, options?: ReadOptions): Promise<T | null> {
      const [row] = await db.query(`select ${t.columns()} from ${t.name} where id = $1${lockClause(options)}`, [id]);
      return row ? t.toRecord(row) : null;
    },
    async delete(id: string): Promise<boolean> {
      return (await db.query(`delete from ${t.name} where id = $1 returning id`, [id])).length > 0;
    },
  };
}

/**
 * A record's chain of parents, child first, as id → parent id; one recursive query that stops at a
 * cycle (and at a depth no real tree reaches), so a corrupt tree cannot loop.
 */
export async function ancestry(db: SqlExecutor, tableName: string, id: string): Promise<Map<string, string | null>> {
  const rows = await db.query(
    `with recursive up(id, parent_id, depth) as (
       select id, parent_id, 0 from ${tableName} where id = $1
       union all
       select t.id, t.parent_id, up.depth + 1 from ${tableName} t join up on t.id = up.parent_id where up.depth < 10000
     ) cycle id set looped using path
     select id, parent_id from up`,
    [id],
  );
  return new Map(rows.map((row) => [str(row.id), strOrNull(row.parent_id)]));
}
