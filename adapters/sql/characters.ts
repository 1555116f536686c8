// The character repository on SQL.
import { characterSearchText, type Character, type CharacterType } from "../../domain/characters.ts";
import type { CharacterRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, lockClause, paged, str, strOrNull } from "./rows.ts";
import { searchedList } from "./search.ts";

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
