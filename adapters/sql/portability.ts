// Whole-campaign export and import on SQL: every table of a campaign as JSON rows (to_jsonb), read
// through server-side cursors inside one repeatable-read snapshot, and written back with
// jsonb_populate_recordset in one transaction.
import type { ExportOptions, ImportedJournalChunk, ImportProblem, ImportSection, PortabilityStore, PortableBatch, PortableRow } from "../../ports/records/portability.ts";
import type { SqlDatabase, SqlExecutor } from "./database.ts";
import { indexTranscripts } from "./retrieval.ts";

interface Section {
  name: string;
  table: string;
  /** FROM … WHERE … ORDER BY, with `t` the table; :campaign and :viewer are replaced by literals. */
  from: string;
  /** Columns referring to rows of the same table: written after every row exists. */
  selfRefs?: string[];
  /** Derived columns left out of the export. */
  omit?: string[];
}

/** What a viewer may read of a journal entry `e` (null viewer: everything). */
const ENTRY_VISIBLE = (e: string) =>
  `(:viewer::text is null or ${e}.is_public or ${e}.author_id = :viewer or exists (select 1 from journal_shares vs where vs.entry_id = ${e}.id and vs.user_id = :viewer))`;
const hiddenEntry = (id: string) => `exists (select 1 from journal_entries he where he.id = ${id} and not ${ENTRY_VISIBLE("he")})`;

const by = (table: string, extra = "", order = "t.created_at, t.id") => `${table} t where t.campaign_id = :campaign ${extra} order by ${order}`;

/** In write order: every row's references are to rows of earlier sections (or its own, via selfRefs). */
const SECTIONS: Section[] = [
  { name: "campaign", table: "campaigns", from: "campaigns t where t.id = :campaign" },
  { name: "settings", table: "campaign_settings", from: by("campaign_settings", "", "t.campaign_id") },
  { name: "field_definitions", table: "field_definitions", from: by("field_definitions", "", "t.entity_type, t.position, t.id") },
  { name: "members", table: "campaign_members", from: by("campaign_members", "", "t.created_at, t.user_id") },
  { name: "speakers", table: "speakers", from: by("speakers") },
  { name: "characters", table: "characters", from: by("characters"), omit: ["search_vector"] },
  ...(["faction", "location", "item"] as const).map((kind) => ({
    name: `${kind}s`,
    table: "entities",
    from: by("entities", `and t.kind = '${kind}'`),
    selfRefs: ["parent_id"],
    omit: ["search_vector"],
  })),
  { name: "sessions", table: "sessions", from: by("sessions") },
  { name: "transcripts", table: "transcripts", from: by("transcripts", "", "t.created_at, t.session_id") },
  {
    name: "transcript_utterances",
    table: "transcript_utterances",
    from: "transcript_utterances t join sessions s on s.id = t.session_id where s.campaign_id = :campaign order by s.created_at, s.id, t.position",
  },
  { name: "cast_analyses", table: "cast_analyses", from: by("cast_analyses") },
  { name: "handouts", table: "session_handouts", from: by("session_handouts", "", "t.created_at, t.session_id") },
  { name: "beats", table: "beats", from: by("beats"), selfRefs: ["parent_id"] },
  { name: "moments", table: "moments", from: by("moments") },
  { name: "recap_pipelines", table: "recap_pipelines", from: by("recap_pipelines") },
  { name: "hero_awards", table: "hero_awards", from: by("hero_awards") },
  { name: "quotes", table: "recap_entries", from: by("recap_entries", "and t.entry_type = 'quote'") },
  { name: "spotlights", table: "recap_entries", from: by("recap_entries", "and t.entry_type = 'spotlight'") },
  { name: "quests", table: "quests", from: by("quests") },
  { name: "journal_folders", table: "journal_folders", from: by("journal_folders", "", "t.path, t.id"), selfRefs: ["parent_id"] },
  { name: "journal_entries", table: "journal_entries", from: by("journal_entries", `and ${ENTRY_VISIBLE("t")}`) },
  {
    name: "journal_shares",
    table: "journal_shares",
    from: `journal_shares t join journal_entries e on e.id = t.entry_id where e.campaign_id = :campaign and ${ENTRY_VISIBLE("e")} order by e.created_at, e.id, t.user_id`,
  },
  { name: "links", table: "links", from: by("links", `and not (t.from_type = 'Journal' and ${hiddenEntry("t.from_id")})`) },
  {
    name: "search_index",
    table: "search_documents",
    from: by("search_documents", `and not (t.doc_type = 'journals' and ${hiddenEntry("t.doc_id")})`, "t.doc_type, t.doc_id"),
    omit: ["search_vector"],
  },
  // Managed images' rows (the bytes travel beside the records with include_images, or are copied on import).
  { name: "images", table: "images", from: by("images", "and t.status = 'ready'", "t.created_at, t.object_key") },
];

