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
import postgres from "postgres";

const port = Number(process.env.PORT);
const url = process.env.DATABASE_URL;
const poolSize = Number(process.env.POOL_SIZE ?? "10");
if (!Number.isInteger(port) || port < 1 || port > 65535 || !url || !Number.isInteger(poolSize) || poolSize < 1) {
  console.error("ceiling-one-query: set PORT, DATABASE_URL and POOL_SIZE");
  process.exit(2);
}

const sql = postgres(url, { max: poolSize, onnotice: () => {}, connection: { application_name: "cms-bench-one-query" } });

const JSON_HEADERS = { "content-type": "application/json" };
const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
const unauthorized = () => reply(401, { detail: "Invalid API key" }, { "www-authenticate": "Bearer" });

const KEY_SHAPE = /^[A-Za-z0-9_\-]{20,200}$/;
const ROUTE = /^\/v1\/campaigns\/([^/]+)\/?$/;

const presentedKey = (headers: Headers): string | null => {
  const direct = headers.get("x-api-key");
  if (direct) return direct.trim();
  const match = headers.get("authorization")?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1]!.trim() : null;
};

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

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
           c.owner_id, c.created_at, c.updated_at,
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
    created_at: iso(row.created_at),
    updated_at: row.updated_at === null ? null : iso(row.updated_at),
  });
}

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/health") return reply(200, { status: "ok" });
    const match = request.method === "GET" ? pathname.match(ROUTE) : null;
    if (!match) return reply(404, { detail: "Not Found" });
    let id: string;
    try {
      id = decodeURIComponent(match[1]!);
    } catch {
      return reply(404, { detail: "Campaign not found" });
    }
    if (id.length > 200) return reply(404, { detail: "Campaign not found" });
    try {
      return await getCampaign(request, id);
    } catch (error) {
      console.error(`ceiling-one-query: ${error instanceof Error ? error.message : String(error)}`);
      return reply(500, { detail: "Internal server error" });
    }
  },
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  server.stop(true);
  await sql.end({ timeout: 2 }).catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
console.log(`ceiling-one-query listening on http://127.0.0.1:${server.port} (POOL_SIZE=${poolSize})`);
