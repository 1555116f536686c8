// OAuth clients, grants, codes, tokens and sign-ins on SQL; the shared rate-limit buckets.
import type { OAuthScope } from "../../domain/oauth.ts";
import type { ActiveAccessToken, OAuthClient, OAuthCode, OAuthGrant, OAuthRepository, OAuthToken, RateLimitStore } from "../../ports/records.ts";
import { CAMPAIGN_COLUMNS, toCampaign } from "./campaigns.ts";
import type { Row, SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";
import { json, jsonArray, lockClause, str } from "./rows.ts";
import { jsonb, oneOf, oneOfList, recordOf, text, textList, textOrNull, timestamptz, timestamptzOrNull } from "./table.ts";

const toClient = recordOf<OAuthClient>({
  id: text,
  client_name: text,
  redirect_uris: textList,
  scope: textOrNull,
  metadata: jsonb<Record<string, unknown>>({}),
  created_at: timestamptz,
});

const toGrant = recordOf<OAuthGrant>({
  id: text,
  user_id: text,
  client_id: text,
  client_name: text,
  scopes: oneOfList<OAuthScope>(),
  resource: text,
  created_at: timestamptz,
  last_used_at: timestamptzOrNull,
  revoked_at: timestamptzOrNull,
});

/** What a client asked a user for: a code carries it until it is exchanged for a grant. */
const requested = { client_id: text, user_id: text, scopes: oneOfList<OAuthScope>(), resource: text };

const toCode = recordOf<OAuthCode>({
  code_hash: text,
  ...requested,
  redirect_uri: text,
  code_challenge: text,
  expires_at: timestamptz,
  used_at: timestamptzOrNull,
  grant_id: textOrNull,
});

const toToken = recordOf<OAuthToken>({
  token_hash: text,
  grant_id: text,
  kind: oneOf<OAuthToken["kind"]>(),
  created_at: timestamptz,
  expires_at: timestamptz,
  used_at: timestamptzOrNull,
  revoked_at: timestamptzOrNull,
});

const toActive = (row: Row): ActiveAccessToken => ({ grantId: str(row.grant_id), userId: str(row.grant_user_id), scopes: jsonArray(row.grant_scopes) as OAuthScope[] });

const GRANT_SELECT = `select g.*, c.client_name from oauth_grants g join oauth_clients c on c.id = g.client_id`;
const ACTIVE_TOKEN = `from oauth_tokens t join oauth_grants g on g.id = t.grant_id
  where t.token_hash = $1 and t.kind = 'access' and t.revoked_at is null and t.expires_at > $2::timestamptz and g.revoked_at is null`;

export function oauth(db: SqlExecutor): OAuthRepository {
  return {
    async insertClient(client) {
      const [row] = await db.query(
        `insert into oauth_clients (id, client_name, redirect_uris, scope, metadata, created_at)
         values ($1, $2, $3::text::jsonb, $4, $5::text::jsonb, $6::timestamptz) returning *`,
        [client.id, client.client_name, json(client.redirect_uris), client.scope, json(client.metadata), client.created_at],
      );
      return toClient(row!);
    },
    async getClient(id) {
      const [row] = await db.query(`select * from oauth_clients where id = $1`, [id]);
      return row ? toClient(row) : null;
    },
    async insertGrant(grant) {
      await db.query(
        `insert into oauth_grants (id, user_id, client_id, scopes, resource, created_at) values ($1, $2, $3, $4::text::jsonb, $5, $6::timestamptz)`,
        [grant.id, grant.user_id, grant.client_id, json(grant.scopes), grant.resource, grant.created_at],
      );
    },
    async getGrant(id, options) {
      const [row] = await db.query(`${GRANT_SELECT} where g.id = $1${lockClause(options, "g")}`, [id]);
      return row ? toGrant(row) : null;
    },
    async listGrants(userId) {
      const rows = await db.query(`${GRANT_SELECT} where g.user_id = $1 order by g.created_at desc, g.id desc`, [userId]);
      return rows.map(toGrant);
    },
    async revokeGrant(id, at) {
      const rows = await db.query(`update oauth_grants set revoked_at = $2::timestamptz where id = $1 and revoked_at is null returning id`, [id, at]);
      return rows.length > 0;
    },
    async insertCode(code) {
      await db.query(
        `insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, resource, expires_at)
         values ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8::timestamptz)`,
        [code.code_hash, code.client_id, code.user_id, code.redirect_uri, code.code_challenge, json(code.scopes), code.resource, code.expires_at],
      );
    },
    async getCode(hash, options) {
      const [row] = await db.query(`select * from oauth_codes where code_hash = $1${lockClause(options)}`, [hash]);
      return row ? toCode(row) : null;
    },
    async markCodeUsed(hash, at, grantId) {
      await db.query(`update oauth_codes set used_at = $2::timestamptz, grant_id = $3 where code_hash = $1`, [hash, at, grantId]);
    },
    async insertToken(token) {
      await db.query(
        `insert into oauth_tokens (token_hash, grant_id, kind, created_at, expires_at) values ($1, $2, $3, $4::timestamptz, $5::timestamptz)`,
        [token.token_hash, token.grant_id, token.kind, token.created_at, token.expires_at],
      );
    },
    async getToken(hash, options) {
      const [row] = await db.query(`select * from oauth_tokens where token_hash = $1${lockClause(options)}`, [hash]);
      return row ? toToken(row) : null;
    },
    async markTokenUsed(hash, at) {
      await db.query(`update oauth_tokens set used_at = $2::timestamptz where token_hash = $1`, [hash, at]);
    },
    async revokeToken(hash, at) {
      await db.query(`update oauth_tokens set revoked_at = coalesce(revoked_at, $2::timestamptz) where token_hash = $1`, [hash, at]);
    },
    async findActiveAccessToken(hash, now) {
      const [row] = await db.query(`select g.id as grant_id, g.user_id as grant_user_id, g.scopes as grant_scopes ${ACTIVE_TOKEN}`, [hash, now]);
      return row ? toActive(row) : null;
    },
    async findActiveAccessTokenWithCampaign(hash, now, campaignId) {
      const [row] = await db.query(
        `select g.id as grant_id, g.user_id as grant_user_id, g.scopes as grant_scopes, ${CAMPAIGN_COLUMNS}, m.roles as member_roles
         from oauth_tokens t join oauth_grants g on g.id = t.grant_id
         left join campaigns c on c.id = $3
         left join campaign_members m on m.campaign_id = c.id and m.user_id = g.user_id
         where t.token_hash = $1 and t.kind = 'access' and t.revoked_at is null and t.expires_at > $2::timestamptz and g.revoked_at is null`,
        [hash, now, campaignId],
      );
      if (!row) return null;
      return { token: toActive(row), campaign: row.id == null ? null : { campaign: toCampaign(row), roles: jsonArray(row.member_roles) } };
    },
    async insertSignin(signin) {
      await db.query(`insert into oauth_signins (id_hash, user_id, expires_at) values ($1, $2, $3::timestamptz)`, [signin.id_hash, signin.user_id, signin.expires_at]);
    },
    async signedInUser(hash, now) {
      const [row] = await db.query(`select user_id from oauth_signins where id_hash = $1 and expires_at > $2::timestamptz`, [hash, now]);
      return row ? str(row.user_id) : null;
    },
    async insertLoginLink(link) {
      await db.query(`insert into oauth_login_links (id_hash, user_id, expires_at) values ($1, $2, $3::timestamptz)`, [link.id_hash, link.user_id, link.expires_at]);
    },
    async consumeLoginLink(hash, now) {
      const [row] = await db.query(
        `update oauth_login_links set used_at = $2::timestamptz where id_hash = $1 and used_at is null and expires_at > $2::timestamptz returning user_id`,
        [hash, now],
      );
      return row ? str(row.user_id) : null;
    },
  };
}

export function rateLimitStore(db: SqlExecutor): RateLimitStore {
  return {
    async spend(spent, perSecond, burst) {
      if (!spent.length) return new Map();
      // One statement for every subject this instance saw since its last flush.
      const rows = await db.query(
        `insert into rate_limit_buckets as b (subject, tokens, updated_at)
         select u.subject, $2::float8 - u.count, now() from jsonb_to_recordset($1::text::jsonb) as u(subject text, count float8)
         on conflict (subject) do update set
           tokens = greatest(-$2::float8, least($2::float8, b.tokens + extract(epoch from (now() - b.updated_at)) * $3::float8) - ($2::float8 - excluded.tokens)),
           updated_at = now()
         returning subject, tokens`,
        [json(spent), burst, perSecond],
      );
      return new Map(rows.map((row) => [str(row.subject), Number(row.tokens)]));
    },
    async prune(seconds) {
      const rows = await db.query(`delete from rate_limit_buckets where updated_at < now() - make_interval(secs => $1::float8) returning subject`, [seconds]);
      return rows.length;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { oauth, rateLimits: rateLimitStore } satisfies SqlRepositories;