const SECTION_BY_NAME = new Map(SECTIONS.map((section) => [section.name, section]));

const literal = (value: string | null) => (value === null ? "null" : `'${value.replaceAll("'", "''")}'`);
const queryOf = (section: Section, campaignId: string, viewerId: string | null) => {
  const omitted = (section.omit ?? []).map((column) => ` - ${literal(column)}`).join("");
  return `select to_jsonb(t)${omitted} as r from ${section.from.replaceAll(":campaign", literal(campaignId)).replaceAll(":viewer", literal(viewerId))}`;
};

/** Hands batches from the transaction that reads them to the consumer, one at a time (back-pressure). */
class Handoff<T> {
  private items: T[] = [];
  private ended = false;
  private failure: unknown = null;
  private cancelled = false;
  private wakeConsumer: (() => void) | null = null;
  private wakeProducer: (() => void) | null = null;

  async put(item: T) {
    if (this.cancelled) throw new Error("export cancelled by its reader");
    this.items.push(item);
    this.wakeConsumer?.();
    while (this.items.length >= 2 && !this.cancelled) await new Promise<void>((resolve) => (this.wakeProducer = resolve));
    if (this.cancelled) throw new Error("export cancelled by its reader");
  }
  end(failure: unknown = null) {
    this.ended = true;
    this.failure = failure;
    this.wakeConsumer?.();
  }
  cancel() {
    this.cancelled = true;
    this.wakeProducer?.();
  }
  async *drain(): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length) {
        const item = this.items.shift()!;
        this.wakeProducer?.();
        yield item;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
      this.wakeConsumer = null;
    }
  }
}

interface Column {
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
  generated: boolean;
}

