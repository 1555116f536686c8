// The record ports on SQL: one query set for PGlite and PostgreSQL.
import { emptyCounts, STAT_KINDS, type Campaign, type CampaignChanges, type CharacterArcSettings, type FieldDefinition, type Membership } from "../../domain/campaign.ts";
import type { ApiKeyRecord, User, UserRole } from "../../domain/identity.ts";
import type { Speaker } from "../../domain/speakers.ts";
import type {
  ApiKeyRepository,
  CampaignRepository,
  CampaignSettingsRepository,
  MemberRepository,
  RecordStore,
  Repositories,
  SpeakerRepository,
  UserRepository,
} from "../../ports/records.ts";
import { characters, entities, iso, isoOrNull, json, jsonArray, likePattern, links, lockClause, lookup, paged, searchIndex, str, strOrNull, tasks } from "./compendium.ts";
import type { Row, SqlDatabase, SqlExecutor } from "./database.ts";
import { folders, journals, quests, sessions } from "./journals.ts";
import { beats, castAnalyses, handouts, moments, recaps, transcripts } from "./story.ts";
import { migrationStatus } from "./migrate.ts";


const toUser = (row: Row): User => ({
  id: str(row.id),
  name: str(row.name),
  email: str(row.email),
  role: str(row.role) as UserRole,
  created_at: iso(row.created_at),
});

const toKey = (row: Row): ApiKeyRecord => ({
  id: str(row.id),
  user_id: str(row.user_id),
  prefix: str(row.prefix),
  scopes: jsonArray(row.scopes),
  created_at: iso(row.created_at),
  revoked_at: isoOrNull(row.revoked_at),
});

const CAMPAIGN_COLUMNS = `c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature,
  c.owner_id, c.archived_at, c.created_at, c.updated_at`;

const toCampaign = (row: Row): Campaign => ({
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

const toSpeaker = (row: Row): Speaker => ({
  id: str(row.id),
  campaign_id: str(row.campaign_id),
  name: str(row.name),
  handle: strOrNull(row.handle),
  user_id: strOrNull(row.user_id),
  roles: jsonArray(row.roles),
  created_at: iso(row.created_at),
});

function users(db: SqlExecutor): UserRepository {
  return {
    async insert(user) {
      // `on conflict` rather than catching the violation: an error would abort the caller's transaction.
      const [row] = await db.query(
        `insert into users (id, name, email, role, created_at) values ($1, $2, $3, $4, $5::timestamptz)
         on conflict (email) do nothing returning *`,
        [user.id, user.name, user.email, user.role, user.created_at],
      );
      return row ? toUser(row) : null;
    },
    async get(id) {
      const [row] = await db.query(`select * from users where id = $1`, [id]);
      return row ? toUser(row) : null;
    },
    async findByEmail(email, options) {
      const [row] = await db.query(`select * from users where email = $1${lockClause(options)}`, [email]);
      return row ? toUser(row) : null;
    },
    async count() {
      return Number((await db.query(`select count(*)::int as n from users`))[0]!.n);
    },
  };
}

function apiKeys(db: SqlExecutor): ApiKeyRepository {
  return {
    async insert(key) {
      const [row] = await db.query(
        `insert into api_keys (id, user_id, prefix, key_hash, scopes, created_at)
         values ($1, $2, $3, $4, $5::text::jsonb, $6::timestamptz) returning *`,
        [key.id, key.user_id, key.prefix, key.hash, json(key.scopes), key.created_at],
      );
      return toKey(row!);
    },
    async findActiveByHash(hash) {
      const [row] = await db.query(`select id, user_id, scopes from api_keys where key_hash = $1 and revoked_at is null`, [hash]);
      return row ? { keyId: str(row.id), userId: str(row.user_id), scopes: jsonArray(row.scopes) } : null;
    },
    async findActiveByHashWithCampaign(hash, campaignId) {
      const [row] = await db.query(
        `select k.id as key_id, k.user_id as key_user_id, k.scopes as key_scopes, ${CAMPAIGN_COLUMNS}, m.roles as member_roles
         from api_keys k
         left join campaigns c on c.id = $2
         left join campaign_members m on m.campaign_id = c.id and m.user_id = k.user_id
         where k.key_hash = $1 and k.revoked_at is null`,
        [hash, campaignId],
      );
      if (!row) return null;
      return {
        key: { keyId: str(row.key_id), userId: str(row.key_user_id), scopes: jsonArray(row.key_scopes) },
        campaign: row.id == null ? null : { campaign: toCampaign(row), roles: jsonArray(row.member_roles) },
      };
    },
    async get(id) {
      const [row] = await db.query(`select * from api_keys where id = $1`, [id]);
      return row ? toKey(row) : null;
    },
    async revoke(id, at) {
      const rows = await db.query(
        `update api_keys set revoked_at = $2::timestamptz where id = $1 and revoked_at is null returning id`,
        [id, at],
      );
      return rows.length > 0;
    },
    async revokeAllForUserExcept(userId, keepHash, at) {
      const rows = await db.query(
        `update api_keys set revoked_at = $3::timestamptz where user_id = $1 and key_hash <> $2 and revoked_at is null returning id`,
        [userId, keepHash, at],
      );
      return rows.length;
    },
    async listForUser(userId) {
      const rows = await db.query(`select * from api_keys where user_id = $1 order by created_at desc, id desc`, [userId]);
      return rows.map(toKey);
    },
  };
}

const CAMPAIGN_WRITABLE = ["title", "description", "system", "summary", "language", "image", "mature", "archived_at"] as const;

function campaigns(db: SqlExecutor): CampaignRepository {
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
      const params: unknown[] = [];
      const where: string[] = [];
      if (filters.publicOnly) where.push(`c.public`);
      else {
        params.push(userId);
        where.push(`(c.owner_id = $1 or exists (select 1 from campaign_members m where m.campaign_id = c.id and m.user_id = $1))`);
      }
      if (filters.ownerId) {
        params.push(filters.ownerId);
        where.push(`c.owner_id = $${params.length}`);
      }
      if (filters.search) {
        params.push(likePattern(filters.search));
        where.push(`(c.title ilike $${params.length} or c.description ilike $${params.length})`);
      }
      if (filters.archived !== undefined) where.push(filters.archived ? `c.archived_at is not null` : `c.archived_at is null`);
      const { rows, total } = await paged(db, CAMPAIGN_COLUMNS, `from campaigns c where ${where.join(" and ")}`, `c.created_at desc, c.id desc`, params, page);
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
        `select (select count(*)::int from characters where campaign_id = $1) as characters,
                (select count(*)::int from sessions where campaign_id = $1) as sessions,
                (select count(*)::int from moments where campaign_id = $1) as moments,
                (select count(*)::int from beats where campaign_id = $1) as beats,
                (select count(*)::int from entities where campaign_id = $1 and kind = 'faction') as factions,
                (select count(*)::int from entities where campaign_id = $1 and kind = 'location') as locations,
                (select count(*)::int from entities where campaign_id = $1 and kind = 'item') as items`,
        [id],
      );
      const counts = emptyCounts();
      for (const kind of STAT_KINDS) counts[kind] = Number(row?.[kind] ?? 0);
      return counts;
    },
  };
}

