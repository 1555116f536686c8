// Issue 15 (migrations 0051, 0053): hero award and quote/spotlight search (`search`, a case-insensitive
// substring of any one searched field). By campaign, the page comes from the cards' heads in list order
// and the total from counters (0053); by session, or for a query the heads cannot answer, from a trigram
// index over the fields joined, each field then tested (0051). Every page and total here is compared
// with the matches worked out in the test from the cards' own fields.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import type { HeroAward, RecapEntry } from "../../domain/recaps.ts";
import type { Session } from "../../domain/sessions.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, heroAwardRecord, newId, recapEntryRecord, sessionRecord } from "../support/records.ts";

type AwardText = Pick<HeroAward, "title" | "description" | "character_name">;
type EntryText = Pick<RecapEntry, "text" | "title" | "description" | "character_name" | "speaker" | "context">;

/** Texts on the edges: a phrase split over two fields (no match), case, accents, wildcards, empty fields. */
const AWARDS: AwardText[] = [
  { title: "Award 12", description: "Held the door", character_name: "Grog" },
  { title: "Award 120", description: "", character_name: "" },
  { title: "Bravest", description: "award 12 for the door", character_name: "Pike" },
  { title: "Brave", description: "heart of the keep", character_name: "Vex" },
  { title: "Éclair", description: "100% done", character_name: "Scanlan" },
  { title: "Loudest", description: "under_score", character_name: "Award 1 2" },
  { title: "Keeper", description: "Of the door", character_name: "Award 12b" },
];
const ENTRIES: Array<{ type: RecapEntry["entry_type"] } & Partial<EntryText>> = [
  { type: "quote", text: "Quote 12", speaker: "Grog" },
  { type: "quote", text: "Is it a mimic?", speaker: "Quote 120 speaker" },
  { type: "quote", text: "Brave", character_name: "heart" },
  { type: "quote", text: "I cast ÉCLAIR", context: "quote 12 in the context only" },
  { type: "quote", text: "100% sure", title: "quote 12", description: null, character_name: "Pike", speaker: null },
  { type: "spotlight", title: "Quote 12 spotlight", description: "A mimic" },
  { type: "spotlight", title: "Scanlan's song", description: "under_score", character_name: "Scanlan" },
];
const QUERIES = ["award 12", "Award 1", "AWARD 12B", "ward 12", "quote 12", "uote 1", "brave heart", "brave", "heart", "the door", "éclair", "ÉCLAIR", "100%", "%", "_", "under_s", "mimic", "grog", "pike", "zzz", "a", "scanlan's"];

const inOrder = (a: { order_index: number; created_at: string; id: string }, b: typeof a) =>
  a.order_index - b.order_index || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

