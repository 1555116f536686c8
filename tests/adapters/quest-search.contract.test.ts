// Issue 15 (migration 0046): a quest search (`search`, a case-insensitive substring of name, giver
// and the narrative fields) takes its page and exact total from the quests' word starts instead of
// the trigram index (a row read per match) and a walk of the quest log to the page's last match.
// Every page and total here is compared with the matches worked out in the test from the quests'
// own texts, after inserts, renames, deletes, status and category changes.
// Migration 0050: a query whose rest after its first word is at most 3 characters takes its page from
// quest_search_heads (the quests in log order per word and head) and, for one word, its total from
// quest_search_head_counts (since 0055 search_head_counts, kind 'quest'); the tests below also check
// both tables against the texts.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Quest, QuestCategory, QuestStatus } from "../../domain/quests.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, newId } from "../support/records.ts";

const LONG_WORD = "x".repeat(230) + "dragonbone";

/** The texts the quests start with: names (some with a giver or narrative fields) chosen to sit on the edges of the word starts. */
const START: Array<Partial<Quest> & { quest_name: string }> = [
  { quest_name: "Quest 12" },
  { quest_name: "Quest 120" },
  { quest_name: "QUEST 12b" },
  { quest_name: "The sidequest 12 of Ellia" },
  { quest_name: "quest  12 (two spaces)" },
  { quest_name: "quest-12" },
  { quest_name: "Quest 1 2" },
  { quest_name: "Quest 12 and quest 125", next_action: "find quest 12 again" },
  { quest_name: "Slay it", success_definition: "Slay the Dragon of the North", failure_conditions: "the dragon's lair burns" },
  { quest_name: "Pastry", quest_giver: "Éclair du Dragon" },
  { quest_name: "Percent", resolution: "100% done, not 1000 done" },
  { quest_name: "Bones", next_action: `carve ${LONG_WORD} now` },
  { quest_name: "Objectives", objectives: [{ id: "o1", text: "Reach the quest 12 camp", status: "pending", order: 0 }] },
  {
    quest_name: "Progress",
    progress_log_entries: [{ id: "p1", text: "Sidequest 12 done; the longest phrase of all of this log, on and on", order: 0, session_id: null }],
  },
  { quest_name: "under_score quest_12" },
];
/** Names added later, each a few times. */
const MORE = ["Quest 12 again", "Another dragon", "quest 1200", "Nothing here", "Sidequest 129"];

const QUERIES = [
  "quest 12", "Quest 12", "QUEST 1", "uest 12", "est 12 ", "sidequest 12", "quest", "ques", "12", "12b", "quest 12 and quest 125",
  "dragon", "DRAGON", "ragon's", "dragon of the north", "the longest phrase of all of this log, on", "Sidequest 12 done; the longest phrase of ", "Sidequest 12 done; the longest phrase of a", "Sidequest 12 done; the longest phrase of all of this log",
  "'s lair", "éclair", "ÉCLAIR DU", "100%", "100% done", "1000", "%", "_", "quest_12", "xxxdragonb", "dragonbone now", "quest  12", "quest-1", "zzz", "q",
  // Rests of 0 to 3 characters (0050's heads), one vocabulary word or several.
  "quest 1", "quest ", "QUEST 12", "sidequest 1", "sidequest", "dragon ", "dragon'", "12 (", "quest-", "12b ", "quest 12 ", "bulk", "wyrm 1",
];

const textOf = (q: Quest) =>
  [q.quest_name, q.quest_giver, q.success_definition, q.failure_conditions, q.next_action, q.resolution, ...q.objectives.map((o) => o.text), ...q.progress_log_entries.map((e) => e.text)]
    .filter(Boolean)
    .join("\n")
    .toLowerCase();

const STATUSES: QuestStatus[] = ["planned", "in-progress", "done"];
const CATEGORIES: QuestCategory[] = ["main", "side", "personal"];

