// Issue 15: lists filtered by one enumerated column (characters by type, quests by status, links by
// an end's type, moments by kind, sessions by type or public) take their totals from counters kept
// by triggers (migration 0029). Each total is compared with a count of the rows made here, after
// creates, updates that move a row between subsets, deletes, a rolled-back write and the campaign's
// deletion; a value no row has (any string a client sends) totals 0; and the list's statement counts
// no table.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Character, CharacterType } from "../../domain/characters.ts";
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import { loadMigrations } from "../../infra/container.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, characterRecord, momentRecord, newId, sessionRecord } from "../support/records.ts";
import { capturingExecutor } from "../support/plans.ts";

const page = { page: 1, size: 2 };

const questOf = (campaignId: string, status: QuestStatus, i: number, category: QuestCategory = "side"): Quest => ({
  id: newId(), campaign_id: campaignId, quest_name: `Q${i}`, quest_giver: null, quest_giver_id: null, quest_category: category, status,
  success_definition: null, failure_conditions: null, next_action: null, resolution: null, objectives: [], progress_log_entries: [], related_entity_refs: [],
  order_index: i, created_at: at(i), updated_at: null,
});

/** Statements that count a table (`count(` over rows), as opposed to reading a counter. */
const countsRows = (sql: string) => /count\s*\(/i.test(sql);

await forEachBackend("filtered list totals from counters", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let owner: string;

  const count = async (sql: string, params: unknown[]) => Number((await db.query(`select count(*)::int as n ${sql}`, params))[0]!.n);
  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(owner, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };
  /** The statements a list call sends, and its result. */
  const captured = async <T>(call: (store: RecordStore) => Promise<T>): Promise<{ result: T; statements: string[] }> => {
    const { executor, statements } = capturingExecutor(db);
    const result = await call(sqlRecordStore(executor as never));
    return { result, statements: statements.map((statement) => statement.sql) };
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "filters@example.test", role: "user", created_at: at() }))!.id;
  });

  test("characters by type, alone and with approval: creates, type and approval changes, deletes, rollback", async () => {
    const campaign = await newCampaign("Types");
    const other = await newCampaign("Other types");
    await store.characters.insert(characterRecord(other, { character_name: "Elsewhere", type: "PC" }));
    const made: Character[] = [
      characterRecord(campaign, { character_name: "A", type: "PC", approved: true, created_at: at(1) }),
      characterRecord(campaign, { character_name: "B", type: "PC", approved: false, created_at: at(2) }),
      characterRecord(campaign, { character_name: "C", type: "NPC", approved: true, created_at: at(3) }),
      characterRecord(campaign, { character_name: "D", type: "NPC", approved: true, created_at: at(4) }),
      characterRecord(campaign, { character_name: "E", type: "Other", approved: true, created_at: at(5) }),
    ];
    for (const c of made) await store.characters.insert(c);
    const check = async () => {
      for (const type of ["PC", "NPC", "Other", "pc", "Wizard'; --"]) {
        for (const approvedOnly of [false, true]) {
          const { result, statements } = await captured((s) => s.characters.list(campaign, { type: type as CharacterType, approvedOnly }, page));
          const expected = await count(`from characters where campaign_id = $1 and type = $2 ${approvedOnly ? "and approved" : ""}`, [campaign, type]);
          expect([type, approvedOnly, result.total]).toEqual([type, approvedOnly, expected]);
          expect(statements.filter(countsRows)).toEqual([]);
        }
      }
    };
    await check();
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: false }, page)).total).toBe(2);
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: true }, page)).total).toBe(1);
    // B approved, C made a PC, D unapproved and made Other; A's text only.
    await store.characters.replace({ ...made[1]!, approved: true });
    await store.characters.replace({ ...made[2]!, type: "PC" });
    await store.characters.replace({ ...made[3]!, type: "Other", approved: false });
    await store.characters.replace({ ...made[0]!, description: "text only" });
    await check();
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: true }, page)).total).toBe(3);
    expect((await store.characters.list(campaign, { type: "NPC", approvedOnly: false }, page)).total).toBe(0);
    // A rolled-back write leaves the counters as they were.
    await expect(store.withTransaction(async (tx) => {
      await tx.characters.insert(characterRecord(campaign, { character_name: "Ghost", type: "NPC" }));
      await tx.characters.replace({ ...made[4]!, type: "NPC" });
      throw new Error("rolled back");
    })).rejects.toThrow("rolled back");
    await check();
    expect(await store.characters.delete(made[2]!.id)).toBe(true);
    expect(await store.characters.delete(made[4]!.id)).toBe(true);
    await check();
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: false }, page)).total).toBe(2);
    // A page past the end still tells the total; the page itself is newest first.
    expect(await store.characters.list(campaign, { type: "PC", approvedOnly: false }, { page: 3, size: 2 })).toEqual({ rows: [], total: 2 });
    expect((await store.characters.list(campaign, { type: "PC", approvedOnly: false }, page)).rows.map((c) => c.character_name)).toEqual(["B", "A"]);
    expect((await store.characters.list(other, { type: "PC", approvedOnly: false }, page)).total).toBe(1);
  });

  test("quests by status: status changes move a quest between counters", async () => {
    const campaign = await newCampaign("Quests");
    const quests = (["planned", "planned", "in-progress", "done", "blocked"] as const).map((s, i) => questOf(campaign, s, i));
    for (const q of quests) await store.quests.insert(q);
    const check = async () => {
      for (const status of ["planned", "in-progress", "blocked", "failed", "done", "n/a", "nope"]) {
        const { result, statements } = await captured((s) => s.quests.list(campaign, { status: status as QuestStatus }, page));
        expect([status, result.total]).toEqual([status, await count(`from quests where campaign_id = $1 and status = $2`, [campaign, status])]);
        expect(statements.filter(countsRows)).toEqual([]);
      }
    };
    await check();
    expect((await store.quests.list(campaign, { status: "planned" }, page)).total).toBe(2);
    await store.quests.replace({ ...quests[0]!, status: "in-progress" });
    await store.quests.replace({ ...quests[2]!, status: "done" });
    await store.quests.replace({ ...quests[3]!, next_action: "only text" });
    await check();
    expect((await store.quests.list(campaign, { status: "done" }, page)).total).toBe(2);
    await expect(store.withTransaction(async (tx) => {
      await tx.quests.replace({ ...quests[1]!, status: "failed" });
      throw new Error("rolled back");
    })).rejects.toThrow("rolled back");
    await check();
    expect(await store.quests.delete(quests[3]!.id)).toBe(true);
    await check();
    expect((await store.quests.list(campaign, { status: "done" }, page)).total).toBe(1);
    expect((await store.quests.list(campaign, { status: "planned", quest_category: "main" }, page)).total).toBe(0);
  });

  test("quests by category, alone and with a status (migration 0038): category and status changes move a quest", async () => {
    const campaign = await newCampaign("Quest categories");
    const other = await newCampaign("Other quests");
    await store.quests.insert(questOf(other, "planned", 0, "main"));
    const quests = ([["planned", "main"], ["planned", "side"], ["done", "main"], ["planned", "main"], ["blocked", "personal"]] as const)
      .map(([status, category], i) => questOf(campaign, status, i, category));
    for (const q of quests) await store.quests.insert(q);
    const check = async () => {
      for (const category of ["main", "side", "faction", "personal", "n/a", "nope"]) {
        const alone = await captured((s) => s.quests.list(campaign, { quest_category: category as QuestCategory }, page));
        expect([category, alone.result.total]).toEqual([category, await count(`from quests where campaign_id = $1 and quest_category = $2`, [campaign, category])]);
        expect(alone.statements.filter(countsRows)).toEqual([]);
        for (const status of ["planned", "done", "blocked", "failed"]) {
          const both = await captured((s) => s.quests.list(campaign, { status: status as QuestStatus, quest_category: category as QuestCategory }, page));
          const expected = await count(`from quests where campaign_id = $1 and status = $2 and quest_category = $3`, [campaign, status, category]);
          expect([status, category, both.result.total]).toEqual([status, category, expected]);
          expect(both.statements.filter(countsRows)).toEqual([]);
        }
      }
    };
    await check();
    const planned = await store.quests.list(campaign, { status: "planned", quest_category: "main" }, page);
    expect([planned.total, planned.rows.map((q) => q.quest_name)]).toEqual([2, ["Q0", "Q3"]]);
    expect((await store.quests.list(campaign, { quest_category: "main" }, page)).total).toBe(3);
    await store.quests.replace({ ...quests[0]!, quest_category: "faction" });
    await store.quests.replace({ ...quests[3]!, status: "done" });
    await check();
    expect((await store.quests.list(campaign, { status: "done", quest_category: "main" }, page)).total).toBe(2);
    expect((await store.quests.list(campaign, { quest_category: "faction" }, page)).total).toBe(1);
    await expect(store.withTransaction(async (tx) => {
      await tx.quests.replace({ ...quests[1]!, quest_category: "main" });
      throw new Error("rolled back");
    })).rejects.toThrow("rolled back");
    expect(await store.quests.delete(quests[2]!.id)).toBe(true);
    await check();
    expect((await store.quests.list(campaign, { status: "done", quest_category: "main" }, page)).total).toBe(1);
    // A search still counts its matches (and is still right).
    expect((await store.quests.list(campaign, { quest_category: "main", search: "Q3" }, page)).total).toBe(1);
  });

  test("links by an end's type, for the GM and for a viewer who may not see a private entry", async () => {
    const campaign = await newCampaign("Links");
    const entry = async (isPublic: boolean) => {
      const id = newId();
      await db.query(`insert into journal_entries (id, campaign_id, title, content, is_public, author_id, created_at) values ($1, $2, 't', 'x', $3, $4, $5::timestamptz)`,
        [id, campaign, isPublic, owner, at()]);
      return id;
    };
    const open = await entry(true);
    const hidden = await entry(false);
    const link = (from_type: string, from_id: string, to_type: string, alias: string) => ({
      id: newId(), campaign_id: campaign, from_id, from_type, to_id: "t", to_type, alias, alias_key: alias, origin: "api" as const, created_at: at(),
    });
    const made = [
      link("Character", "c1", "Location", "a"), link("Character", "c2", "Character", "b"), link("Journal", open, "Character", "c"),
      link("Journal", hidden, "Location", "d"), link("Faction", "f1", "Character", "e"),
    ];
    for (const l of made) await store.links.upsert(l as never);
    const viewer = newId();
    const check = async () => {
      for (const type of ["Character", "Location", "Journal", "Faction", "Nothing"]) {
        for (const end of ["from_type", "to_type"] as const) {
          for (const who of [null, owner, viewer]) {
            const { result, statements } = await captured((s) => s.links.list(campaign, { [end]: type }, page, who));
            const hiddenCount = who === viewer ? `and not (l.from_type = 'Journal' and l.from_id = $3)` : "";
            const expected = await count(`from links l where l.campaign_id = $1 and l.${end} = $2 ${hiddenCount || "and $3::text is null"}`, [campaign, type, who === viewer ? hidden : null]);
            expect([type, end, who, result.total]).toEqual([type, end, who, expected]);
            // The GM's total is the counter alone; a viewer's is corrected over the campaign's journal links only.
            if (who === null) expect(statements.filter(countsRows)).toEqual([]);
          }
        }
      }
    };
    await check();
    expect((await store.links.list(campaign, { from_type: "Journal" }, page, viewer)).total).toBe(1);
    expect((await store.links.list(campaign, { to_type: "Character" }, page, null)).total).toBe(3);
    // An upsert of the same (from, alias) moves the link to another target type.
    await store.links.upsert({ ...made[1]!, id: newId(), to_type: "Location" } as never);
    await check();
    expect((await store.links.list(campaign, { to_type: "Location" }, page, null)).total).toBe(3);
    expect(await store.links.deleteTouching("c1")).toBe(1);
    await check();
  });

  test("moments by kind and sessions by type and public", async () => {
    const campaign = await newCampaign("Moments and sessions");
    const moments = [momentRecord(campaign, { kind: "moment" }), momentRecord(campaign, { kind: "keyMoment" }), momentRecord(campaign, { kind: "moment" })];
    for (const m of moments) await store.moments.insert(m);
    const sessions = [
      sessionRecord(campaign, { type: "chatVoice", public: true, session_date: at(1), created_at: at(1) }),
      sessionRecord(campaign, { type: "chatVoice", public: false, session_date: at(2), created_at: at(2) }),
      sessionRecord(campaign, { type: "playByPost", public: true, session_date: at(3), created_at: at(3) }),
    ];
    for (const s of sessions) await store.sessions.insert(s);
    const check = async () => {
      for (const kind of ["moment", "keyMoment", "legacy", "other"]) {
        const { result, statements } = await captured((s) => s.moments.list({ campaignId: campaign, kind: kind as never }, page));
        expect([kind, result.total]).toEqual([kind, await count(`from moments where campaign_id = $1 and kind = $2`, [campaign, kind])]);
        expect(statements.filter(countsRows)).toEqual([]);
      }
      for (const type of [undefined, "chatVoice", "playByPost", "other", "bogus"]) {
        for (const publicOnly of [false, true]) {
          if (!type && !publicOnly) continue;
          const { result, statements } = await captured((s) => s.sessions.list(campaign, { type: type as never, publicOnly }, page));
          const expected = await count(`from sessions where campaign_id = $1 and ($2::text is null or type = $2) ${publicOnly ? "and public" : ""}`, [campaign, type ?? null]);
          expect([type, publicOnly, result.total]).toEqual([type, publicOnly, expected]);
          expect(statements.filter(countsRows)).toEqual([]);
        }
      }
    };
    await check();
    await store.moments.replace({ ...moments[0]!, kind: "keyMoment" });
    await store.sessions.replace({ ...sessions[1]!, public: true });
    await store.sessions.replace({ ...sessions[0]!, title: "only the title" });
    await check();
    expect((await store.moments.list({ campaignId: campaign, kind: "keyMoment" }, page)).total).toBe(2);
    expect((await store.sessions.list(campaign, { type: "chatVoice", publicOnly: true }, page)).total).toBe(2);
    // Numbers still count the whole campaign.
    expect((await store.sessions.list(campaign, { publicOnly: true }, page)).rows.map((s) => s.index)).toEqual([3, 2]);
    await store.moments.delete(moments[1]!.id);
    await store.sessions.delete(sessions[2]!.id);
    await check();
  });

  test("a campaign's deletion takes the filtered counters with it", async () => {
    const campaign = await newCampaign("Doomed filters");
    await store.characters.insert(characterRecord(campaign, { type: "PC" }));
    await store.quests.insert(questOf(campaign, "planned", 0));
    await store.moments.insert(momentRecord(campaign));
    await store.sessions.insert(sessionRecord(campaign, { public: true }));
    expect(await count(`from record_counts where campaign_id = $1 and n > 0`, [campaign])).toBeGreaterThan(0);
    expect(await store.campaigns.delete(campaign)).toBe(true);
    expect(await count(`from record_counts where campaign_id = $1`, [campaign])).toBe(0);
  });
});

