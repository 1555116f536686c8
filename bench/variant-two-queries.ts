// Exploration only (BENCH_EXPLORE): the one-query ceiling's minimal Bun.serve handler, but issuing
// the two statements the service used for this route before commit 103a04f, one after the other —
// the key lookup of `findActiveByHash`, then `getWithStanding` — through postgres.js exactly as the
// service's SQL adapter does (`unsafe(text, params, { prepare: true })`). The gap between this and
// the one-query ceiling is the price of the second round trip.
//
//   PORT=<port> DATABASE_URL=postgres://... POOL_SIZE=<n> bun bench/variant-two-queries.ts
import { createHash } from "node:crypto";
import postgres from "postgres";

const port = Number(process.env.PORT);
const url = process.env.DATABASE_URL;
const poolSize = Number(process.env.POOL_SIZE ?? "10");
if (!Number.isInteger(port) || port < 1 || port > 65535 || !url || !Number.isInteger(poolSize) || poolSize < 1) {
  console.error("variant-two-queries: set PORT, DATABASE_URL and POOL_SIZE");
  process.exit(2);
}

const sql = postgres(url, { max: poolSize, onnotice: () => {}, connection: { application_name: "cms-bench-two-queries" } });
const query = async (text: string, params: unknown[]) =>
  (await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as Record<string, unknown>[];

const JSON_HEADERS = { "content-type": "application/json" };
const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
const unauthorized = () => reply(401, { detail: "Invalid API key" }, { "www-authenticate": "Bearer" });

const KEY_SHAPE = /^[A-Za-z0-9_\-]{20,200}$/;
const ROUTE = /^\/v1\/campaigns\/([^/]+)\/?$/;
const READ_ROLES = ["owner", "admin", "player", "viewer"];

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();
const strOrNull = (value: unknown): string | null => (value == null ? null : String(value));

async function getCampaign(request: Request, campaignId: string): Promise<Response> {
  const key = request.headers.get("x-api-key")?.trim() ?? request.headers.get("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (!key || !KEY_SHAPE.test(key)) return unauthorized();
  const digest = createHash("sha256").update(key).digest("hex");
  const [caller] = await query(`select id, user_id, scopes from api_keys where key_hash = $1 and revoked_at is null`, [digest]);
  if (!caller) return unauthorized();
  const userId = String(caller.user_id);
  const [row] = await query(
    `select c.id, c.title, c.description, c.system, c.summary, c.language, c.image, c.public, c.mature,
  c.owner_id, c.created_at, c.updated_at, m.roles as member_roles
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
    created_at: iso(row.created_at),
    updated_at: row.updated_at == null ? null : iso(row.updated_at),
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
    try {
      return await getCampaign(request, id);
    } catch (error) {
      console.error(`variant-two-queries: ${error instanceof Error ? error.message : String(error)}`);
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
console.log(`variant-two-queries listening on http://127.0.0.1:${server.port} (POOL_SIZE=${poolSize})`);
