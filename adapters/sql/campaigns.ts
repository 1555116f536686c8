// Campaigns, their members and settings on SQL.
import { emptyCounts, STAT_KINDS, type Campaign, type CampaignChanges, type CharacterArcSettings, type FieldDefinition, type Membership } from "../../domain/campaign.ts";
import type { CampaignRepository, CampaignSettingsRepository, MemberRepository } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { iso, isoOrNull, json, jsonArray, likePattern, lockClause, paged, str, strOrNull, Where } from "./rows.ts";
import type { SqlRepositories } from "./records.ts";

export const CAMPAIGN_COLUMNS = `c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature,
  c.owner_id, c.archived_at, c.created_at, c.updated_at`;

export const toCampaign = (row: Row): Campaign => ({
  id: str(row.id),
  title: str(row.title),
  description: strOrNull(row.description),
  system: strOrNull(row.system),
  summary: strOrNull(row.summary),
  language: str(row.language),
  image: strOrNull(row.image),
  public: Boolean(row.public),
  mature: Boolean(row.mature),
  owner_id: str(row.owner_id),
  archived: row.archived_at != null,
  archived_at: isoOrNull(row.archived_at),
  created_at: iso(row.created_at),
  updated_at: isoOrNull(row.updated_at),
});

const toMember = (row: Row): Membership => ({
  campaign_id: str(row.campaign_id),
  user_id: str(row.user_id),
  roles: jsonArray(row.roles),
  created_at: iso(row.created_at),
});

const CAMPAIGN_WRITABLE = ["title", "description", "system", "summary", "language", "image", "mature", "archived_at"] as const;

export function campaigns(db: SqlExecutor): CampaignRepository {
  return {
    async insert(c) {
      await db.query(
        `insert into campaigns (id, title, description, system, summary, language, image, public, mature, owner_id, archived_at, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::timestamptz, $12::timestamptz, $13::timestamptz)`,
        [c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature, c.owner_id, c.archived_at, c.created_at, c.updated_at],
      );
    },
    async get(id, options) {
      const [row] = await db.query(`select ${CAMPAIGN_COLUMNS} from campaigns c where c.id = $1${lockClause(options, "c")}`, [id]);
      return row ? toCampaign(row) : null;
    },
    async getWithStanding(id, userId) {
      const [row] = await db.query(
        `select ${CAMPAIGN_COLUMNS}, m.roles as member_roles
         from campaigns c left join campaign_members m on m.campaign_id = c.id and m.user_id = $2
         where c.id = $1`,
        [id, userId],
      );
      return row ? { campaign: toCampaign(row), roles: jsonArray(row.member_roles) } : null;
    },
    async listVisibleTo(userId, filters, page) {
      const where = new Where();
      if (filters.publicOnly) where.also(`c.public`);
      // The caller's campaigns from the two indexes that list them (memberships by user, campaigns by
      // owner): the list costs what the user belongs to, not a scan of every campaign on the server.
      else where.add(userId, (p) => `c.id in (select m.campaign_id from campaign_members m where m.user_id = ${p} union select o.id from campaigns o where o.owner_id = ${p})`);
      if (filters.ownerId) where.add(filters.ownerId, (p) => `c.owner_id = ${p}`);
      if (filters.search) where.add(likePattern(filters.search), (p) => `(c.title ilike ${p} or c.description ilike ${p})`);
      if (filters.archived !== undefined) where.also(filters.archived ? `c.archived_at is not null` : `c.archived_at is null`);
      const { rows, total } = await paged(db, CAMPAIGN_COLUMNS, `from campaigns c where ${where.sql}`, `c.created_at desc, c.id desc`, where.params, page);
      return { rows: rows.map(toCampaign), total };
    },
    async update(id, changes: CampaignChanges, updatedAt) {
      const params: unknown[] = [id, updatedAt];
      const sets = [`updated_at = $2::timestamptz`];
      for (const column of CAMPAIGN_WRITABLE) {
        if (changes[column] === undefined) continue;
        params.push(changes[column]);
        sets.push(`${column} = $${params.length}${column === "archived_at" ? "::timestamptz" : ""}`);
      }
      const [row] = await db.query(`update campaigns c set ${sets.join(", ")} where c.id = $1 returning ${CAMPAIGN_COLUMNS}`, params);
      return row ? toCampaign(row) : null;
    },
    async transferOwnership(id, newOwnerId, updatedAt) {
      await db.query(`update campaigns set owner_id = $2, updated_at = $3::timestamptz where id = $1`, [id, newOwnerId, updatedAt]);
    },
    async delete(id) {
      const rows = await db.query(`delete from campaigns where id = $1 returning id`, [id]);
      return rows.length > 0;
    },
    async counts(id) {
      const [row] = await db.query(
        // The list counters (migration 0015): one index read each, however big the campaign.
        `select coalesce(sum(n) filter (where kind = 'characters'), 0)::int as characters,
                coalesce(sum(n) filter (where kind = 'sessions'), 0)::int as sessions,
                coalesce(sum(n) filter (where kind = 'moments'), 0)::int as moments,
                coalesce(sum(n) filter (where kind = 'beats'), 0)::int as beats,
                coalesce(sum(n) filter (where kind = 'factions'), 0)::int as factions,
                coalesce(sum(n) filter (where kind = 'locations'), 0)::int as locations,
                coalesce(sum(n) filter (where kind = 'items'), 0)::int as items
         from record_counts where campaign_id = $1`,
        [id],
      );
      const counts = emptyCounts();
      for (const kind of STAT_KINDS) counts[kind] = Number(row?.[kind] ?? 0);
      return counts;
    },
  };
}

