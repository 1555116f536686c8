// Exploration only (BENCH_EXPLORE): the one-query ceiling's minimal Bun.serve handler, but issuing
// the two statements the service used for this route before commit 103a04f, one after the other —
// the key lookup of `findActiveByHash`, then `getWithStanding` — through postgres.js exactly as the
// service's SQL adapter does (`unsafe(text, params, { prepare: true })`). The gap between this and
// the one-query ceiling is the price of the second round trip.
//
//   PORT=<port> DATABASE_URL=postgres://... POOL_SIZE=<n> bun bench/variant-two-queries.ts
import { createHash } from "node:crypto";
import postgres from "postgres";
import { connectFromEnv, iso, KEY_SHAPE, presentedKey, reply, serveCampaignReads, unauthorized } from "./minimal-handler.ts";

const database = connectFromEnv("variant-two-queries");
const query = async (text: string, params: unknown[]) =>
  (await database.sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as Record<string, unknown>[];

const READ_ROLES = ["owner", "admin", "player", "viewer"];

const strOrNull = (value: unknown): string | null => (value == null ? null : String(value));

async function getCampaign(request: Request, campaignId: string): Promise<Response> {
  const key = presentedKey(request.headers);
  if (!key || !KEY_SHAPE.test(key)) return unauthorized();
  const digest = createHash("sha256").update(key).digest("hex");
  const [caller] = await query(`select id, user_id, scopes from api_keys where key_hash = $1 and revoked_at is null`, [digest]);
  if (!caller) return unauthorized();
  const userId = String(caller.user_id);
  const [row] = await query(
    `select c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature,
  c.owner_id, c.archived_at, c.created_at, c.updated_at, m.roles as member_roles
         from campaigns c left join campaign_members m on m.campaign_id = c.id and m.user_id = $2
         where c.id = $1`,
    [campaignId, userId],
  );
  if (!row) return reply(404, { detail: "Campaign not found" });
  const roles = Array.isArray(row.member_roles) ? row.member_roles.map(String) : [];
  if (!(row.owner_id === userId || row.public === true || roles.some((role) => READ_ROLES.includes(role))))
    return reply(403, { detail: "Access denied to this campaign" });
  return reply(200, {
    id: String(row.id),
    title: String(row.title),
    description: strOrNull(row.description),
    system: strOrNull(row.system),
    summary: strOrNull(row.summary),
    language: String(row.language),
    image: strOrNull(row.image),
    public: Boolean(row.public),
    mature: Boolean(row.mature),
    owner_id: String(row.owner_id),
    archived: row.archived_at != null,
    archived_at: row.archived_at == null ? null : iso(row.archived_at),
    created_at: iso(row.created_at),
    updated_at: row.updated_at == null ? null : iso(row.updated_at),
  });
}

serveCampaignReads("variant-two-queries", database, getCampaign);
