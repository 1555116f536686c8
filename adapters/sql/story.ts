// Record ports for transcripts, artifacts, beats, moments and recap cards on SQL.
import type { Beat, BeatType } from "../../domain/beats.ts";
import type { Moment } from "../../domain/moments.ts";
import type { Handout, SessionArtifact } from "../../domain/sessions.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { HeroAward, RecapEntry } from "../../domain/recaps.ts";
import type { ArtifactRepository, BeatRepository, MomentRepository, RecapRepository, TranscriptRepository } from "../../ports/records.ts";
import { iso, isoOrNull, json, jsonArray, jsonOrNull, likePattern, lockClause, paged as pagedSelect, str, strOrNull } from "./compendium.ts";
import type { Row, SqlExecutor } from "./database.ts";

const num = (value: unknown) => Number(value);
const paged = (db: SqlExecutor, from: string, order: string, params: unknown[], page: PageRequest) => pagedSelect(db, "*", from, order, params, page);

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

const toBeat = (row: Row): Beat => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  label: str(row.label),
  type: str(row.type) as BeatType,
  description: strOrNull(row.description),
  index: num(row.index),
  parent_id: strOrNull(row.parent_id),
  metadata: (row.metadata ?? null) as Beat["metadata"],
  game_session_ids: jsonArray(row.game_session_ids),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const beatParams = (b: Beat) => [b.id, b.campaign_id, b.label, b.type, b.description, b.index, b.parent_id, jsonOrNull(b.metadata), json(b.game_session_ids), b.created_at, b.updated_at];

export function beats(db: SqlExecutor): BeatRepository {
  return {
    async insert(b) {
      await db.query(
        `insert into beats (id, campaign_id, label, type, description, index, parent_id, metadata, game_session_ids, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9::text::jsonb, $10::timestamptz, $11::timestamptz)`,
        beatParams(b),
      );
    },
    async replace(b) {
      await db.query(
        `update beats set campaign_id = $2, label = $3, type = $4, description = $5, index = $6, parent_id = $7, metadata = $8::text::jsonb,
           game_session_ids = $9::text::jsonb, created_at = $10::timestamptz, updated_at = $11::timestamptz where id = $1`,
        beatParams(b),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from beats where id = $1${lockClause(options)}`, [id]);
      return row ? toBeat(row) : null;
    },
    async listByCampaign(campaignId, page) {
      const { rows, total } = await paged(db, `from beats where campaign_id = $1`, `index, created_at, id`, [campaignId], page);
      return { rows: rows.map(toBeat), total };
    },
    async listBySession(sessionId, page) {
      const { rows, total } = await paged(db, `from beats where game_session_ids ? $1`, `index, created_at, id`, [sessionId], page);
      return { rows: rows.map(toBeat), total };
    },
    async allBySession(sessionId) {
      return (await db.query(`select * from beats where game_session_ids ? $1 order by index, created_at, id`, [sessionId])).map(toBeat);
    },
    async ancestry(id) {
      const rows = await db.query(
        `with recursive up(id, parent_id, depth) as (
           select id, parent_id, 0 from beats where id = $1
           union all
           select b.id, b.parent_id, up.depth + 1 from beats b join up on b.id = up.parent_id where up.depth < 10000
         ) cycle id set looped using path
         select id, parent_id from up`,
        [id],
      );
      return new Map(rows.map((row) => [str(row.id), strOrNull(row.parent_id)]));
    },
    async orphanChildren(id, at) {
      return (await db.query(`update beats set parent_id = null, updated_at = $2::timestamptz where parent_id = $1 returning id`, [id, at])).length;
    },
    async forgetSession(sessionId) {
      await db.query(
        `update beats set game_session_ids = (select coalesce(jsonb_agg(value), '[]'::jsonb) from jsonb_array_elements_text(game_session_ids) value where value <> $1)
         where game_session_ids ? $1`,
        [sessionId],
      );
    },
    async delete(id) {
      return (await db.query(`delete from beats where id = $1 returning id`, [id])).length > 0;
    },
  };
}

const toMoment = (row: Row): Moment => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  session_id: strOrNull(row.session_id),
  label: strOrNull(row.label),
  content: strOrNull(row.content),
  image: strOrNull(row.image),
  index: row.index == null ? null : num(row.index),
  categories: jsonArray(row.categories),
  kind: str(row.kind),
  metadata: (row.metadata ?? null) as Moment["metadata"],
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const momentParams = (m: Moment) => [m.id, m.campaign_id, m.session_id, m.label, m.content, m.image, m.index, json(m.categories), m.kind, jsonOrNull(m.metadata), m.created_at, m.updated_at];

export function moments(db: SqlExecutor): MomentRepository {
  return {
    async insert(m) {
      await db.query(
        `insert into moments (id, campaign_id, session_id, label, content, image, index, categories, kind, metadata, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10::text::jsonb, $11::timestamptz, $12::timestamptz)`,
        momentParams(m),
      );
    },
    async replace(m) {
      await db.query(
        `update moments set campaign_id = $2, session_id = $3, label = $4, content = $5, image = $6, index = $7, categories = $8::text::jsonb, kind = $9,
           metadata = $10::text::jsonb, created_at = $11::timestamptz, updated_at = $12::timestamptz where id = $1`,
        momentParams(m),
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select * from moments where id = $1${lockClause(options)}`, [id]);
      return row ? toMoment(row) : null;
    },
    async list(filters, page) {
      const params: unknown[] = [];
      const where: string[] = [];
      const add = (clause: (at: number) => string, value: unknown) => {
        params.push(value);
        where.push(clause(params.length));
      };
      if (filters.campaignId) add((at) => `m.campaign_id = $${at}`, filters.campaignId);
      if (filters.sessionId) add((at) => `m.session_id = $${at}`, filters.sessionId);
      if (filters.sessionIds?.length) add((at) => `m.session_id = any (select jsonb_array_elements_text($${at}::text::jsonb))`, json(filters.sessionIds));
      if (filters.search) add((at) => `m.label ilike $${at}`, likePattern(filters.search));
      if (filters.categories?.length) add((at) => `m.categories ?| array(select jsonb_array_elements_text($${at}::text::jsonb))`, json(filters.categories));
      if (filters.kind) add((at) => `m.kind = $${at}`, filters.kind);
      if (filters.linkedTo?.length)
        add((at) => `exists (select 1 from links l where l.from_type = 'Moment' and l.from_id = m.id and l.to_id = any (select jsonb_array_elements_text($${at}::text::jsonb)))`, json(filters.linkedTo));
      const { rows, total } = await paged(db, `from moments m where ${where.join(" and ") || "true"}`, `m.created_at desc, m.id desc`, params, page);
      return { rows: rows.map(toMoment), total };
    },
    async delete(id) {
      return (await db.query(`delete from moments where id = $1 returning id`, [id])).length > 0;
    },
  };
}

