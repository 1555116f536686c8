// The entity (faction, location, item) repository on SQL.
import { entitySearchText, type Entity, type EntityKind } from "../../domain/entities.ts";
import type { EntityRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, lockClause, paged, str, strOrNull } from "./rows.ts";
import { searchedList } from "./search.ts";

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
