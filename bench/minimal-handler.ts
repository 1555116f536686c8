// What the two minimal PostgreSQL handlers of bench/http.ts share: settings, the HTTP shell around
// `GET /v1/campaigns/{id}` (route, id decoding, 404/500 answers, health) and a clean stop. Each
// handler file keeps only its own SQL and decisions, which is what it measures.
import postgres from "postgres";

export const JSON_HEADERS = { "content-type": "application/json" };
export const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
export const unauthorized = () => reply(401, { detail: "Invalid API key" }, { "www-authenticate": "Bearer" });

export const KEY_SHAPE = /^[A-Za-z0-9_\-]{20,200}$/;
const ROUTE = /^\/v1\/campaigns\/([^/]+)\/?$/;

/** `x-api-key`, or `Authorization: Bearer <key>`, as the service reads them. */
export const presentedKey = (headers: Headers): string | null => {
  const direct = headers.get("x-api-key");
  if (direct) return direct.trim();
  const match = headers.get("authorization")?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1]!.trim() : null;
};

export const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

/** PORT, DATABASE_URL and POOL_SIZE from the environment, and a postgres.js pool of that size. */
export function connectFromEnv(name: string): { port: number; poolSize: number; sql: postgres.Sql } {
  const port = Number(process.env.PORT);
  const url = process.env.DATABASE_URL;
  const poolSize = Number(process.env.POOL_SIZE ?? "10");
  if (!Number.isInteger(port) || port < 1 || port > 65535 || !url || !Number.isInteger(poolSize) || poolSize < 1) {
    console.error(`${name}: set PORT, DATABASE_URL and POOL_SIZE`);
    process.exit(2);
  }
  const sql = postgres(url, { max: poolSize, onnotice: () => {}, connection: { application_name: `cms-bench-${name}` } });
  return { port, poolSize, sql };
}

/** Serves `GET /v1/campaigns/{id}` with `read`, until SIGTERM or SIGINT. */
export function serveCampaignReads(name: string, { port, poolSize, sql }: ReturnType<typeof connectFromEnv>, read: (request: Request, campaignId: string) => Promise<Response>) {
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
        return await read(request, id);
      } catch (error) {
        console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
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
  console.log(`${name} listening on http://127.0.0.1:${server.port} (POOL_SIZE=${poolSize})`);
}
