// Recap cards (hero awards, quotes, spotlights) on SQL.
import type { HeroAward, RecapEntry } from "../../domain/recaps.ts";
import type { RecapRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, jsonOrNull, likePattern, lockClause, num, paged, str, strOrNull } from "./rows.ts";

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
      const { rows, total } = await paged(db, "*", `from (select ${AWARD_COLUMNS} from hero_awards) a where ${where.join(" and ") || "true"}`, `order_index, created_at, id`, params, page);
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
      const { rows, total } = await paged(db, "*", `from recap_entries where ${where.join(" and ")}`, `order_index, created_at, id`, params, page);
      return { rows: rows.map(toEntry), total };
    },
    async deleteEntry(id) {
      return (await db.query(`delete from recap_entries where id = $1 returning id`, [id])).length > 0;
    },
  };
}
