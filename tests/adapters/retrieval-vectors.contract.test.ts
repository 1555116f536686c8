// Ask's dense vectors on every way they can be ranked: PGlite (in the application), PostgreSQL in
// the application, and PostgreSQL with pgvector when the server has it. The embedder is the real
// Gemini adapter talking to the local fake (tests/support/fake-gemini.ts), whose "model" treats the
// synonym groups below as one meaning, so a paraphrase sharing no word with a passage can be found
// by vector only. The background worker embeds what the writes added.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GeminiEmbedder } from "../../adapters/ai/gemini.ts";
import { sqlRetriever } from "../../adapters/sql/retrieval.ts";
import { applicationIndex, detectPgvector, pgvectorIndex, type VectorSearch } from "../../adapters/sql/vectors.ts";
import { openPostgres, type SqlDatabase } from "../../adapters/sql/database.ts";
import { parseConfig } from "../../infra/config.ts";
import { startWorker } from "../../infra/worker.ts";
import type { Passage, RetrievalQuery } from "../../ports/retrieval.ts";
import { recordBackends, announceSkip, type Backend } from "../support/backends.ts";
import { FAKE_GEMINI_KEY, rateLimited, startFakeGemini } from "../support/fake-gemini.ts";
import { inProcessService } from "../support/inprocess.ts";
import { POSTGRES_ADMIN_URL } from "../support/postgres.ts";

const fake = startFakeGemini({ synonyms: [["stole", "pinched", "nicked"], ["sword", "blade"], ["vault", "strongroom"], ["cursed", "hexed"], ["crown", "tiara"]] });
afterAll(() => fake.stop());
const gemini = { ...parseConfig({ GEMINI_API_KEY: FAKE_GEMINI_KEY, GEMINI_BASE_URL: fake.url }).gemini };

/** Why pgvector cannot be tried here, or null when the server has the extension. */
async function pgvectorUnavailable(postgresReason: string | null): Promise<string | null> {
  if (postgresReason) return postgresReason;
  const db = openPostgres(POSTGRES_ADMIN_URL, { maxConnections: 1 });
  try {
    const [row] = await db.query(
      `select exists (select 1 from pg_available_extensions where name = 'vector') as available,
              (select rolsuper from pg_roles where rolname = current_user)
                or exists (select 1 from pg_available_extension_versions where name = 'vector' and trusted) as may_create`,
    );
    if (!row?.available) return "the server has no vector extension (pgvector is packaged by PGDG as postgresql-15-pgvector; Debian bookworm has none); the application ranks vectors there";
    return row.may_create ? null : "the server has the vector extension but the test user may not create it (not a superuser, extension not trusted)";
  } finally {
    await db.close();
  }
}

const backends = await recordBackends();
const postgres = backends.find((b) => b.name === "postgres")!;
const cases: { label: string; backend: Backend; search: VectorSearch; skip: string | null }[] = [
  { label: "pglite (application ranking)", backend: backends.find((b) => b.name === "pglite")!, search: "application", skip: null },
  { label: "postgres (application ranking)", backend: postgres, search: "application", skip: postgres.skipReason },
  { label: "postgres with pgvector", backend: postgres, search: "pgvector", skip: await pgvectorUnavailable(postgres.skipReason) },
];