await forEachBackend("recap card search from trigrams", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let sessions: Session[];
  let otherSession: Session;
  let owner: string;
  const awards = new Map<string, HeroAward>();
  const entries = new Map<string, RecapEntry>();
  let next = 0;
  // Every third shares its place with the one before: creation time, then id, decide.
  const place = () => {
    const i = next++;
    return { order_index: i - (i % 3 === 2 ? 1 : 0), created_at: at(i % 4 === 0 ? 0 : i * 1000) };
  };

  const addAward = async (fields: AwardText) => {
    const award = heroAwardRecord(sessions[next % 2]!, { ...fields, ...place() });
    await store.recaps.insertAward(award, null);
    awards.set(award.id, award);
    // The same text in another campaign, which no search of this one may count.
    await store.recaps.insertAward(heroAwardRecord(otherSession, { ...fields, ...place() }), null);
  };
  const addEntry = async ({ type, ...fields }: (typeof ENTRIES)[number]) => {
    const entry = recapEntryRecord(sessions[next % 2]!, type, { text: null, title: null, ...fields, ...place() });
    await store.recaps.insertEntry(entry);
    entries.set(entry.id, entry);
    await store.recaps.insertEntry(recapEntryRecord(otherSession, type, { text: null, title: null, ...fields, ...place() }));
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    owner = (await store.users.insert({ id: newId(), name: "Owner", email: "recaps@example.test", role: "user", created_at: at() }))!.id;
    const first = campaignRecord(owner, { title: "Recaps" });
    const second = campaignRecord(owner, { title: "Other recaps" });
    await store.campaigns.insert(first);
    await store.campaigns.insert(second);
    sessions = [sessionRecord(first.id), sessionRecord(first.id)];
    otherSession = sessionRecord(second.id);
    for (const session of [...sessions, otherSession]) await store.sessions.insert(session);
    for (const fields of AWARDS) await addAward(fields);
    for (const fields of ENTRIES) await addEntry(fields);
  });

  const has = (fields: Array<string | null>, query: string) => fields.some((field) => (field ?? "").toLowerCase().includes(query.toLowerCase()));
  const expectedAwards = (query: string, sessionId?: string) =>
    [...awards.values()].filter((a) => has([a.title, a.description, a.character_name], query) && (!sessionId || a.session_id === sessionId)).sort(inOrder).map((a) => a.id);
  const expectedEntries = (type: RecapEntry["entry_type"], query: string, sessionId?: string) =>
    [...entries.values()]
      .filter((e) => e.entry_type === type && has([e.text, e.title, e.description, e.character_name, e.speaker], query) && (!sessionId || e.session_id === sessionId))
      .sort(inOrder)
      .map((e) => e.id);

  /** Every page at sizes 1, 2, 3 and 20, and the page after the last, of every query, by campaign and by session. */
  const checkAll = async () => {
    const campaignId = sessions[0]!.campaign_id;
    for (const query of QUERIES)
      for (const scope of [{ campaignId }, { sessionId: sessions[1]!.id }]) {
        const lists: Array<[string, string[], (page: { page: number; size: number }) => Promise<{ rows: Array<{ id: string }>; total: number }>]> = [
          ["awards", expectedAwards(query, scope.sessionId), (page) => store.recaps.listAwards({ ...scope, search: query }, page)],
          ["quotes", expectedEntries("quote", query, scope.sessionId), (page) => store.recaps.listEntries("quote", { ...scope, search: query }, page)],
          ["spotlights", expectedEntries("spotlight", query, scope.sessionId), (page) => store.recaps.listEntries("spotlight", { ...scope, search: query }, page)],
        ];
        for (const [what, ids, list] of lists)
          for (const size of [1, 2, 3, 20])
            for (let page = 1; page <= Math.ceil(ids.length / size) + 1; page++) {
              const listing = await list({ page, size });
              expect([what, query, size, page, listing.total, listing.rows.map((r) => r.id)]).toEqual([what, query, size, page, ids.length, ids.slice((page - 1) * size, page * size)]);
            }
      }
  };

  test("the edges: a phrase over two fields is no match; case, accents, wildcards, empty fields", async () => {
    expect([expectedAwards("award 12").length, expectedAwards("brave heart").length, expectedEntries("quote", "quote 12").length, expectedEntries("quote", "brave heart").length]).toEqual([4, 0, 3, 0]);
    await checkAll();
  });

  test("after inserts, changed texts and deletes", async () => {
    for (const k of [0, 1]) {
      await addAward({ title: `Award 12${k} again`, description: "brave heart", character_name: "" });
      await addEntry({ type: "quote", text: `quote 1${k}2`, speaker: "Award 12" });
    }
    const award = [...awards.values()].find((a) => a.title === "Award 12")!;
    const renamed = { ...award, title: "Award twelve", description: "brave heart" };
    await store.recaps.replaceAward(renamed, null);
    awards.set(award.id, renamed);
    const quote = [...entries.values()].find((e) => e.text === "Is it a mimic?")!;
    const changed = { ...quote, speaker: null, character_name: "Quote 12 speaker" };
    await store.recaps.replaceEntry(changed);
    entries.set(quote.id, changed);
    for (const gone of [[...awards.values()].find((a) => a.title === "Keeper")!]) {
      await store.recaps.deleteAward(gone.id);
      awards.delete(gone.id);
    }
    // A new place in the list moves the card's heads.
    const moved = { ...[...awards.values()].find((a) => a.title === "Award 120")!, order_index: -5 };
    await store.recaps.replaceAward(moved, null);
    awards.set(moved.id, moved);
    const goneEntry = [...entries.values()].find((e) => e.text === "Quote 12")!;
    await store.recaps.deleteEntry(goneEntry.id);
    entries.delete(goneEntry.id);
    await checkAll();
  });

  /** The heads as recomputed from the cards, and the counters' sums as counted from the heads. */
  const checkHeads = async () => {
    const [heads] = await db.query(
      `select (select count(*) from recap_search_heads)::int as stored,
              (select count(*) from (
                 select campaign_id, 'award' as kind, w.word, w.head, order_index, created_at, id from hero_awards, recap_search_heads_of(array[title, description, character_name]) w
                 union all
                 select campaign_id, entry_type, w.word, w.head, order_index, created_at, id from recap_entries, recap_search_heads_of(array[text, title, description, character_name, speaker]) w
                 except
                 select campaign_id, kind, word, head, order_index, created_at, card_id from recap_search_heads) m)::int as missing,
              (select count(*) from hero_awards, recap_search_heads_of(array[title, description, character_name]) w)::int
                + (select count(*) from recap_entries, recap_search_heads_of(array[text, title, description, character_name, speaker]) w)::int as expected`,
    );
    expect(heads).toEqual({ stored: heads!.expected, missing: 0, expected: heads!.expected });
    const [counts] = await db.query(
      `select count(*)::int as wrong from
         (select campaign_id, kind, word, head, count(*)::int as n from recap_search_heads group by 1, 2, 3, 4) h
         full join (select campaign_id, kind, word, head, sum(n)::int as n from search_head_counts where kind in ('award', 'quote', 'spotlight') group by 1, 2, 3, 4 having sum(n) <> 0) c using (campaign_id, kind, word, head)
       where h.n is distinct from c.n`,
    );
    expect(counts).toEqual({ wrong: 0 });
  };

  test("heads and counters equal their recount after inserts, edits, deletes and 8 concurrent inserts", async () => {
    await checkHeads();
    await Promise.all(
      Array.from({ length: 8 }, (_, k) => (k % 2 ? addEntry({ type: k % 4 === 1 ? "quote" : "spotlight", text: `Quote 12 concurrent ${k}`, title: "award 12" }) : addAward({ title: `Award 12 concurrent ${k}`, description: "quote 12", character_name: "" }))),
    );
    await checkHeads();
    await checkAll();
    // Deleted on other connections than they were counted on (slots below 0), then counted again.
    await Promise.all([...awards.values()].filter((a) => a.title.includes("concurrent")).map(async (a) => {
      await store.recaps.deleteAward(a.id);
      awards.delete(a.id);
    }));
    await checkHeads();
    await checkAll();
    // One statement of quotes and spotlights (other campaign's: its counters per kind), then a change of kind.
    await db.query(
      `insert into recap_entries (id, campaign_id, session_id, entry_type, text, speaker, order_index, created_at)
       select 'mixed' || g, $1, $2, case when g % 2 = 0 then 'quote' else 'spotlight' end, 'Quote 12 mixed', 'Award 12', g, $3::timestamptz from generate_series(1, 6) g`,
      [otherSession.campaign_id, otherSession.id, at()],
    );
    await db.query(`update recap_entries set entry_type = 'quote' where id in ('mixed1', 'mixed3')`);
    await checkHeads();
    await db.query(`delete from recap_entries where id like 'mixed%'`);
    await checkHeads();
    // A word over 200 characters has no heads but a marker: the campaign's awards take 0051's path until it goes.
    await addAward({ title: `${"x".repeat(300)}award 12`, description: "", character_name: "" });
    await checkHeads();
    await checkAll();
    const long = [...awards.values()].find((a) => a.title.startsWith("xxx"))!;
    await store.recaps.deleteAward(long.id);
    awards.delete(long.id);
    await checkHeads();
    await checkAll();
  });

  test("a first page among 111 or 1,111 matches of 3,000 cards reads 20 cards by campaign; by session, the matches", async () => {
    const big = campaignRecord(owner, { title: "Big recaps" });
    await store.campaigns.insert(big);
    const session = sessionRecord(big.id);
    await store.sessions.insert(session);
    await db.query(
      `insert into hero_awards (id, campaign_id, session_id, title, description, character_name, order_index, created_at)
       select 'big' || g, $1, $2, 'Award ' || g, 'Bench award', 'Bench hero', g, $3::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [big.id, session.id, at()],
    );
    await db.query(
      `insert into recap_entries (id, campaign_id, session_id, entry_type, text, speaker, order_index, created_at)
       select 'bigq' || g, $1, $2, 'quote', 'Quote ' || g, 'Bench speaker', g, $3::timestamptz + g * interval '1 second' from generate_series(1, 3000) g`,
      [big.id, session.id, at()],
    );
    await db.query(`analyze`);
    // A table's rows read in this transaction, before and after.
    const read = async <T,>(tables: string[], list: (tx: SqlExecutor) => Promise<T>) =>
      db.transaction(async (tx: SqlExecutor) => {
        const rows = async () =>
          Promise.all(tables.map(async (table) =>
            Number((await tx.query(`select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n from pg_stat_xact_user_tables where relname = $1`, [table]))[0]!.n)));
        const before = await rows();
        const listing = await list(tx);
        const after = await rows();
        return { listing, read: after.map((n, k) => n - before[k]!) };
      });
    const recaps = (tx: SqlExecutor) => sqlRecordStore(tx as SqlDatabase).recaps;
    const first = (listing: { total: number; rows: Array<{ id: string }> }) => [listing.total, listing.rows.length, listing.rows[0]?.id];
    // By campaign (0053): 20 cards read by key and about 20 heads, whether 111 or 1,111 match.
    for (const [query, total, firstId] of [["award 12", 111, "big12"], ["award 1", 1111, "big1"]] as const) {
      const awards = await read(["hero_awards", "recap_search_heads"], (tx) => recaps(tx).listAwards({ campaignId: big.id, search: query }, { page: 1, size: 20 }));
      expect([query, ...first(awards.listing)]).toEqual([query, total, 20, firstId]);
      expect([query, awards.read[0]]).toEqual([query, 20]);
      expect(awards.read[1]).toBeLessThanOrEqual(25);
      const quotes = await read(["recap_entries", "recap_search_heads"], (tx) => recaps(tx).listEntries("quote", { campaignId: big.id, search: query.replace("award", "quote") }, { page: 1, size: 20 }));
      expect([query, ...first(quotes.listing)]).toEqual([query, total, 20, firstId.replace("big", "bigq")]);
      expect([query, quotes.read[0]]).toEqual([query, 20]);
      expect(quotes.read[1]).toBeLessThanOrEqual(25);
    }
    // By session (0051): the matches (twice: the page and its count), not the 3,000+ cards without the index.
    const bySession = await read(["hero_awards"], (tx) => recaps(tx).listAwards({ sessionId: session.id, search: "award 12" }, { page: 1, size: 20 }));
    expect(first(bySession.listing)).toEqual([111, 20, "big12"]);
    expect(bySession.read[0]).toBeLessThanOrEqual(3 * 111);
  });
});