await forEachBackend("migration 0029 (filtered counters backfilled)", (backend) => {
  test("rows written before the migration are counted in their subsets, as the triggers count them", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0029"));
      const store = sqlRecordStore(db);
      const owner = (await store.users.insert({ id: newId(), name: "Old", email: "old@example.test", role: "user", created_at: at() }))!.id;
      const campaign = campaignRecord(owner, { title: "Before 0029" });
      await store.campaigns.insert(campaign);
      const c = campaign.id;
      await store.characters.insert(characterRecord(c, { type: "PC", approved: false }));
      await store.characters.insert(characterRecord(c, { type: "PC" }));
      await store.characters.insert(characterRecord(c, { type: "NPC" }));
      for (const [i, s] of (["planned", "done", "done"] as const).entries()) await store.quests.insert(questOf(c, s, i));
      await store.moments.insert(momentRecord(c, { kind: "keyMoment" }));
      await store.sessions.insert(sessionRecord(c, { type: "playByPost", public: true }));
      await store.sessions.insert(sessionRecord(c, { type: "chatVoice" }));
      await store.links.upsert({ id: newId(), campaign_id: c, from_id: "x", from_type: "Character", to_id: "y", to_type: "Location", alias: "a", alias_key: "a", origin: "api", created_at: at() } as never);
      await applyMigrations(db, all);

      // Every counter equals the rows' kinds counted afresh, and the lists read them.
      const recount = async () => (await db.query(
        `select campaign_id, k as kind, count(*)::int as n from (
           select t.campaign_id, unnest(record_count_kinds('characters', to_jsonb(t))) k from characters t
           union all select t.campaign_id, unnest(record_count_kinds('links', to_jsonb(t))) from links t
           union all select t.campaign_id, unnest(record_count_kinds('quests', to_jsonb(t))) from quests t
           union all select t.campaign_id, unnest(record_count_kinds('moments', to_jsonb(t))) from moments t
           union all select t.campaign_id, unnest(record_count_kinds('sessions', to_jsonb(t))) from sessions t) x
         group by 1, 2 order by 1, 2`)).map((r) => [r.campaign_id, r.kind, Number(r.n)]);
      const stored = (await db.query(`select campaign_id, kind, n::int as n from record_counts where kind !~ '^(beats|journals|factions|locations|items)' order by 1, 2`))
        .map((r) => [r.campaign_id, r.kind, Number(r.n)]);
      expect(stored).toEqual(await recount());
      expect(stored).toContainEqual([c, "characters:approved:type:PC", 1]);
      expect((await store.characters.list(c, { type: "PC", approvedOnly: false }, page)).total).toBe(2);
      expect((await store.quests.list(c, { status: "done" }, page)).total).toBe(2);
      expect((await store.links.list(c, { to_type: "Location" }, page, null)).total).toBe(1);
      expect((await store.moments.list({ campaignId: c, kind: "keyMoment" }, page)).total).toBe(1);
      expect((await store.sessions.list(c, { publicOnly: true, type: "playByPost" }, page)).total).toBe(1);
    } finally {
      await close();
    }
  });
});
