// Managed images and the generation quota on SQL.
import type { ImageEntityType, ImageRecord, ImageRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";

const COLUMNS = ["object_key", "campaign_id", "entity_type", "entity_id", "origin", "status", "content_type", "url", "attached", "created_by", "expires_at", "created_at", "completed_at"] as const;
const iso = (value: unknown): string | null => (value == null ? null : new Date(value as string).toISOString());
const columns = (alias?: string) => COLUMNS.map((column) => (alias ? `${alias}.${column}` : column)).join(", ");
const toRecord = (row: Row): ImageRecord => ({
  object_key: String(row.object_key),
  campaign_id: String(row.campaign_id),
  entity_type: String(row.entity_type) as ImageEntityType,
  entity_id: String(row.entity_id),
  origin: String(row.origin) as ImageRecord["origin"],
  status: String(row.status) as ImageRecord["status"],
  content_type: String(row.content_type),
  url: String(row.url),
  attached: Boolean(row.attached),
  created_by: row.created_by == null ? null : String(row.created_by),
  expires_at: iso(row.expires_at),
  created_at: iso(row.created_at)!,
  completed_at: iso(row.completed_at),
});

/** Where each kind's `image` lives: table, and the extra condition that picks the kind. */
const PLACES: Record<ImageEntityType, { table: string; campaign: string; kind?: string }> = {
  campaign: { table: "campaigns", campaign: "id" },
  character: { table: "characters", campaign: "campaign_id" },
  faction: { table: "entities", campaign: "campaign_id", kind: "faction" },
  location: { table: "entities", campaign: "campaign_id", kind: "location" },
  item: { table: "entities", campaign: "campaign_id", kind: "item" },
  moment: { table: "moments", campaign: "campaign_id" },
  session: { table: "sessions", campaign: "campaign_id" },
};

/** Columns that name and describe each kind, and one more that helps a prompt (the system, a type). */
const DESCRIBED: Record<ImageEntityType, [string, string, string]> = {
  campaign: ["title", "coalesce(description, summary)", "system"],
  character: ["character_name", "coalesce(description, backstory)", "type"],
  faction: ["name", "description", "type"],
  location: ["name", "description", "type"],
  item: ["name", "description", "type"],
  moment: ["coalesce(label, '')", "content", "null"],
  session: ["title", "summary", "null"],
};

const where = (type: ImageEntityType, first: number) => {
  const place = PLACES[type];
  return `${place.table} where id = $${first} and ${place.campaign} = $${first + 1}${place.kind ? ` and kind = '${place.kind}'` : ""}`;
};

/** True when the row's record exists: one EXISTS per kind. */
const ENTITY_EXISTS = `case i.entity_type
  ${Object.entries(PLACES)
    .map(([type, p]) => `when '${type}' then exists (select 1 from ${p.table} e where e.id = i.entity_id and e.${p.campaign} = i.campaign_id${p.kind ? ` and e.kind = '${p.kind}'` : ""})`)
    .join("\n  ")}
  else false end`;

export function images(db: SqlExecutor): ImageRepository {
  return {
    async insert(image) {
      await db.query(`insert into images (${columns()}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`, COLUMNS.map((column) => image[column]));
    },
    async get(objectKey, options) {
      const [row] = await db.query(`select ${columns()} from images where object_key = $1${options?.lock ? " for update" : ""}`, [objectKey]);
      return row ? toRecord(row) : null;
    },
    async complete(objectKey, { content_type, attached, completed_at }) {
      await db.query(`update images set status = 'ready', content_type = $2, attached = $3, completed_at = $4, expires_at = null where object_key = $1`, [objectKey, content_type, attached, completed_at]);
    },
    async setAttached(objectKey, attached) {
      await db.query(`update images set attached = $2 where object_key = $1`, [objectKey, attached]);
    },
    async delete(objectKey) {
      await db.query(`delete from images where object_key = $1`, [objectKey]);
    },
    async orphans(now, limit) {
      const rows = await db.query(
        `select ${columns("i")} from images i
          where (i.status = 'pending' and i.expires_at < $1)
             or not exists (select 1 from campaigns c where c.id = i.campaign_id)
             or not (${ENTITY_EXISTS})
          order by i.created_at limit $2`,
        [now, limit],
      );
      return rows.map(toRecord);
    },
    async entityExists(campaignId, type, id) {
      const rows = await db.query(`select 1 from ${where(type, 1)}`, [id, campaignId]);
      return rows.length > 0;
    },
    async imageOf(campaignId, type, id, options) {
      const [row] = await db.query<{ image: string | null }>(`select image from ${where(type, 1)}${options?.lock ? " for update" : ""}`, [id, campaignId]);
      return row ? row.image : undefined;
    },
    async setImage(campaignId, type, id, url, at) {
      const place = PLACES[type];
      await db.query(`update ${place.table} set image = $3, updated_at = $4 where id = $1 and ${place.campaign} = $2${place.kind ? ` and kind = '${place.kind}'` : ""}`, [id, campaignId, url, at]);
    },
    async detachUrl(campaignId, url, at) {
      let count = 0;
      for (const table of ["campaigns", "characters", "entities", "moments", "sessions"]) {
        const campaign = table === "campaigns" ? "id" : "campaign_id";
        const rows = await db.query(`update ${table} set image = null, updated_at = $3 where ${campaign} = $1 and image = $2 returning id`, [campaignId, url, at]);
        count += rows.length;
      }
      return count;
    },
    async describe(campaignId, type, id) {
      const [name, description, extra] = DESCRIBED[type];
      const [row] = await db.query<{ name: string; description: string | null; extra: string | null }>(
        `select ${name} as name, ${description} as description, ${extra} as extra from ${where(type, 1)}`,
        [id, campaignId],
      );
      return row ?? null;
    },
    async generationsUsed(ownerId, cycleStart) {
      const [row] = await db.query<{ used: number }>(`select used from image_generation_usage where owner_id = $1 and cycle_start = $2`, [ownerId, cycleStart]);
      return row ? Number(row.used) : 0;
    },
    async takeGeneration(ownerId, cycleStart, limit) {
      const rows = await db.query(
        `insert into image_generation_usage (owner_id, cycle_start, used) select $1, $2, 1 where $3 > 0
           on conflict (owner_id, cycle_start) do update set used = image_generation_usage.used + 1 where image_generation_usage.used < $3
           returning used`,
        [ownerId, cycleStart, limit],
      );
      return rows.length > 0;
    },
    async returnGeneration(ownerId, cycleStart) {
      await db.query(`update image_generation_usage set used = used - 1 where owner_id = $1 and cycle_start = $2 and used > 0`, [ownerId, cycleStart]);
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { images } satisfies SqlRepositories;
