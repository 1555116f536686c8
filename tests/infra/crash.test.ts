// kill -9 in the middle of work, on both backends: after a restart on the same data every
// acknowledged write is there, an interrupted transcript import is whole or absent, and the
// server starts at once (no lock left behind).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { forEachBackend } from "../support/backends.ts";
import { client, newUser } from "../support/client.ts";
import { POSTGRES_ADMIN_URL, scratchDatabase, type ScratchDatabase } from "../support/postgres.ts";
import { rawRequest } from "../support/raw.ts";
import { randomAdminKey, startServer } from "../support/server.ts";

const CRD3 = readFileSync(join(import.meta.dir, "..", "fixtures", "crd3", "C1E002.json"), "utf8");
// Counted here, not by the service: turns with any text.
const TURNS = (JSON.parse(CRD3) as { TURNS: { UTTERANCES: string[] }[] }).TURNS.filter((t) => t.UTTERANCES.join(" ").trim()).length;

/** Waits until a backend of `database` is inserting utterances; false if none is seen in time. */
async function insertingUtterances(database: string, withinMs: number): Promise<boolean> {
  const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
      const rows = await sql`select 1 from pg_stat_activity where datname = ${database} and state = 'active' and query like 'insert into transcript_utterances%'`;
      if (rows.length) return true;
    }
    return false;
  } finally {
    await sql.end();
  }
}

const dirs: string[] = [];
const scratches: ScratchDatabase[] = [];
afterAll(async () => {
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  for (const scratch of scratches) await scratch.drop();
});

await forEachBackend("kill -9", (backend) => {
  test(
    "acknowledged writes survive, an interrupted import is whole or absent, the restart is immediate",
    async () => {
      const adminKey = randomAdminKey();
      const dataDir = mkdtempSync(join(tmpdir(), "cms-crash-"));
      dirs.push(dataDir);
      const env: Record<string, string> = { CMS_ADMIN_KEY: adminKey };
      let database: string | null = null;
      if (backend.name === "postgres") {
        const scratch = await scratchDatabase("crash");
        scratches.push(scratch);
        env.DATABASE_URL = scratch.url;
        database = new URL(scratch.url).pathname.slice(1);
      }
      const start = () => startServer(env, { keepDataDir: dataDir });

      let server = await start();
      const gm = await newUser(server.url, adminKey, "Matt");
      const campaignId = (await gm.api.post("/v1/campaigns", { title: "Crash course" })).body.id as string;
      const acknowledged = new Map<string, string>(); // character id → name
      const sessions: string[] = [];

      const importCrd3 = (url: string, sessionId: string, pieceSize: number, delayMs: number) =>
        rawRequest(url, {
          method: "POST",
          path: `/internal/v1/sessions/${sessionId}/transcript`,
          headers: { "x-api-key": adminKey, "content-type": "application/json", "content-length": String(Buffer.byteLength(CRD3)) },
          pieces: Array.from({ length: Math.ceil(CRD3.length / pieceSize) }, (_, i) => CRD3.slice(i * pieceSize, (i + 1) * pieceSize)),
          delayMs,
          timeoutMs: 60_000,
        });

      // How long a whole import takes here, to aim the second kill into its write.
      const warmSession = (await client(server.url, adminKey).post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "Warm-up", session_date: "2015-03-12T19:00:00Z" })).body.id;
      const warmStarted = performance.now();
      const warm = await importCrd3(server.url, warmSession, CRD3.length, 0);
      const importMs = performance.now() - warmStarted;
      expect(warm.status).toBe(201);
      sessions.push(warmSession);

      // Round 1: killed while the import's body is still arriving, straight after the last of a
      // run of acknowledged writes. Round 2: the whole body is in; killed inside the import's
      // write (on PostgreSQL once it is seen inserting utterances; on PGlite, which cannot be
      // watched, at 60% of an import's time, parsing being the first 10-15%), with writes
      // acknowledged meanwhile.
      for (const round of [1, 2]) {
        const admin = client(server.url, adminKey);
        const session = await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: `Round ${round}`, session_date: "2015-03-19T19:00:00Z" });
        expect(session.status).toBe(201);
        sessions.push(session.body.id);
        const importing = (round === 1 ? importCrd3(server.url, session.body.id, 16 * 1024, 20) : importCrd3(server.url, session.body.id, CRD3.length, 0)).catch((error: Error) => error);

        const api = client(server.url, gm.key);
        let writing = true;
        const writes = (async () => {
          for (let i = 0; writing; i++) {
            const name = `Round ${round} character ${i}`;
            const created = await api.post("/v1/characters", { campaign_id: campaignId, character_name: name }).catch(() => null);
            if (!created) return; // the server is gone
            expect(created.status).toBe(201);
            acknowledged.set(created.body.id, name);
            if (round === 1 && i === 14) return;
          }
        })();
        if (round === 1) await writes;
        else if (database) expect(await insertingUtterances(database, importMs * 3)).toBe(true);
        else await Bun.sleep(importMs * 0.6);
        server.process.kill(9);
        writing = false;
        await writes;
        await importing;

        const restartedAt = performance.now();
        server = await start();
        const startSeconds = (performance.now() - restartedAt) / 1000;
        expect(server.output()).not.toContain("in use");
        expect(startSeconds).toBeLessThan(30);

        const after = client(server.url, gm.key);
        for (const [id, name] of acknowledged) {
          const character = await after.get(`/v1/characters/${id}`);
          expect(character.status).toBe(200);
          expect(character.body.character_name).toBe(name);
        }
        for (const sessionId of sessions) {
          const transcript = await after.get(`/v1/sessions/${sessionId}/transcript`);
          const analysis = await after.get(`/v1/sessions/${sessionId}/cast-analysis`);
          if (transcript.status === 404) {
            expect(transcript.body).toEqual({ detail: "Transcript not found for this session" });
            expect(analysis.status).toBe(404);
          } else {
            expect(transcript.status).toBe(200);
            expect(transcript.body.stats.utterance_count).toBe(TURNS);
            expect(transcript.body.utterances).toHaveLength(TURNS);
            expect(analysis.status).toBe(200);
          }
        }
      }

      // The data is usable: the interrupted import goes through now.
      const again = await rawRequest(server.url, {
        method: "POST",
        path: `/internal/v1/sessions/${sessions[1]}/transcript`,
        headers: { "x-api-key": adminKey, "content-type": "application/json", "content-length": String(Buffer.byteLength(CRD3)) },
        pieces: [CRD3],
        timeoutMs: 60_000,
      });
      expect(again.status).toBe(201);
      expect(JSON.parse(again.body).utterance_count).toBe(TURNS);
      await server.stop();
    },
    180_000,
  );
});
