// Issue 15 (migration 0051): a moment search (`search`, a case-insensitive substring of the label)
// takes its page and exact total from the labels' word starts (as quests do, 0046) instead of the
// trigram index (a row read and rechecked per match, twice). Every page and total here is compared
// with the matches worked out in the test from the labels, after inserts, relabels and deletes.
// Migration 0052 (0050's design): a query whose rest after its first word is at most 3 characters takes
// its page from moment_search_heads (the moments newest first per word and head) and, for one word, its
// total from search_head_counts; the tests below also check both tables against the labels.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { Moment } from "../../domain/moments.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, momentRecord, newId } from "../support/records.ts";

const LONG_WORD = "x".repeat(230) + "dragonbone";

/** Labels on the edges of the word starts (null: a moment without a label). */
const START: Array<string | null> = [
  "Moment 12", "Moment 120", "MOMENT 12b", "The sidemoment 12 of Ellia", "moment  12 (two spaces)", "moment-12", "Moment 1 2",
  "Moment 12 and moment 125, then moment 12 again", "Slay the Dragon of the North", "Éclair du Dragon", "100% done, not 1000 done",
  `carve ${LONG_WORD} now`, "under_score moment_12", null, "", "The longest phrase of all of this log, on and on and on",
];
const MORE = ["Moment 12 again", "Another dragon", "moment 1200", "Nothing here", "Sidemoment 129"];

const QUERIES = [
  "moment 12", "Moment 12", "MOMENT 1", "oment 12", "ent 12 ", "sidemoment 12", "moment", "mome", "12", "12b", "moment 12 and moment 125",
  "dragon", "DRAGON", "dragon of the north", "the longest phrase of all of this log, on", "The longest phrase of all of this log, on and on and",
  "éclair", "ÉCLAIR DU", "100%", "100% done", "1000", "%", "_", "moment_12", "xxxdragonb", "dragonbone now", "moment  12", "moment-1", "zzz", "m",
  // Rests of 0 to 3 characters (0052's heads), one vocabulary word or several.
  "moment 1", "moment ", "MOMENT 12", "sidemoment 1", "sidemoment", "dragon ", "12 (", "moment-", "12b ", "moment 12 ", "bulk", "wyrm 1",
];