await forEachBackend("quest search from word starts", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let campaign: string;
  let other: string;
  /** The campaign's quests as the test last wrote them. */
  const kept = new Map<string, Quest>();
  let next = 0;

  const questOf = (campaignId: string, fields: Partial<Quest> & { quest_name: string }): Quest => {
    const i = next++;
    return {
      id: newId(), campaign_id: campaignId, quest_giver: null, quest_giver_id: null, quest_category: CATEGORIES[i % 3]!, status: STATUSES[i % 3]!,
      success_definition: null, failure_conditions: null, next_action: null, resolution: null, objectives: [], progress_log_entries: [], related_entity_refs: [],
      // Every fourth shares its place in the log with the one before: creation time, then id, decide.
      order_index: i - (i % 4 === 3 ? 1 : 0), created_at: at(i % 5 === 0 ? 0 : i * 1000), updated_at: null,
      ...fields,
    };
  };
  const insert = async (fields: Partial<Quest> & { quest_name: string }) => {
    const quest = questOf(campaign, fields);
    await store.quests.insert(quest);
    kept.set(quest.id, quest);
    // The same text in another campaign, which no search of this one may count.
    await store.quests.insert(questOf(other, fields));
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "quests@example.test", role: "user", created_at: at() }))!.id;
    const first = campaignRecord(owner, { title: "Quest log" });
    const second = campaignRecord(owner, { title: "Other log" });
    await store.campaigns.insert(first);
    await store.campaigns.insert(second);
    campaign = first.id;
    other = second.id;
    for (const fields of START) await insert(fields);
  });

  /** The matches in log order, from the texts above. */
  const expected = (query: string, filters: { status?: QuestStatus; quest_category?: QuestCategory } = {}) =>
    [...kept.values()]
      .filter((q) => textOf(q).includes(query.toLowerCase()))
      .filter((q) => (!filters.status || q.status === filters.status) && (!filters.quest_category || q.quest_category === filters.quest_category))
      .sort((a, b) => a.order_index - b.order_index || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((q) => q.id);

  /** Every page at sizes 1, 2, 3 and 20, and the page after the last, against `expected`. */
  const checkAll = async (filters: { status?: QuestStatus; quest_category?: QuestCategory } = {}) => {
    for (const query of QUERIES) {
      const ids = expected(query, filters);
      for (const size of [1, 2, 3, 20]) {
        const pages = Math.ceil(ids.length / size);
        for (let page = 1; page <= pages + 1; page++) {
          const listing = await store.quests.list(campaign, { search: query, ...filters }, { page, size });
          expect([query, size, page, listing.total, listing.rows.map((q) => q.id)]).toEqual([query, size, page, ids.length, ids.slice((page - 1) * size, page * size)]);
        }
      }
    }
  };

  /** 0050's heads and counters equal those rebuilt from the quests' texts (every campaign). */
  const checkHeads = async () => {
    const rebuilt = `select q.campaign_id, w.word, w.head, q.order_index, q.created_at, q.id as quest_id from quests q, quest_search_heads_of(q.search_text) w`;
    const kept = `select campaign_id, word, head, order_index, created_at, quest_id from quest_search_heads`;
    const missing = await db.query(`${rebuilt} except ${kept}`);
    const stale = await db.query(`${kept} except ${rebuilt}`);
    // Counted from the texts independently of the heads: the quests with a word whose tail starts with the head.
    // A key's slots summing to 0 are a key no quest holds (left by deletes on two connections at once).
    const counts = await db.query(
      `(select campaign_id, word, head, count(*)::int as n from (select distinct q.campaign_id, e.word, left(e.tail, j) as head, q.id
          from quests q, quest_search_entries_of(q.search_text) e, generate_series(0, 3) j where e.word <> '') x group by 1, 2, 3
        except select campaign_id, word, head, sum(n)::int from search_head_counts where kind = 'quest' group by 1, 2, 3)
       union all
       (select campaign_id, word, head, sum(n)::int from search_head_counts where kind = 'quest' group by 1, 2, 3 having sum(n) <> 0
        except select campaign_id, word, head, count(*)::int from (select distinct q.campaign_id, e.word, left(e.tail, j) as head, q.id
          from quests q, quest_search_entries_of(q.search_text) e, generate_series(0, 3) j where e.word <> '') x group by 1, 2, 3)`,
    );
    const zero = await db.query(`select * from search_head_counts where kind = 'quest' and n = 0`);
    expect([missing.length, stale.length, counts, zero.length]).toEqual([0, 0, [], 0]);
    expect(Number((await db.query(`select count(*) as n from search_head_counts where kind = 'quest'`))[0]!.n)).toBeGreaterThan(50);
  };

  test("the edges: phrases across words, inside words, case, punctuation, wildcards, a word over 200 characters", async () => {
    expect(expected("quest 12").length).toBe(7);
    expect(expected("xxxdragonb").length).toBe(1);
    expect(expected("%").length).toBe(1);
    await checkAll();
    await checkHeads();
  });

  test("after inserts (one and several in a statement), renames, deletes and moves in the log", async () => {
    for (let k = 0; k < 3; k++) for (const name of MORE) await insert({ quest_name: `${name} ${k}` });
    // Three quests in one statement, as an import writes them (search_text given as the repository computes it).
    const many = [0, 1, 2].map((k) => questOf(campaign, { quest_name: `Bulk sidequest 12${k}`, next_action: k === 1 ? "a dragon" : null }));
    await db.query(
      `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, next_action, search_text, created_at)
       select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])`,
      [many.map((q) => q.id), many.map((q) => q.campaign_id), many.map((q) => q.order_index), many.map((q) => q.quest_name), many.map((q) => q.quest_category),
        many.map((q) => q.status), many.map((q) => q.next_action), many.map((q) => [q.quest_name, q.next_action].filter(Boolean).join("\n")), many.map((q) => q.created_at)],
    );
    for (const q of many) kept.set(q.id, q);
    await checkAll();

    const byName = (name: string) => [...kept.values()].find((q) => q.quest_name === name)!;
    const rename = async (name: string, fields: Partial<Quest>) => {
      const quest = { ...byName(name), ...fields };
      await store.quests.replace(quest);
      kept.set(quest.id, quest);
    };
    await rename("Quest 12", { quest_name: "Quest twelve" });
    await rename("Another dragon 1", { quest_name: "Another wyrm 1", objectives: [{ id: "o", text: "sidequest 12, dragon", status: "pending", order: 0 }] });
    await rename("Bones", { next_action: "carve it now" });
    await rename("Nothing here 2", { quest_name: "Nothing here 2", quest_giver: "Quest 12 giver" });
    for (const name of ["Quest 120", "Sidequest 129 0", "Percent"]) {
      const quest = byName(name);
      await store.quests.delete(quest.id);
      kept.delete(quest.id);
    }
    // A move in the log (order_index is not patched through the API; an import or a reorder could).
    const moved = byName("quest 1200 1");
    await db.query(`update quests set order_index = -5 where id = $1`, [moved.id]);
    kept.set(moved.id, { ...moved, order_index: -5 });
    // A move to another campaign: its heads and counts go with it.
    const away = byName("Quest 12 again 2");
    await db.query(`update quests set campaign_id = $2 where id = $1`, [away.id, other]);
    kept.delete(away.id);
    await checkAll();
    await checkHeads();
  });

  test("status and category changes, and a search with a status or a category", async () => {
    let i = 0;
    for (const quest of [...kept.values()]) {
      if (i++ % 2) continue;
      const changed = { ...quest, status: STATUSES[(i + 1) % 3]!, quest_category: CATEGORIES[i % 3]! };
      await store.quests.replace(changed);
      kept.set(changed.id, changed);
    }
    await checkAll();
    await checkAll({ status: "done" });
    await checkAll({ quest_category: "side" });
    await checkAll({ status: "planned", quest_category: "main" });
    await checkHeads();
  });

  test("concurrent inserts (8 at a time, as an import) and deletes keep the counters exact", async () => {
    const names = Array.from({ length: 48 }, (_, i) => (i % 3 ? `Quest 12${i} of the dragon` : `Sidequest ${i} for the dragon`));
    const made: Quest[] = [];
    for (let i = 0; i < names.length; i += 8) {
      const batch = names.slice(i, i + 8).map((quest_name) => questOf(campaign, { quest_name }));
      await Promise.all(batch.map((q) => store.quests.insert(q)));
      for (const q of batch) kept.set(q.id, q), made.push(q);
    }
    await checkAll();
    await checkHeads();
    await Promise.all(made.filter((_, i) => i % 2).map(async (q) => {
      await store.quests.delete(q.id);
      kept.delete(q.id);
    }));
    await checkAll();
    await checkHeads();
  });

  test("the entries follow the texts: rebuilt from the quests, the same rows", async () => {
    const rebuilt = await db.query(
      `select q.campaign_id, w.word, w.tail, q.id as quest_id, q.order_index, q.created_at from quests q, quest_search_entries_of(q.search_text) w
       except select campaign_id, word, tail, quest_id, order_index, created_at from quest_search_entries`,
    );
    const stale = await db.query(
      `select campaign_id, word, tail, quest_id, order_index, created_at from quest_search_entries
       except select q.campaign_id, w.word, w.tail, q.id, q.order_index, q.created_at from quests q, quest_search_entries_of(q.search_text) w`,
    );
    expect([rebuilt.length, stale.length]).toEqual([0, 0]);
    expect(Number((await db.query(`select count(*) as n from quest_search_entries`))[0]!.n)).toBeGreaterThan(100);
  });

  test("a page among 1,111 matches reads its quests' rows and heads, not every match's", async () => {
    const big = campaignRecord((await db.query(`select owner_id from campaigns where id = $1`, [campaign]))[0]!.owner_id as string, { title: "Big log" });
    await store.campaigns.insert(big);
    await db.query(
      `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
       select 'big' || g, $1, g, 'Quest ' || g, 'main', 'planned', 'Quest ' || g, $2::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [big.id, at()],
    );
    await db.query(`analyze`);
    // The table's rows read in this transaction, before and after (the counters also hold earlier, unflushed statements').
    const [fetched, entries] = await db.transaction(async (tx: SqlExecutor) => {
      const read = async () =>
        Number((await tx.query(`select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname = 'quests'`))[0]!.n);
      // Rows of the word starts (0046) and the heads (0050) read: not yet vacuumed, an index-only scan reads
      // each entry's row too (0046 alone read every match's).
      const scanned = async () =>
        Number((await tx.query(`select coalesce(sum(coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname in ('quest_search_entries', 'quest_search_heads')`))[0]!.n);
      const before = [await read(), await scanned()];
      const listing = await sqlRecordStore(tx as SqlDatabase).quests.list(big.id, { search: "quest 1" }, { page: 1, size: 20 });
      expect([listing.total, listing.rows[0]!.quest_name, listing.rows[19]!.quest_name]).toEqual([1111, "Quest 1", "Quest 108"]);
      const third = await sqlRecordStore(tx as SqlDatabase).quests.list(big.id, { search: "quest 12" }, { page: 3, size: 20 });
      expect([third.total, third.rows[0]!.quest_name, third.rows[19]!.quest_name]).toEqual([111, "Quest 1229", "Quest 1248"]);
      return [(await read()) - before[0]!, (await scanned()) - before[1]!];
    });
    expect(fetched).toBeLessThanOrEqual(40);
    expect(entries).toBeLessThanOrEqual(100);
  });
});