function members(db: SqlExecutor): MemberRepository {
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

function speakers(db: SqlExecutor): SpeakerRepository {
  return {
    async insert(s) {
      const [row] = await db.query(
        `insert into speakers (id, campaign_id, name, handle, user_id, roles, created_at)
         values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::timestamptz)
         on conflict (campaign_id, lower(name)) do nothing returning *`,
        [s.id, s.campaign_id, s.name, s.handle, s.user_id, json(s.roles), s.created_at],
      );
      return row ? toSpeaker(row) : null;
    },
    async get(id) {
      const [row] = await db.query(`select * from speakers where id = $1`, [id]);
      return row ? toSpeaker(row) : null;
    },
    async list(campaignId) {
      const rows = await db.query(`select * from speakers where campaign_id = $1 order by created_at, id`, [campaignId]);
      return rows.map(toSpeaker);
    },
  };
}

function settings(db: SqlExecutor): CampaignSettingsRepository {
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

const repositoriesOn = (db: SqlExecutor): Repositories => ({
  users: users(db),
  apiKeys: apiKeys(db),
  campaigns: campaigns(db),
  members: members(db),
  speakers: speakers(db),
  settings: settings(db),
  characters: characters(db),
  entities: entities(db),
  links: links(db),
  lookup: lookup(db),
  search: searchIndex(db),
  tasks: tasks(db),
  sessions: sessions(db),
  quests: quests(db),
  journals: journals(db),
  folders: folders(db),
  transcripts: transcripts(db),
  castAnalyses: castAnalyses(db),
  handouts: handouts(db),
  beats: beats(db),
  moments: moments(db),
  recaps: recaps(db),
});

/** Carries a use case's failed Result out of the transaction, which the throw rolls back. */
class RolledBack extends Error {
  constructor(readonly result: unknown) {
    super("rolled back: the use case failed");
  }
}

const isFailedResult = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false && "error" in value;

export function sqlRecordStore(db: SqlDatabase): RecordStore {
  return {
    backend: db.backend,
    ...repositoriesOn(db),
    withTransaction: async (work, options) => {
      try {
        return await db.transaction(async (tx) => {
          const result = await work(repositoriesOn(tx));
          if (isFailedResult(result)) throw new RolledBack(result);
          return result;
        }, options);
      } catch (error) {
        if (error instanceof RolledBack) return error.result as Awaited<ReturnType<typeof work>>;
        throw error;
      }
    },
    async health() {
      const started = performance.now();
      const migrations = await migrationStatus(db);
      return { backend: db.backend, latency_ms: Math.round((performance.now() - started) * 100) / 100, migrations };
    },
    close: () => db.close(),
  };
}