const toAward = (row: Row): HeroAward => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  session_id: str(row.session_id),
  title: str(row.title),
  description: str(row.description),
  character_name: str(row.character_name),
  player_name: strOrNull(row.player_name),
  tone_mode: str(row.tone_mode),
  award_mode: str(row.award_mode),
  style: str(row.style),
  variant: str(row.variant),
  custom_theme: (row.custom_theme ?? null) as HeroAward["custom_theme"],
  order_index: num(row.order_index),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const AWARD_COLUMNS = `id, campaign_id, session_id, title, description, character_name, player_name, tone_mode, award_mode, style, variant, custom_theme, order_index, created_at, updated_at`;

const awardParams = (a: HeroAward, card: Uint8Array | null) => [
  a.id, a.campaign_id, a.session_id, a.title, a.description, a.character_name, a.player_name, a.tone_mode, a.award_mode, a.style, a.variant,
  jsonOrNull(a.custom_theme), a.order_index, a.created_at, a.updated_at, card === null ? null : Buffer.from(card).toString("base64"),
];

const toEntry = (row: Row): RecapEntry => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  session_id: str(row.session_id),
  entry_type: str(row.entry_type) as RecapEntry["entry_type"],
  pipeline_id: strOrNull(row.pipeline_id),
  recap_set_id: strOrNull(row.recap_set_id),
  text: strOrNull(row.text),
  speaker: strOrNull(row.speaker),
  character_name: strOrNull(row.character_name),
  context: strOrNull(row.context),
  title: strOrNull(row.title),
  description: strOrNull(row.description),
  player_name: strOrNull(row.player_name),
  style: strOrNull(row.style),
  custom_theme: (row.custom_theme ?? null) as RecapEntry["custom_theme"],
  order_index: num(row.order_index),
  source_moment_id: strOrNull(row.source_moment_id),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const entryParams = (e: RecapEntry) => [
  e.id, e.campaign_id, e.session_id, e.entry_type, e.pipeline_id, e.recap_set_id, e.text, e.speaker, e.character_name, e.context, e.title,
  e.description, e.player_name, e.style, jsonOrNull(e.custom_theme), e.order_index, e.source_moment_id, e.created_at, e.updated_at,
];

const recapWhere = (filters: { campaignId?: string; sessionId?: string }, params: unknown[], where: string[]) => {
  if (filters.campaignId) {
    params.push(filters.campaignId);
    where.push(`campaign_id = $${params.length}`);
  }
  if (filters.sessionId) {
    params.push(filters.sessionId);
    where.push(`session_id = $${params.length}`);
  }
};