export function members(db: SqlExecutor): MemberRepository {
  return {
    async upsert(member) {
      const [row] = await db.query(
        `insert into campaign_members (campaign_id, user_id, roles, created_at) values ($1, $2, $3::text::jsonb, $4::timestamptz)
         on conflict (campaign_id, user_id) do update set roles = excluded.roles returning *`,
        [member.campaign_id, member.user_id, json(member.roles), member.created_at],
      );
      return toMember(row!);
    },
    async remove(campaignId, userId) {
      const rows = await db.query(`delete from campaign_members where campaign_id = $1 and user_id = $2 returning user_id`, [campaignId, userId]);
      return rows.length > 0;
    },
    async get(campaignId, userId, options) {
      const [row] = await db.query(`select * from campaign_members where campaign_id = $1 and user_id = $2${lockClause(options)}`, [campaignId, userId]);
      return row ? toMember(row) : null;
    },
    async list(campaignId) {
      const rows = await db.query(`select * from campaign_members where campaign_id = $1 order by created_at, user_id`, [campaignId]);
      return rows.map(toMember);
    },
  };
}

export function settings(db: SqlExecutor): CampaignSettingsRepository {
  return {
    async putCharacterArc(campaignId, arc, at) {
      await db.query(
        `insert into campaign_settings (campaign_id, character_arc, updated_at) values ($1, $2::text::jsonb, $3::timestamptz)
         on conflict (campaign_id) do update set character_arc = excluded.character_arc, updated_at = excluded.updated_at`,
        [campaignId, json(arc), at],
      );
    },
    async getCharacterArc(campaignId) {
      const [row] = await db.query(`select character_arc from campaign_settings where campaign_id = $1`, [campaignId]);
      return row ? (row.character_arc as CharacterArcSettings) : null;
    },
    async insertFieldDefinitions(definitions) {
      if (!definitions.length) return;
      // One statement for the whole set: unnest a JSON array rather than N round trips.
      await db.query(
        `insert into field_definitions (id, campaign_id, entity_type, key, label, field_type, options, position, created_at)
         select d->>'id', d->>'campaign_id', d->>'entity_type', d->>'key', d->>'label', d->>'field_type', d->'options',
                (d->>'position')::int, (d->>'created_at')::timestamptz
         from jsonb_array_elements($1::text::jsonb) as d`,
        [json(definitions)],
      );
    },
    async listFieldDefinitions(campaignId) {
      const rows = await db.query(
        `select * from field_definitions where campaign_id = $1 order by entity_type, position`,
        [campaignId],
      );
      return rows.map(
        (row): FieldDefinition => ({
          id: str(row.id),
          campaign_id: str(row.campaign_id),
          entity_type: str(row.entity_type) as FieldDefinition["entity_type"],
          key: str(row.key),
          label: str(row.label),
          field_type: str(row.field_type) as FieldDefinition["field_type"],
          options: jsonArray(row.options),
          position: Number(row.position),
          created_at: iso(row.created_at),
        }),
      );
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { campaigns, members, settings } satisfies SqlRepositories;
