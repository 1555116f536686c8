// Users and API keys on SQL.
import type { ApiKeyRecord, User, UserRole } from "../../domain/identity.ts";
import type { ApiKeyRepository, UserRepository } from "../../ports/records.ts";
import { CAMPAIGN_COLUMNS, toCampaign } from "./campaigns.ts";
import type { SqlExecutor } from "./database.ts";
import { json, jsonArray, lockClause, str } from "./rows.ts";
import { crud, oneOf, table, text, textList, timestamptz, timestamptzOrNull } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const USERS = table<User>("users", { id: text, name: text, email: text, role: oneOf<UserRole>(), created_at: timestamptz });

const KEYS = table<ApiKeyRecord>("api_keys", { id: text, user_id: text, prefix: text, scopes: textList, created_at: timestamptz, revoked_at: timestamptzOrNull });
const toKey = KEYS.toRecord;

export function users(db: SqlExecutor): UserRepository {
  return {
    async insert(user) {
      // `on conflict` rather than catching the violation: an error would abort the caller's transaction.
      const [row] = await db.query(`${USERS.insertSql} on conflict (email) do nothing returning *`, USERS.insertParams(user));
      return row ? USERS.toRecord(row) : null;
    },
    get: crud(db, USERS).get,
    async findByEmail(email, options) {
      const [row] = await db.query(`select * from users where email = $1${lockClause(options)}`, [email]);
      return row ? USERS.toRecord(row) : null;
    },
    async count() {
      return Number((await db.query(`select count(*)::int as n from users`))[0]!.n);
    },
  };
}

export function apiKeys(db: SqlExecutor): ApiKeyRepository {
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
    async isRevokedHash(hash) {
      const rows = await db.query(`select 1 from api_keys where key_hash = $1 and revoked_at is not null`, [hash]);
      return rows.length > 0;
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
    get: crud(db, KEYS).get,
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

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { users, apiKeys } satisfies SqlRepositories;
