// Migration 0019 on a database written before it: journal entries counted as characters / 4 are
// queued, and the worker's batches recount them (entries and chunks) with o200k_base.
import { expect, test } from "bun:test";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { o200kTokenCounter } from "../../adapters/ai/tokenizer.ts";
import { recountJournalTokens } from "../../application/journals.ts";
import { loadMigrations } from "../../infra/container.ts";
import { startWorker } from "../../infra/worker.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

// o200k_base: "a" then " a" 99 times is 100 tokens (199 characters: 50 by characters / 4);
// "hello world" is 2 ("hello", " world"; 11 characters: 3).
const HUNDRED = "a" + " a".repeat(99);

await forEachBackend("migration 0019 (journal token recount)", (backend) => {
  test("old counts are recounted in batches, chunks too; an entry edited meanwhile keeps its new count; the campaign total follows", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0019"));
      const t = "2026-01-01T00:00:00Z";
      await db.query(`insert into users (id, name, email, role, created_at) values ('u1', 'Matt', 'matt@x.test', 'user', $1)`, [t]);
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'Vox Machina', 'u1', $1)`, [t]);
      const entry = async (id: string, content: string, oldCount: number) => {
        await db.query(`insert into journal_entries (id, campaign_id, title, content, token_count, author_id, created_at) values ($1, 'c1', $1, $2, $3, 'u1', $4)`, [id, content, oldCount, t]);
        if (content) await db.query(`insert into journal_chunks (entry_id, campaign_id, position, text, token_count) values ($1, 'c1', 0, $2, $3)`, [id, content, oldCount]);
      };
      await entry("e1", HUNDRED, 50);
      await entry("e2", "hello world", 3);
      await entry("e3", "hello world, again", 5);
      await entry("e4", "", 0);
      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0019").map((m) => m.version));
      expect((await db.query(`select entry_id from journal_token_recounts order by entry_id`)).map((r) => r.entry_id)).toEqual(["e1", "e2", "e3", "e4"]);

      const records = sqlRecordStore(db);
      expect(await records.journals.campaignTokens("c1", null)).toBe(58);
      // e3 is edited after the migration: the save counted it with o200k_base ("hello" is 1 token).
      await db.query(`update journal_entries set content = 'hello', token_count = 1 where id = 'e3'`);
      await db.query(`update journal_chunks set text = 'hello', token_count = 1 where entry_id = 'e3'`);
      const changesBefore = Number((await db.query(`select count(*)::int as n from changes where record_id = 'e4'`))[0]!.n);

      const deps = { records, ask: { tokens: o200kTokenCounter } };
      expect(await recountJournalTokens(deps, 3)).toBe(3);
      expect((await db.query(`select entry_id from journal_token_recounts`)).map((r) => r.entry_id)).toEqual(["e4"]);
      expect(await recountJournalTokens(deps, 3)).toBe(1);
      expect(await recountJournalTokens(deps, 3)).toBe(0);

      const counts = await db.query(`select id, token_count from journal_entries order by id`);
      expect(counts.map((r) => [r.id, Number(r.token_count)])).toEqual([["e1", 100], ["e2", 2], ["e3", 1], ["e4", 0]]);
      const chunks = await db.query(`select entry_id, text, token_count from journal_chunks order by entry_id`);
      expect(chunks.map((r) => [r.entry_id, Number(r.token_count)])).toEqual([["e1", 100], ["e2", 2], ["e3", 1]]);
      expect(await records.journals.campaignTokens("c1", null)).toBe(103);
      // An entry whose count was already right is not rewritten: no change-feed entry for it.
      expect(Number((await db.query(`select count(*)::int as n from changes where record_id = 'e4'`))[0]!.n)).toBe(changesBefore);
      // e2's recount is a change of the entry, like any other.
      expect(Number((await db.query(`select count(*)::int as n from changes where record_id = 'e2' and op = 'update'`))[0]!.n)).toBe(1);
    } finally {
      await close();
    }
  }, 60_000);
});

await forEachBackend("journal token recount by the worker", (backend) => {
  let service: InProcessService;
  inProcessOn(backend, (made) => {
    service = made;
  });

  test("the background worker empties the queue without being asked; a save is never queued, and the journal limits see the new counts", async () => {
    const gm = await service.newUser("Matt", `matt-recount-${backend.name}@example.test`);
    const campaign = await service.must("POST", "/v1/campaigns", gm.key, { title: "Vox Machina" });
    const entry = await service.must("POST", "/v1/journals", gm.key, { campaign_id: campaign.id, title: "Old notes", content: HUNDRED });
    expect((await service.db.query(`select entry_id from journal_token_recounts where entry_id = $1`, [entry.id])).length).toBe(0);
    // As if saved before o200k_base: characters / 4, and queued as migration 0019 queues it.
    await service.db.query(`update journal_entries set token_count = 50 where id = $1`, [entry.id]);
    await service.db.query(`insert into journal_token_recounts (entry_id) values ($1)`, [entry.id]);
    expect((await service.must("GET", `/v1/journals/${entry.id}`, gm.key)).token_count).toBe(50);
    const worker = startWorker(service.deps, { recountMs: 20, pollMs: 60_000, imageSweepMs: 60_000 });
    try {
      for (let i = 0; i < 300 && (await service.db.query(`select 1 from journal_token_recounts`)).length > 0; i++) await Bun.sleep(20);
    } finally {
      await worker.stop();
    }
    expect((await service.db.query(`select 1 from journal_token_recounts`)).length).toBe(0);
    expect((await service.must("GET", `/v1/journals/${entry.id}`, gm.key)).token_count).toBe(100);
    expect(await service.deps.records.journals.campaignTokens(campaign.id, null)).toBe(100);
  }, 60_000);
});
