// Issue 15 (migration 0051): a moment search (`search`, a case-insensitive substring of the label)
// takes its page and exact total from the labels' word starts (as quests do, 0046) instead of the
// trigram index (a row read and rechecked per match, twice). Every page and total here is compared
// with the matches worked out in the test from the labels, after inserts, relabels and deletes.
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

  test("the edges: phrases across words, inside words, case, punctuation, wildcards, a word over 200 characters", async () => {
    expect([expected("moment 12").length, expected("xxxdragonb").length, expected("%").length]).toEqual([5, 1, 1]);
    await checkAll();
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
    await checkAll();
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

  test("a first page among 1,111 matches reads 20 moments' rows, not every match's", async () => {
    const big = campaignRecord(owner, { title: "Big moments" });
    await store.campaigns.insert(big);
    await db.query(
      `insert into moments (id, campaign_id, label, kind, created_at)
       select 'big' || g, $1, 'Moment ' || g, 'moment', $2::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [big.id, at()],
    );
    await db.query(`analyze`);
    const fetched = await db.transaction(async (tx: SqlExecutor) => {
      const read = async () =>
        Number((await tx.query(`select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname = 'moments'`))[0]!.n);
      const before = await read();
      const listing = await sqlRecordStore(tx as SqlDatabase).moments.list({ campaignId: big.id, search: "moment 1" }, { page: 1, size: 20 });
      expect([listing.total, listing.rows[0]!.label, listing.rows[19]!.label]).toEqual([1111, "Moment 1999", "Moment 1980"]);
      return (await read()) - before;
    });
    expect(fetched).toBeLessThanOrEqual(20);
  });
});
