// The first start of a new version on a database whose schema is behind (issue 15): the service
// applies the pending migrations before /health answers and serves the data written before them.
// On PGlite they run in a process of their own (infra/migrate-pglite.ts), so the serving process
// never carries the heap they grew; a later start with nothing pending spawns nothing.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite, openPostgres, type SqlDatabase } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { loadMigrations } from "../../infra/schema.ts";
import { forEachBackend } from "../support/backends.ts";
import { client } from "../support/client.ts";
import { scratchDatabase, type ScratchDatabase } from "../support/postgres.ts";
import { randomAdminKey, startServer, type TestServer } from "../support/server.ts";

const T = "2026-01-01T00:00:00Z";
const ALL = loadMigrations();
/** The last version before the upgrade: 0056 (a backfill of every campaign's words) and what follows are pending. */
const BEFORE = "0056";
const PENDING = ALL.filter((m) => m.version >= BEFORE).map((m) => m.version);
const QUESTS = 120;

const dirs: string[] = [];
const scratches: ScratchDatabase[] = [];
afterAll(async () => {
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  for (const scratch of scratches) await scratch.drop();
});

/** What a user of the older version wrote: a campaign with quests and characters, in its schema. */
async function writeBeforeUpgrade(db: SqlDatabase) {
  await applyMigrations(db, ALL.filter((m) => m.version < BEFORE));
  await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [T]);
  await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'Before the upgrade', 'u1', $1)`, [T]);
  // Quest names: "Dragon 1" … "Dragon 120" and one "Vestige hunt"; quest search reads its words
  // through 0056's suffix table, which only its backfill fills for quests written before it.
  await db.query(
    `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
     select 'q' || g, 'c1', g, 'Dragon ' || g, 'main', 'planned', 'Dragon ' || g, $1::timestamptz + g * interval '1 second' from generate_series(1, $2::int) g`,
    [T, QUESTS],
  );
  await db.query(
    `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
     values ('qv', 'c1', 1000, 'Vestige hunt', 'side', 'in-progress', 'Vestige hunt', $1)`,
    [T],
  );
  await db.query(
    `insert into characters (id, campaign_id, character_name, type, approved, search_text, created_at)
     values ('ch1', 'c1', 'Vex', 'PC', true, 'Vex', $1), ('ch2', 'c1', 'Scanlan', 'PC', true, 'Scanlan', $1)`,
    [T],
  );
}

await forEachBackend("first start after an upgrade", (backend) => {
  test(
    "pending migrations are applied before /health answers; the data written before is served; a restart applies nothing",
    async () => {
      const adminKey = randomAdminKey();
      const env: Record<string, string> = { CMS_ADMIN_KEY: adminKey, LOG_LEVEL: "info" };
      const dataDir = mkdtempSync(join(tmpdir(), "cms-upgrade-"));
      dirs.push(dataDir);
      if (backend.name === "pglite") {
        // A folder the older version made (initdb here: its image is not this version's).
        const db = await openPglite(join(dataDir, "pglite"));
        await writeBeforeUpgrade(db).finally(() => db.close());
      } else {
        const scratch = await scratchDatabase("upgrade");
        scratches.push(scratch);
        const db = openPostgres(scratch.url, { maxConnections: 2 });
        await writeBeforeUpgrade(db).finally(() => db.close());
        env.DATABASE_URL = scratch.url;
      }
      const start = () => startServer(env, { keepDataDir: dataDir });
      const logLines = (server: TestServer) =>
        server
          .output()
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Record<string, unknown>);

      let server = await start();
      try {
        // startServer returned at the first 200 from /health: every migration is there by then.
        const health = await fetch(`${server.url}/health/database`);
        expect(health.status).toBe(200);
        expect((await health.json()).migrations).toEqual({ applied: ALL.length, latest: ALL.at(-1)!.version });

        const admin = client(server.url, adminKey);
        const issued = await admin.post("/internal/v1/users/u1/keys", {});
        expect(issued.status).toBe(201);
        const api = client(server.url, issued.body.key);
        const campaign = await api.get("/v1/campaigns/c1");
        expect(campaign.status).toBe(200);
        expect(campaign.body).toMatchObject({ id: "c1", title: "Before the upgrade" });
        const dragons = await api.get("/v1/quests?campaign_id=c1&search=dragon%2011&size=5");
        expect(dragons.status).toBe(200);
        // "dragon 11" and the heads after it: 11, 110 … 119.
        expect(dragons.body.total).toBe(11);
        expect(dragons.body.data.map((q: { quest_name: string }) => q.quest_name)).toEqual(["Dragon 11", "Dragon 110", "Dragon 111", "Dragon 112", "Dragon 113"]);
        const vestige = await api.get("/v1/quests?campaign_id=c1&search=estig");
        expect(vestige.body.data.map((q: { id: string }) => q.id)).toEqual(["qv"]);
        const characters = await api.get("/v1/characters?campaign_id=c1");
        expect(characters.body.total).toBe(2);
        expect(characters.body.data.map((c: { character_name: string }) => c.character_name).sort()).toEqual(["Scanlan", "Vex"]);

        const lines = logLines(server);
        if (backend.name === "pglite") {
          // Applied by the migration process, before the server listened; none left for the server itself.
          const applied = lines.filter((line) => line.message === "migrations applied before serving");
          expect(applied).toHaveLength(1);
          expect(applied[0]!.versions).toEqual(PENDING);
          expect(lines.findIndex((line) => line.message === "migrations applied before serving")).toBeLessThan(lines.findIndex((line) => line.message === "listening"));
          expect(lines.filter((line) => line.message === "migrations applied")).toEqual([]);
        } else {
          expect(lines.find((line) => line.message === "migrations applied")?.versions).toEqual(PENDING);
        }
      } finally {
        await server.stop();
      }

      server = await start();
      try {
        const api = client(server.url, (await client(server.url, adminKey).post("/internal/v1/users/u1/keys", {})).body.key);
        expect((await api.get("/v1/quests?campaign_id=c1&search=dragon%2011&size=5")).body.total).toBe(11);
        const messages = logLines(server).map((line) => line.message);
        expect(messages).not.toContain("checking the database's migrations before serving");
        expect(messages).not.toContain("migrations applied");
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
});
