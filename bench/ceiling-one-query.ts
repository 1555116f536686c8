// Ceiling (b): the least a correct `GET /v1/campaigns/{id}` can do on PostgreSQL — a hand-written
// Bun.serve handler that authenticates, authorizes and reads in ONE SQL statement (postgres.js).
//
//   PORT=<port> DATABASE_URL=postgres://... POOL_SIZE=<n> bun bench/ceiling-one-query.ts
//
// Same rules as the service: the key is looked up by its SHA-256 hex digest among unrevoked keys
// (401 otherwise, checked on every request, no cache); the caller must own the campaign, hold a
// member role, or the campaign must be public. A missing campaign is 404; an existing one the
// caller may not read is 403, as in the service. The body has the service's Campaign shape.
import { createHash } from "node:crypto";
import { connectFromEnv, iso, KEY_SHAPE, presentedKey, reply, serveCampaignReads, unauthorized } from "./minimal-handler.ts";

const database = connectFromEnv("ceiling-one-query");
const { sql } = database;

interface Row {
  user_id: string;
  id: string | null;
  title: string;
  description: string | null;
  system: string | null;
  summary: string | null;
  language: string;
  image: string | null;
  public: boolean;
  mature: boolean;
  owner_id: string;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date | null;
  allowed: boolean | null;
}

async function getCampaign(request: Request, campaignId: string): Promise<Response> {
  const key = presentedKey(request.headers);
  if (!key || !KEY_SHAPE.test(key)) return unauthorized();
  const digest = createHash("sha256").update(key).digest("hex");
  // One statement: key (unrevoked) -> caller; campaign; caller's membership; the read decision.
  const rows = await sql<Row[]>`
    select k.user_id,
           c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature,
           c.owner_id, c.archived_at, c.created_at, c.updated_at,
           (c.owner_id = k.user_id or c.public
             or coalesce(m.roles ?| array['owner', 'admin', 'player', 'viewer'], false)) as allowed
      from api_keys k
      left join campaigns c on c.id = ${campaignId}
      left join campaign_members m on m.campaign_id = c.id and m.user_id = k.user_id
     where k.key_hash = ${digest} and k.revoked_at is null`;
  const row = rows[0];
  if (!row) return unauthorized();
  if (row.id === null) return reply(404, { detail: "Campaign not found" });
  if (!row.allowed) return reply(403, { detail: "Access denied to this campaign" });
  return reply(200, {
    id: row.id,
    title: row.title,
    description: row.description,
    system: row.system,
    summary: row.summary,
    language: row.language,
    image: row.image,
    public: row.public,
    mature: row.mature,
    owner_id: row.owner_id,
    archived: row.archived_at !== null,
    archived_at: row.archived_at === null ? null : iso(row.archived_at),
    created_at: iso(row.created_at),
    updated_at: row.updated_at === null ? null : iso(row.updated_at),
  });
}

serveCampaignReads("ceiling-one-query", database, getCampaign);