await forEachBackend("moment search from word starts", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let campaign: string;
  let other: string;
  let owner: string;
  /** The campaign's moments as the test last wrote them. */
  const kept = new Map<string, Moment>();
  let next = 0;

  // Every fourth shares its creation time with the one before: the id decides.
  const momentOf = (campaignId: string, label: string | null): Moment => {
    const i = next++;
    return momentRecord(campaignId, { label, created_at: at((i - (i % 4 === 3 ? 1 : 0)) * 1000) });
  };
  const insert = async (label: string | null) => {
    const moment = momentOf(campaign, label);
    await store.moments.insert(moment);
    kept.set(moment.id, moment);
    // The same label in another campaign, which no search of this one may count.
    await store.moments.insert(momentOf(other, label));
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "moments@example.test", role: "user", created_at: at() }))!.id;
    const first = campaignRecord(owner, { title: "Moments" });
    const second = campaignRecord(owner, { title: "Other moments" });
    await store.campaigns.insert(first);
    await store.campaigns.insert(second);
    campaign = first.id;
    other = second.id;
    for (const label of START) await insert(label);
  });

  /** The matches newest first, from the labels above. */
  const expected = (query: string) =>
    [...kept.values()]
      .filter((m) => (m.label ?? "").toLowerCase().includes(query.toLowerCase()))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((m) => m.id);

  /** Every page at sizes 1, 2, 3 and 20, and the page after the last, against `expected`. */
  const checkAll = async () => {
    for (const query of QUERIES) {
      const ids = expected(query);
      for (const size of [1, 2, 3, 20]) {
        const pages = Math.ceil(ids.length / size);
        for (let page = 1; page <= pages + 1; page++) {
          const listing = await store.moments.list({ campaignId: campaign, search: query }, { page, size });
          expect([query, size, page, listing.total, listing.rows.map((m) => m.id)]).toEqual([query, size, page, ids.length, ids.slice((page - 1) * size, page * size)]);
        }
      }
      // With another filter the trigram path answers: the same matches.
      const kinded = await store.moments.list({ campaignId: campaign, search: query, kind: "moment" }, { page: 1, size: 100 });
      expect([query, kinded.total, kinded.rows.map((m) => m.id)]).toEqual([query, ids.length, ids.slice(0, 100)]);
    }
  };

  /** 0052's heads and counters equal those rebuilt from the labels (every campaign). */
  const checkHeads = async () => {
    const rebuilt = `select m.campaign_id, w.word, w.head, m.created_at, m.id as moment_id from moments m, quest_search_heads_of(m.label) w`;
    const heads = `select campaign_id, word, head, created_at, moment_id from moment_search_heads`;
    const missing = await db.query(`${rebuilt} except ${heads}`);
    const stale = await db.query(`${heads} except ${rebuilt}`);
    // Counted from the labels' words and tails, not from the heads: the moments with a word whose tail
    // starts with the head. A key's slots summing to 0 are a key no moment holds (deletes on two connections).
    const fromLabels = `select campaign_id, word, head, count(*)::int as n from (select distinct m.campaign_id, e.word, left(e.tail, j) as head, m.id
      from moments m, quest_search_entries_of(m.label) e, generate_series(0, 3) j where e.word <> '') x group by 1, 2, 3`;
    const counters = `select campaign_id, word, head, sum(n)::int as n from search_head_counts where kind = 'moment' group by 1, 2, 3`;
    const counts = await db.query(`(${fromLabels} except ${counters}) union all (${counters} having sum(n) <> 0 except ${fromLabels})`);
    const zero = await db.query(`select * from search_head_counts where n = 0`);
    expect([missing.length, stale.length, counts, zero.length]).toEqual([0, 0, [], 0]);
    expect(Number((await db.query(`select count(*) as n from search_head_counts where kind = 'moment'`))[0]!.n)).toBeGreaterThan(50);
  };

  test("the edges: phrases across words, inside words, case, punctuation, wildcards, a word over 200 characters", async () => {
    expect([expected("moment 12").length, expected("xxxdragonb").length, expected("%").length]).toEqual([5, 1, 1]);
    await checkAll();
    await checkHeads();
  });

  test("after inserts (one and several in a statement), relabels, a new creation time and deletes", async () => {
    for (let k = 0; k < 3; k++) for (const label of MORE) await insert(`${label} ${k}`);
    const many = [0, 1, 2].map((k) => momentOf(campaign, `Bulk sidemoment 12${k}${k === 1 ? " a dragon" : ""}`));
    await db.query(
      `insert into moments (id, campaign_id, label, kind, created_at) select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
      [many.map((m) => m.id), many.map((m) => m.campaign_id), many.map((m) => m.label), many.map((m) => m.kind), many.map((m) => m.created_at)],
    );
    for (const m of many) kept.set(m.id, m);
    await checkAll();

    const byLabel = (label: string | null) => [...kept.values()].find((m) => m.label === label)!;
    const change = async (label: string | null, fields: Partial<Moment>) => {
      const moment = { ...byLabel(label), ...fields };
      await store.moments.replace(moment);
      kept.set(moment.id, moment);
    };
    await change("Moment 12", { label: "Moment twelve" });
    await change("Another dragon 1", { label: "Another wyrm 1, moment 12" });
    await change(null, { label: "Was empty: moment 12" });
    await change("Nothing here 2", { label: null });
    await change("moment 1200 1", { created_at: at(-5_000) });
    await change("Bulk sidemoment 120", { content: "content is not searched: dragon" });
    for (const label of ["Moment 120", "Sidemoment 129 0", "100% done, not 1000 done"]) {
      const moment = byLabel(label);
      await store.moments.delete(moment.id);
      kept.delete(moment.id);
    }
    // A move to another campaign: its heads and counts go with it.
    const away = byLabel("Moment 12 again 2");
    await db.query(`update moments set campaign_id = $2 where id = $1`, [away.id, other]);
    kept.delete(away.id);
    await checkAll();
    await checkHeads();
    // The word over 200 characters gone, the campaign's searches take the heads (0052) where they apply.
    await change(`carve ${LONG_WORD} now`, { label: "carve it now" });
    expect(Number((await db.query(`select count(*)::int as n from moment_search_entries where campaign_id = $1 and word = ''`, [campaign]))[0]!.n)).toBe(0);
    await checkAll();
    await checkHeads();
  });

  test("concurrent inserts (8 at a time, as a transcript's moments) and deletes keep the counters exact", async () => {
    const labels = Array.from({ length: 48 }, (_, i) => (i % 3 ? `Moment 12${i} of the dragon` : `Sidemoment ${i} for the dragon`));
    const made: Moment[] = [];
    for (let i = 0; i < labels.length; i += 8) {
      const batch = labels.slice(i, i + 8).map((label) => momentOf(campaign, label));
      await Promise.all(batch.map((m) => store.moments.insert(m)));
      for (const m of batch) kept.set(m.id, m), made.push(m);
    }
    await checkAll();
    await checkHeads();
    await Promise.all(made.filter((_, i) => i % 2).map(async (m) => {
      await store.moments.delete(m.id);
      kept.delete(m.id);
    }));
    await checkAll();
    await checkHeads();
  });

  test("the entries follow the labels: rebuilt from the moments, the same rows", async () => {
    const rebuilt = await db.query(
      `select m.campaign_id, w.word, w.tail, m.id as moment_id, m.created_at from moments m, quest_search_entries_of(m.label) w
       except select campaign_id, word, tail, moment_id, created_at from moment_search_entries`,
    );
    const stale = await db.query(
      `select campaign_id, word, tail, moment_id, created_at from moment_search_entries
       except select m.campaign_id, w.word, w.tail, m.id, m.created_at from moments m, quest_search_entries_of(m.label) w`,
    );
    expect([rebuilt.length, stale.length]).toEqual([0, 0]);
    expect(Number((await db.query(`select count(*) as n from moment_search_entries`))[0]!.n)).toBeGreaterThan(100);
  });

  test("a first page among 1,111 matches reads 20 moments' rows and 20 heads, not every match's", async () => {
    const big = campaignRecord(owner, { title: "Big moments" });
    await store.campaigns.insert(big);
    await db.query(
      `insert into moments (id, campaign_id, label, kind, created_at)
       select 'big' || g, $1, 'Moment ' || g, 'moment', $2::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [big.id, at()],
    );
    await db.query(`analyze`);
    const [fetched, entries] = await db.transaction(async (tx: SqlExecutor) => {
      const read = async () =>
        Number((await tx.query(`select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname = 'moments'`))[0]!.n);
      // Rows of the word starts (0051) and the heads (0052) read: not yet vacuumed, an index-only scan
      // reads each entry's row too (0051 read every match's).
      const scanned = async () =>
        Number((await tx.query(`select coalesce(sum(coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname in ('moment_search_entries', 'moment_search_heads')`))[0]!.n);
      const before = [await read(), await scanned()];
      const listing = await sqlRecordStore(tx as SqlDatabase).moments.list({ campaignId: big.id, search: "moment 1" }, { page: 1, size: 20 });
      expect([listing.total, listing.rows[0]!.label, listing.rows[19]!.label]).toEqual([1111, "Moment 1999", "Moment 1980"]);
      const third = await sqlRecordStore(tx as SqlDatabase).moments.list({ campaignId: big.id, search: "moment 12" }, { page: 3, size: 20 });
      expect([third.total, third.rows[0]!.label, third.rows[19]!.label]).toEqual([111, "Moment 1259", "Moment 1240"]);
      return [(await read()) - before[0]!, (await scanned()) - before[1]!];
    });
    expect(fetched).toBeLessThanOrEqual(40);
    expect(entries).toBeLessThanOrEqual(100);
  });
});