async function columnsOf(db: SqlExecutor): Promise<Map<string, Map<string, Column>>> {
  const tables = [...new Set(SECTIONS.map((s) => s.table))];
  const rows = await db.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_generated: string; generation_expression: string | null }>(
    `select table_name, column_name, data_type, is_nullable, column_default, is_generated, generation_expression
     from information_schema.columns where table_schema = current_schema() and table_name in (select jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(tables)],
  );
  const byTable = new Map<string, Map<string, Column>>();
  for (const row of rows) {
    if (!byTable.has(row.table_name)) byTable.set(row.table_name, new Map());
    byTable.get(row.table_name)!.set(row.column_name, {
      name: row.column_name,
      type: row.data_type,
      nullable: row.is_nullable === "YES",
      hasDefault: row.column_default !== null,
      generated: row.is_generated === "ALWAYS" || Boolean(row.generation_expression),
    });
  }
  return byTable;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

/** Why a JSON value cannot go into a column of this type, or null. */
function typeProblem(type: string, value: unknown): string | null {
  if (value === null) return null;
  switch (type) {
    case "text":
      return typeof value === "string" ? (value.includes("\u0000") ? "must not contain the NUL character" : null) : "must be a string";
    case "integer":
      return Number.isInteger(value) && Math.abs(value as number) <= 2_147_483_647 ? null : "must be a whole number";
    case "bigint":
      return Number.isSafeInteger(value) ? null : "must be a whole number";
    case "double precision":
    case "real":
    case "numeric":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a number";
    case "boolean":
      return typeof value === "boolean" ? null : "must be true or false";
    case "timestamp with time zone":
      return typeof value === "string" && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value.replace(" ", "T"))) ? null : "must be an ISO 8601 date-time";
    case "bytea":
      return typeof value === "string" && /^\\x([0-9a-f]{2})*$/i.test(value) ? null : "must be bytes as \\x followed by hex digits";
    case "jsonb":
    case "json":
      return JSON.stringify(value).includes("\\u0000") ? "must not contain the NUL character" : null;
    default:
      return null;
  }
}

const BATCH = 500;
/** Rows an export fetches at a time: 200 kept the export bench's peak at +29 MB over its resting RSS, 500 at +47 MB (2026-11-25). */
const EXPORT_FETCH = 200;

export function portability(db: SqlDatabase): PortabilityStore {
  return {
    sections: SECTIONS.map((section) => section.name),
    async *read(campaignId: string, options: ExportOptions): AsyncGenerator<PortableBatch> {
      const handoff = new Handoff<PortableBatch>();
      const reading = db
        .transaction(
          async (tx) => {
            for (const section of SECTIONS) {
              await tx.query(`declare cms_export no scroll cursor for ${queryOf(section, campaignId, options.viewerId)}`);
              for (;;) {
                const rows = await tx.query<{ r: PortableRow }>(`fetch forward ${EXPORT_FETCH} from cms_export`);
                if (!rows.length) break;
                await handoff.put({ section: section.name, rows: rows.map((row) => row.r) });
              }
              await tx.query(`close cms_export`);
            }
          },
          { snapshot: true, retry: false },
        )
        .then(
          () => handoff.end(),
          (error) => handoff.end(error),
        );
      try {
        yield* handoff.drain();
      } finally {
        handoff.cancel();
        await reading;
      }
    },
    async check(sections: ImportSection[]): Promise<ImportProblem | null> {
      const columns = await columnsOf(db);
      for (const { section: name, rows } of sections) {
        const section = SECTION_BY_NAME.get(name);
        if (!section) return { at: `records.${name}`, message: `is not a section of this service's exports (known: ${SECTIONS.map((s) => s.name).join(", ")})` };
        const table = columns.get(section.table)!;
        for (const [index, row] of rows.entries()) {
          const at = `records.${name}[${index}]`;
          if (typeof row !== "object" || row === null || Array.isArray(row)) return { at, message: "must be an object" };
          for (const [key, value] of Object.entries(row)) {
            const column = table.get(key);
            if (!column || column.generated) return { at: `${at}.${key}`, message: "is not a field of this kind of record" };
            const problem = typeProblem(column.type, value);
            if (problem) return { at: `${at}.${key}`, message: problem };
          }
          for (const column of table.values())
            // Absent takes the column's default; null never fits a column that needs a value.
            if (!column.nullable && !column.generated && (row[column.name] === null || (row[column.name] === undefined && !column.hasDefault)))
              return { at: `${at}.${column.name}`, message: "is required" };
        }
      }
      return null;
    },
    async write(sections: ImportSection[], journalChunks: ImportedJournalChunk[] = []): Promise<void> {
      await db.transaction(
        async (tx) => {
          const later: { table: string; column: string; rows: { id: unknown; value: unknown }[] }[] = [];
          for (const { section: name, rows } of sections) {
            const section = SECTION_BY_NAME.get(name)!;
            const selfRefs = section.selfRefs ?? [];
            for (const column of selfRefs) {
              const pending = rows.filter((row) => row[column] != null).map((row) => ({ id: row.id, value: row[column] }));
              if (pending.length) later.push({ table: section.table, column, rows: pending });
            }
            for (let start = 0; start < rows.length; start += BATCH) {
              const batch = rows.slice(start, start + BATCH).map((row) => (selfRefs.length ? { ...row, ...Object.fromEntries(selfRefs.map((c) => [c, null])) } : row));
              const names = [...new Set(batch.flatMap((row) => Object.keys(row)))].map((name) => `"${name.replaceAll('"', '""')}"`).join(", ");
              await tx.query(`insert into ${section.table} (${names}) select ${names} from jsonb_populate_recordset(null::${section.table}, $1::text::jsonb)`, [JSON.stringify(batch)]);
            }
          }
          for (const { table, column, rows } of later)
            for (let start = 0; start < rows.length; start += BATCH)
              await tx.query(
                `update ${table} t set ${column} = v.value from jsonb_to_recordset($1::text::jsonb) as v(id text, value text) where t.id = v.id`,
                [JSON.stringify(rows.slice(start, start + BATCH))],
              );
          // Journal chunks (Ask's journal passages come from them, by trigger) after their entries.
          for (let start = 0; start < journalChunks.length; start += BATCH)
            await tx.query(
              `insert into journal_chunks (entry_id, campaign_id, position, text, token_count)
               select entry_id, campaign_id, position, text, token_count
               from jsonb_to_recordset($1::text::jsonb) as c(entry_id text, campaign_id text, position int, text text, token_count int)`,
              [JSON.stringify(journalChunks.slice(start, start + BATCH))],
            );
          // Ask's transcript windows are written by the transcript import, not by a trigger: built here
          // for every imported transcript, in the same transaction, so Ask quotes an imported session.
          await indexTranscripts(tx, sections.filter((s) => s.section === "transcripts").flatMap((s) => s.rows.map((row) => String(row.session_id))));
        },
        { retry: false },
      );
    },
    async existingUsers(ids: string[]) {
      if (!ids.length) return new Set();
      const rows = await db.query<{ id: string }>(`select id from users where id in (select jsonb_array_elements_text($1::text::jsonb))`, [JSON.stringify(ids)]);
      return new Set(rows.map((row) => String(row.id)));
    },
  };
}