for (const c of cases) {
  if (c.skip && c.search === "pgvector") console.warn(`\n*** SKIPPED BACKEND pgvector: Ask dense retrieval on ${c.label}: ${c.skip} ***\n`);
  else if (c.skip) announceSkip("Ask dense retrieval", c.backend);
  describe.skipIf(Boolean(c.skip))(`Ask dense retrieval on ${c.label}`, () => {
    let closeDb: () => Promise<void>;
    let db: SqlDatabase;
    let service: Awaited<ReturnType<typeof inProcessService>>;
    const users: Record<"gm" | "ann" | "bob", { id: string; key: string }> = {} as never;
    let campaignId = "";

    const call = (method: string, path: string, key: string, body?: unknown) => service.call(method, path, key, body);
    const post = (path: string, body: unknown, key = users.gm.key) => service.post(path, body, key);
    const ask = (text: string, extra: Partial<RetrievalQuery> = {}): Promise<Passage[]> =>
      service.deps.retriever.retrieve({ campaignId, text, journals: { all: true }, limit: 5, ...extra });
    const pending = () => service.deps.retriever.indexPending!(null);

    beforeAll(async () => {
      const opened = await c.backend.open();
      closeDb = opened.close;
      db = opened.db;
      if (c.search === "pgvector") expect(await detectPgvector(opened.db, opened.db.backend)).toBe(true);
      service = await inProcessService(opened.db, {
        config: { gemini },
        // PGlite keeps the retriever buildDeps wired from GEMINI_API_KEY (it finds no pgvector and ranks
        // in the application); PostgreSQL gets one told which vector search this case is about.
        deps: () => (c.backend.name === "pglite" ? {} : { retriever: sqlRetriever(opened.db, { embedder: new GeminiEmbedder({ ...gemini, apiKey: FAKE_GEMINI_KEY }), vectorSearch: c.search }) }),
      });
      for (const name of ["gm", "ann", "bob"] as const) users[name] = await service.newUser(name, `${name}.${crypto.randomUUID().slice(0, 6)}@example.test`);
      campaignId = (await post("/v1/campaigns", { title: "Vox Machina" })).id;
      for (const name of ["ann", "bob"] as const)
        await call("POST", `/internal/v1/campaigns/${campaignId}/members`, service.adminKey, { user_id: users[name].id, role: "player" });
      await post("/v1/locations", { campaign_id: campaignId, name: "Emon", description: "The capital, with a market and the council's keep." });
      await post("/v1/items", { campaign_id: campaignId, name: "Bag of holding", description: "Keeps the party's gold and a spare rope." });
    });
    afterAll(async () => {
      await service?.close();
      await closeDb?.();
    });

    test("a paraphrase sharing no word with a passage finds it by vector once the passages are embedded", async () => {
      const id = (await post("/v1/characters", { campaign_id: campaignId, character_name: "Scanlan Shorthalt", description: "He stole the sword from the vault." })).id;
      // Words alone: "pinched" and "blade" are in no passage, so nothing is found before the vectors.
      expect(await ask("Who pinched the blade?")).toEqual([]);
      fake.reset();
      expect(await pending()).toBe(3); // Emon, the bag and Scanlan: one batch
      const batches = fake.requests.filter((r) => r.path === "/v1beta/models/gemini-embedding-001:batchEmbedContents");
      expect(batches.length).toBe(1);
      expect((batches[0]!.body as { requests: { taskType: string }[] }).requests.map((r) => r.taskType)).toEqual(["RETRIEVAL_DOCUMENT", "RETRIEVAL_DOCUMENT", "RETRIEVAL_DOCUMENT"]);
      expect(await pending()).toBe(0);
      const [best] = await ask("Who pinched the blade?");
      expect({ kind: best?.kind, id: best?.sourceId, title: best?.title, coverage: best?.coverage }).toEqual({ kind: "character", id, title: "Scanlan Shorthalt", coverage: 0 });
      // The lexical ranking still leads where it has something: fused, not replaced.
      expect((await ask("market keep"))[0]?.title).toBe("Emon");
    });

    test("a write after the embedding is caught up by the next pass; the old wording's vector goes with the old passage", async () => {
      const id = (await post("/v1/items", { campaign_id: campaignId, name: "Whisper", description: "A dagger kept in the strongroom." })).id;
      expect(await pending()).toBe(1);
      expect(await pending()).toBe(0);
      expect((await call("PATCH", `/v1/items/${id}`, users.gm.key, { description: "A hexed dagger that returns to its owner." })).status).toBe(200);
      expect(await pending()).toBe(1);
      const found = await ask("which weapon is cursed?");
      expect(found.map((p) => p.sourceId)).toContain(id);
      expect(found.find((p) => p.sourceId === id)!.text).toContain("hexed dagger");
      expect((await call("DELETE", `/v1/items/${id}`, users.gm.key)).status).toBe(204);
      expect((await ask("which weapon is cursed?")).map((p) => p.sourceId)).not.toContain(id);
    });

    test("another player's private journal is never reached by vector, however close the question", async () => {
      const secret = (await post("/v1/journals", { world_id: campaignId, title: "Confession", content: "I nicked the relic from the strongroom myself.", is_public: false }, users.ann.key)).id;
      expect(await pending()).toBeGreaterThanOrEqual(1);
      const asBob = await ask("Who stole something from the vault?", { journals: { readableBy: users.bob.id } });
      expect(asBob.map((p) => p.sourceId)).not.toContain(secret);
      expect(JSON.stringify(asBob)).not.toContain("relic");
      const asAnn = await ask("Who stole something from the vault?", { journals: { readableBy: users.ann.id } });
      expect(asAnn.map((p) => p.sourceId)).toContain(secret);
    });

    test("as_of_session keeps a later session's passages out of the vector search too", async () => {
      const sessions: string[] = [];
      for (const [i, title] of ["Arrival", "Departure"].entries())
        sessions.push((await call("POST", "/internal/v1/sessions", service.adminKey, { campaign_id: campaignId, type: "chatVoice", title, session_date: `2015-04-${10 + i * 7}T19:00:00Z` })).body.id);
      const later = (await post("/v1/moments", { campaign_id: campaignId, label: "Grog's blade", content: "Grog nicked a blade off the ogre.", session_id: sessions[1] })).id;
      await pending();
      // "stole" and "sword" are not its words: the vector alone finds it, unless it is after as_of_session.
      expect((await ask("who stole a sword")).map((p) => p.sourceId)).toContain(later);
      expect((await ask("who stole a sword", { asOfSessionId: sessions[0] })).map((p) => p.sourceId)).not.toContain(later);
    });

    test("a provider refusal pauses the worker's embedding, which resumes on its own", async () => {
      const id = (await post("/v1/locations", { campaign_id: campaignId, name: "Whitestone", description: "A town under a hexed sky." })).id;
      expect((await ask("which place is cursed")).map((p) => p.sourceId)).not.toContain(id); // no shared word
      // The worker's first batch is refused (questions are embedded by the same method, so this comes after the one above).
      fake.reset();
      fake.fail(rateLimited("1s"), "batchEmbedContents");
      const started = Date.now();
      const worker = startWorker(service.deps, { embedMs: 25, pollMs: 60_000, imageSweepMs: 60_000 });
      try {
        // No question is asked until the worker has met the refusal (a question would take it otherwise).
        const byWorker = () => fake.requests.some((r) => (r.body as { requests?: { taskType?: string }[] })?.requests?.[0]?.taskType === "RETRIEVAL_DOCUMENT");
        for (let i = 0; i < 200 && !byWorker(); i++) await Bun.sleep(10);
        let found: string[] = [];
        for (let i = 0; i < 200 && !found.includes(id); i++) {
          await Bun.sleep(25);
          found = (await ask("which place is cursed")).map((p) => p.sourceId);
        }
        expect(found).toContain(id);
        // It waited for the provider's Retry-After (1 s) before trying again.
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        expect(service.logged.some((line) => line.includes("ask embedding failed") && line.includes('"retryInSeconds":1'))).toBe(true);
      } finally {
        await worker.stop();
      }
    });

    test("the background worker embeds new passages without being asked", async () => {
      const id = (await post("/v1/factions", { campaign_id: campaignId, name: "The Clasp", description: "Thieves who pinched a crown." })).id;
      // No word of the question is in the faction's passage: only its vector can find it.
      expect((await ask("who stole a tiara")).map((p) => p.sourceId)).not.toContain(id);
      const worker = startWorker(service.deps, { embedMs: 25, pollMs: 60_000, imageSweepMs: 60_000 });
      try {
        let found: string[] = [];
        for (let i = 0; i < 200 && !found.includes(id); i++) {
          await Bun.sleep(25);
          found = (await ask("who stole a tiara")).map((p) => p.sourceId);
        }
        expect(found).toContain(id);
      } finally {
        await worker.stop();
      }
    });

    if (c.search === "pgvector")
      test("pgvector ranks by the true cosine, and the application's ranking agrees with it", async () => {
        fake.reset();
        await pending();
        // The generated column holds the same numbers as the array every write path fills.
        const [copy] = await db.query(`select count(*)::int as n, count(*) filter (where embedding_v::real[] = embedding)::int as same from ask_passages where embedding is not null`);
        expect(copy!.n).toBeGreaterThanOrEqual(8);
        expect(copy!.same).toBe(copy!.n);
        const rows = await db.query(`select id, embedding from ask_passages where campaign_id = $1 and embedding is not null`, [campaignId]);
        const stored = rows.map((row) => ({ id: String(row.id), v: (row.embedding as number[]).map(Number) }));
        const model = gemini.embeddingModel;
        for (const question of ["Who pinched the blade?", "market keep", "which place is cursed", "a crown in the strongroom"]) {
          const [vector] = (await new GeminiEmbedder({ ...gemini, apiKey: FAKE_GEMINI_KEY }).embed([question], "query")) as [number[]];
          // Computed here in float64, independently of both rankings.
          const cosine = (v: number[]) => {
            let dot = 0, a = 0, b = 0;
            for (let i = 0; i < v.length; i++) (dot += v[i]! * vector[i]!), (a += v[i]! * v[i]!), (b += vector[i]! * vector[i]!);
            return dot / Math.sqrt(a * b);
          };
          const exact = new Map(stored.map((p) => [p.id, cosine(p.v)]));
          const query = { campaignId, viewer: null, blockedSessions: null, model, vector, limit: 1000 };
          const byPgvector = await pgvectorIndex(db).nearest(query);
          const inApp = await applicationIndex(db).nearest(query);
          expect(byPgvector.length).toBe(stored.length);
          expect([...inApp].sort()).toEqual([...byPgvector].sort());
          // pgvector's order is the true order (float32 sums: ties within 1e-6); the application's
          // bytes (a quarter of float32) may swap neighbours a little closer than 0.02.
          for (let i = 1; i < byPgvector.length; i++) expect(exact.get(byPgvector[i]!)!).toBeLessThanOrEqual(exact.get(byPgvector[i - 1]!)! + 1e-6);
          for (let i = 1; i < inApp.length; i++) expect(exact.get(inApp[i]!)!).toBeLessThanOrEqual(exact.get(inApp[i - 1]!)! + 0.02);
          expect(Math.abs(exact.get(inApp[0]!)! - exact.get(byPgvector[0]!)!)).toBeLessThanOrEqual(0.02);
          // And the whole retrieval (words fused with vectors) cites the same passages either way.
          const inAppRetriever = sqlRetriever(db, { embedder: new GeminiEmbedder({ ...gemini, apiKey: FAKE_GEMINI_KEY }), vectorSearch: "application" });
          const asked = { campaignId, text: question, journals: { all: true } as const, limit: 5 };
          const viaPgvector = (await ask(question)).map((p) => p.sourceId);
          expect(viaPgvector.length).toBeGreaterThan(0);
          expect((await inAppRetriever.retrieve(asked)).map((p) => p.sourceId)).toEqual(viaPgvector);
        }
      });

    if (c.search === "pgvector")
      test("processes finding pgvector at the same moment all use it (one creates the extension and the column)", async () => {
        const fresh = await c.backend.open();
        try {
          expect(await Promise.all([1, 2, 3, 4].map(() => detectPgvector(fresh.db, fresh.db.backend)))).toEqual([true, true, true, true]);
          expect(await fresh.db.query(`select extname from pg_extension where extname = 'vector'`)).toEqual([{ extname: "vector" }]);
          expect(await fresh.db.query(`select generation_expression from information_schema.columns where table_name = 'ask_passages' and column_name = 'embedding_v'`)).toEqual([{ generation_expression: "(embedding)::vector" }]);
        } finally {
          await fresh.close();
        }
      }, 30_000); // a second database to copy and drop on a loaded machine

    test("the embedding service failing leaves the lexical ranking answering", async () => {
      fake.fail({ status: 503, body: { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } } });
      expect((await ask("market keep"))[0]?.title).toBe("Emon");
    });
  });
}

