// Sessions, transcripts, cast analyses and handouts on SQL.
import type { Handout, Session, SessionArtifact, SessionRef, SessionType } from "../../domain/sessions.ts";
import type { ArtifactRepository, SessionRepository, TranscriptRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { offsetOf } from "../../domain/pagination.ts";
import { counted, countedBy, iso, isoOrNull, json, jsonArray, num, paged, str, totalOf, Where } from "./rows.ts";
import { boolean, campaignRecord, crud, oneOf, table, text, textOrNull, timestamps, timestamptz } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const SESSIONS = table<Session>(
  "sessions",
  {
    ...campaignRecord,
    type: oneOf<SessionType>(),
    title: text,
    summary: textOrNull,
    notes: textOrNull,
    session_date: timestamptz,
    image: textOrNull,
    public: boolean,
    pbp_start_msg_url: textOrNull,
    pbp_end_msg_url: textOrNull,
    ...timestamps,
  },
  // A session's campaign, type and play-by-post links are set when it is made.
  { addressedAs: "sessions", replaced: ["title", "summary", "notes", "session_date", "image", "public", "updated_at"] },
);

export function sessions(db: SqlExecutor): SessionRepository {
  return {
    ...crud(db, SESSIONS),
    async list(campaignId, filters, page) {
      const order = `session_date desc, created_at desc, id desc`;
      if (!filters.type && !filters.publicOnly) {
        // The whole list, newest first: the session at position p (from 0) of the n is number n - p,
        // so neither the numbers nor the total need the campaign's other sessions read.
        const { rows, total } = await paged(db, "*", `from sessions where campaign_id = $1`, order, [campaignId], page, counted("$1", "sessions"), true);
        const first = total - offsetOf(page);
        return { rows: rows.map((row, i) => ({ ...SESSIONS.toRecord(row), index: first - i })), total };
      }
      // A filtered list keeps each session's number over the whole campaign: kept in session_numbers
      // by triggers (migration 0043), so the page reads its own sessions' numbers and no others.
      const where = new Where([campaignId]).also(`s.campaign_id = $1`);
      if (filters.type) where.add(filters.type, (p) => `s.type = ${p}`);
      if (filters.publicOnly) where.also(`s.public`);
      // The filtered total is a counter too (migration 0029): by type ($2), public, or both.
      const count = filters.type ? countedBy("$1", filters.publicOnly ? "sessions:public:type:" : "sessions:type:", "$2") : counted("$1", "sessions:public");
      const { rows, total } = await paged(db, "s.*, n.number", `from sessions s left join session_numbers n on n.session_id = s.id where ${where.sql}`,
        `s.session_date desc, s.created_at desc, s.id desc`, where.params, page, count);
      return { rows: rows.map((row) => ({ ...SESSIONS.toRecord(row), index: Number(row.number) })), total };
    },
    async numberOf(session) {
      const [row] = await db.query(`select number from session_numbers where session_id = $1`, [session.id]);
      return Number(row?.number ?? 0);
    },
    async refs(campaignId, ids) {
      if (!ids.length) return new Map();
      const rows = await db.query(
        `select s.id, s.title, s.session_date, n.number from sessions s join session_numbers n on n.session_id = s.id
         where s.campaign_id = $1 and s.id = any (select jsonb_array_elements_text($2::text::jsonb))`,
        [campaignId, json(ids)],
      );
      return new Map(rows.map((row): [string, SessionRef] => [str(row.id), { id: str(row.id), number: Number(row.number), title: str(row.title), session_date: iso(row.session_date) }]));
    },
  };
}

export function transcripts(db: SqlExecutor): TranscriptRepository {
  return {
    async clear(sessionId) {
      await db.query(`delete from transcript_utterances where session_id = $1`, [sessionId]);
    },
    async append(sessionId, utterances) {
      if (!utterances.length) return;
      await db.query(
        `insert into transcript_utterances (session_id, position, speaker_label, text, start_s, end_s)
         select $1, (u->>'position')::int, u->>'speaker_label', u->>'text', (u->>'start_s')::float8, (u->>'end_s')::float8
         from jsonb_array_elements($2::text::jsonb) u`,
        [sessionId, json(utterances)],
      );
    },
    async put(r) {
      await db.query(
        `insert into transcripts (session_id, campaign_id, version, source_type, speakers, utterance_count, char_count, tokens, created_at)
         values ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8, $9::timestamptz)
         on conflict (session_id) do update set version = excluded.version, source_type = excluded.source_type, speakers = excluded.speakers,
           utterance_count = excluded.utterance_count, char_count = excluded.char_count, tokens = excluded.tokens, created_at = excluded.created_at`,
        [r.session_id, r.campaign_id, r.version, r.source_type, json(r.speakers), r.utterance_count, r.char_count, r.tokens, r.created_at],
      );
    },
    async get(sessionId) {
      const [row] = await db.query(`select * from transcripts where session_id = $1`, [sessionId]);
      if (!row) return null;
      return {
        session_id: str(row.session_id),
        campaign_id: str(row.campaign_id),
        version: num(row.version),
        source_type: str(row.source_type),
        speakers: jsonArray(row.speakers),
        utterance_count: num(row.utterance_count),
        char_count: num(row.char_count),
        tokens: num(row.tokens),
        created_at: iso(row.created_at),
      };
    },
    async utterances(sessionId, fromPosition, limit) {
      const rows = await db.query(
        `select position, speaker_label, text, start_s, end_s from transcript_utterances where session_id = $1 and position >= $2 order by position limit $3`,
        [sessionId, fromPosition, limit],
      );
      return rows.map((row) => ({ position: num(row.position), speaker_label: str(row.speaker_label), text: str(row.text), start_s: num(row.start_s), end_s: num(row.end_s) }));
    },
    async delete(sessionId) {
      await db.query(`delete from transcripts where session_id = $1`, [sessionId]);
      await db.query(`delete from transcript_utterances where session_id = $1`, [sessionId]);
    },
  };
}

function artifacts<T>(db: SqlExecutor, table: "cast_analyses" | "session_handouts", column: "analysis" | "handout"): ArtifactRepository<T> {
  const toArtifact = (row: Row): SessionArtifact<T> => ({
    id: str(row.id ?? row.session_id),
    session_id: str(row.session_id),
    campaign_id: str(row.campaign_id),
    body: row[column] as T,
    source: str(row.source),
    pdf_saved_at: isoOrNull(row.pdf_saved_at),
    pdf_page_count: row.pdf_page_count == null ? null : num(row.pdf_page_count),
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at),
  });
  const idColumn = table === "cast_analyses" ? "id, " : "";
  const idValue = table === "cast_analyses" ? "$7, " : "";
  return {
    async put(a) {
      const [row] = await db.query(
        `insert into ${table} (${idColumn}session_id, campaign_id, ${column}, source, created_at, updated_at)
         values (${idValue}$1, $2, $3::text::jsonb, $4, $5::timestamptz, $6::timestamptz)
         on conflict (session_id) do update set ${column} = excluded.${column}, source = excluded.source, updated_at = excluded.updated_at
         returning *`,
        table === "cast_analyses"
          ? [a.session_id, a.campaign_id, json(a.body), a.source, a.created_at, a.updated_at, a.id]
          : [a.session_id, a.campaign_id, json(a.body), a.source, a.created_at, a.updated_at],
      );
      return toArtifact(row!);
    },
    async get(sessionId) {
      const [row] = await db.query(`select * from ${table} where session_id = $1`, [sessionId]);
      return row ? toArtifact(row) : null;
    },
    async delete(sessionId) {
      await db.query(`delete from ${table} where session_id = $1`, [sessionId]);
    },
  };
}

export const castAnalyses = (db: SqlExecutor) => artifacts<Record<string, unknown>>(db, "cast_analyses", "analysis");
export const handouts = (db: SqlExecutor) => artifacts<Handout>(db, "session_handouts", "handout");

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { sessions, transcripts, castAnalyses, handouts } satisfies SqlRepositories;