export function recaps(db: SqlExecutor): RecapRepository {
  return {
    async pipeline(campaignId, sessionId, source, make) {
      const fresh = make();
      await db.query(
        `insert into recap_pipelines (id, campaign_id, session_id, source, recap_set_id, created_at) values ($1, $2, $3, $4, $5, $6::timestamptz)
         on conflict (session_id, source) do nothing`,
        [fresh.id, campaignId, sessionId, source, fresh.recap_set_id, fresh.created_at],
      );
      const [row] = await db.query(`select * from recap_pipelines where session_id = $1 and source = $2`, [sessionId, source]);
      return { id: str(row!.id), campaign_id: str(row!.campaign_id), session_id: str(row!.session_id), source: str(row!.source), recap_set_id: str(row!.recap_set_id), created_at: iso(row!.created_at) };
    },
    async countPipelines(sessionId) {
      return Number((await db.query(`select count(*)::int as n from recap_pipelines where session_id = $1`, [sessionId]))[0]!.n);
    },
    async insertAward(a, card) {
      await db.query(
        `insert into hero_awards (${AWARD_COLUMNS}, card_png)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13, $14::timestamptz, $15::timestamptz, decode($16, 'base64'))`,
        awardParams(a, card),
      );
    },
    async replaceAward(a, card) {
      await db.query(
        `update hero_awards set campaign_id = $2, session_id = $3, title = $4, description = $5, character_name = $6, player_name = $7, tone_mode = $8,
           award_mode = $9, style = $10, variant = $11, custom_theme = $12::text::jsonb, order_index = $13, created_at = $14::timestamptz,
           updated_at = $15::timestamptz, card_png = decode($16, 'base64') where id = $1`,
        awardParams(a, card),
      );
    },
    async getAward(id, options) {
      const [row] = await db.query(`select ${AWARD_COLUMNS} from hero_awards where id = $1${lockClause(options)}`, [id]);
      return row ? toAward(row) : null;
    },
    async awardCard(id) {
      const [row] = await db.query(`select encode(card_png, 'base64') as png from hero_awards where id = $1`, [id]);
      return row?.png ? new Uint8Array(Buffer.from(str(row.png), "base64")) : null;
    },
    async listAwards(filters, page) {
      const params: unknown[] = [];
      const where: string[] = [];
      recapWhere(filters, params, where);
      if (filters.search) {
        params.push(likePattern(filters.search));
        where.push(`(title ilike $${params.length} or description ilike $${params.length} or character_name ilike $${params.length})`);
      }
      const { rows, total } = await paged(db, `from (select ${AWARD_COLUMNS} from hero_awards) a where ${where.join(" and ") || "true"}`, `order_index, created_at, id`, params, page);
      return { rows: rows.map(toAward), total };
    },
    async deleteAward(id) {
      return (await db.query(`delete from hero_awards where id = $1 returning id`, [id])).length > 0;
    },
    async insertEntry(e) {
      await db.query(
        `insert into recap_entries (id, campaign_id, session_id, entry_type, pipeline_id, recap_set_id, text, speaker, character_name, context, title,
           description, player_name, style, custom_theme, order_index, source_moment_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text::jsonb, $16, $17, $18::timestamptz, $19::timestamptz)`,
        entryParams(e),
      );
    },
    async replaceEntry(e) {
      await db.query(
        `update recap_entries set campaign_id = $2, session_id = $3, entry_type = $4, pipeline_id = $5, recap_set_id = $6, text = $7, speaker = $8,
           character_name = $9, context = $10, title = $11, description = $12, player_name = $13, style = $14, custom_theme = $15::text::jsonb,
           order_index = $16, source_moment_id = $17, created_at = $18::timestamptz, updated_at = $19::timestamptz where id = $1`,
        entryParams(e),
      );
    },
    async getEntry(id, options) {
      const [row] = await db.query(`select * from recap_entries where id = $1${lockClause(options)}`, [id]);
      return row ? toEntry(row) : null;
    },
    async listEntries(type, filters, page) {
      const params: unknown[] = [type];
      const where = [`entry_type = $1`];
      recapWhere(filters, params, where);
      if (filters.search) {
        params.push(likePattern(filters.search));
        const at = params.length;
        where.push(`(text ilike $${at} or title ilike $${at} or description ilike $${at} or character_name ilike $${at} or speaker ilike $${at})`);
      }
      const { rows, total } = await paged(db, `from recap_entries where ${where.join(" and ")}`, `order_index, created_at, id`, params, page);
      return { rows: rows.map(toEntry), total };
    },
    async deleteEntry(id) {
      return (await db.query(`delete from recap_entries where id = $1 returning id`, [id])).length > 0;
    },
  };
}
