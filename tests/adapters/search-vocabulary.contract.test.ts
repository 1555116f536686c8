// Issue 15 (migration 0056): quest, moment and hero award search by campaign look their campaign's
// words up by suffix (search_word_suffixes, keyed by kind and campaign), so a search reads as many
// pages with 400 other campaigns holding the same words as alone, and as many in a campaign of
// 2,000 words as in one of ten. Before, the lookup read either every campaign's matching words (the
// vocabularies' trigram indexes) or the campaign's whole vocabulary (their primary keys), as the
// statistics decided. Every page and total is checked against the matches worked out here.
import { expect, test } from "bun:test";
import type { SqlDatabase, SqlExecutor } from "../../adapters/sql/database.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, campaignRecord, newId, sessionRecord } from "../support/records.ts";

const OTHERS = 400;
const CARDS = 2000;

type PlanNode = { "Shared Hit Blocks": number; "Shared Read Blocks": number };

/** The searched campaign's texts, as the SQL below writes them: g = 1 … CARDS. */
// The big campaign holds one word ending with "quest" and one holding "dragon" (its pages' totals are counters);
// the small one several (the distinct records of their ranges).
const tail = (g: number, small: boolean) =>
  small ? (g % 5 === 0 ? "the sidequest dragonbone" : "the dragon") : g % 50 === 0 ? "the wyrm of bone" : "the dragon";
const questText = (g: number, small: boolean) => `Quest ${g} ${tail(g, small)}`;
const momentLabel = (g: number, small: boolean) => `Moment ${g} ${tail(g, small)}`;
const awardFields = (g: number, small: boolean) => [`Award ${g}`, `for ${tail(g, small)}`, "Hero"];

const QUERIES = {
  // Heads (a word ending with or holding the first word, a rest of 0 to 3 characters); in the small campaign
  // "quest", "dragon" and "bone" have two words each. With a rest of 4 characters, the word starts.
  quest: ["quest 1", "quest 12", "quest", "dragon", "bone", "wyrm of", "sidequest", "the", "zzz", "quest 123"],
  moment: ["moment 1", "moment 12", "moment", "dragon", "bone", "wyrm of", "sidequest", "the", "zzz", "moment 123"],
  award: ["award 1", "award 12", "award", "dragon", "bone", "wyrm of", "sidequest", "the", "zzz"],
};

await forEachBackend("search vocabulary by campaign", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let big: string;
  let small: string;
  const gs = Array.from({ length: CARDS }, (_, k) => k + 1);

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    const owner = (await store.users.insert({ id: newId(), name: "Owner", email: "vocabulary@example.test", role: "user", created_at: at() }))!.id;
    const campaigns = [campaignRecord(owner, { title: "Big" }), campaignRecord(owner, { title: "Small" })];
    for (const c of campaigns) await store.campaigns.insert(c);
    [big, small] = campaigns.map((c) => c.id) as [string, string];
    const sessions = new Map([big, small].map((c) => [c, sessionRecord(c)]));
    for (const s of sessions.values()) await store.sessions.insert(s);
    // 400 other campaigns, each with two quests, moments and awards holding the searched words and one
    // word of its own; written round by round, so a word's rows of all campaigns interleave.
    await db.query(
      `insert into campaigns (id, title, owner_id, created_at) select 'other-' || i, 'Other ' || i, $1, $2 from generate_series(1, ${OTHERS}) i`,
      [owner, at()],
    );
    await db.query(
      `insert into sessions (id, campaign_id, type, title, session_date, created_at) select 'os-' || i, 'other-' || i, 'chatVoice', 'S', $1, $1 from generate_series(1, ${OTHERS}) i`,
      [at()],
    );
    for (let k = 1; k <= 2; k++) {
      await db.query(
        `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
         select 'oq-' || i || '-' || ${k}, 'other-' || i, ${k}, 'Quest ' || ${k}, 'main', 'planned', 'Quest ' || ${k} || ' the dragon sidequest w' || i, $1
         from generate_series(1, ${OTHERS}) i`,
        [at(k)],
      );
      await db.query(
        `insert into moments (id, campaign_id, label, created_at)
         select 'om-' || i || '-' || ${k}, 'other-' || i, 'Moment ' || ${k} || ' the dragon sidequest w' || i, $1 from generate_series(1, ${OTHERS}) i`,
        [at(k)],
      );
      await db.query(
        `insert into hero_awards (id, campaign_id, session_id, title, description, character_name, order_index, created_at)
         select 'oa-' || i || '-' || ${k}, 'other-' || i, 'os-' || i, 'Award ' || ${k}, 'for the dragon sidequest w' || i, 'Hero', ${k}, $1
         from generate_series(1, ${OTHERS}) i`,
        [at(k)],
      );
    }
    // The searched campaign: 2,000 of each (2,000 number words in each vocabulary), and a small one.
    for (const [campaign, n] of [[big, CARDS], [small, 10]] as const) {
      const tailSql = campaign === small
        ? `case when g % 5 = 0 then 'the sidequest dragonbone' else 'the dragon' end`
        : `case when g % 50 = 0 then 'the wyrm of bone' else 'the dragon' end`;
      await db.query(
        `insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
         select $1 || '-q' || g, $1, g, 'Quest ' || g, 'main', 'planned', 'Quest ' || g || ' ' || ${tailSql}, $2::timestamptz + g * interval '1 second'
         from generate_series(1, ${n}) g`,
        [campaign, at()],
      );
      await db.query(
        `insert into moments (id, campaign_id, label, created_at)
         select $1 || '-m' || g, $1, 'Moment ' || g || ' ' || ${tailSql}, $2::timestamptz + g * interval '1 second' from generate_series(1, ${n}) g`,
        [campaign, at()],
      );
      await db.query(
        `insert into hero_awards (id, campaign_id, session_id, title, description, character_name, order_index, created_at)
         select $1 || '-a' || g, $1, $3, 'Award ' || g, 'for ' || ${tailSql}, 'Hero', g, $2::timestamptz + g * interval '1 second'
         from generate_series(1, ${n}) g`,
        [campaign, at(), sessions.get(campaign)!.id],
      );
    }
    // As the service's statistics pass leaves them (index-only reads need the visibility map).
    await db.exec(`vacuum analyze`);
  });

  /** The ids a search should serve: the campaign's records whose text holds the query, in list order. */
  const expected = (campaign: string, n: number, kind: "quest" | "moment" | "award", query: string) => {
    const q = query.toLowerCase();
    const isSmall = campaign === small;
    const held = gs.slice(0, n).filter((g) =>
      kind === "quest" ? questText(g, isSmall).toLowerCase().includes(q)
      : kind === "moment" ? momentLabel(g, isSmall).toLowerCase().includes(q)
      : awardFields(g, isSmall).some((f) => f.toLowerCase().includes(q)));
    if (kind === "moment") held.reverse(); // newest first
    return { total: held.length, ids: held.slice(0, 20).map((g) => `${campaign}-${kind[0]}${g}`) };
  };
  const served = async (campaign: string, kind: "quest" | "moment" | "award", query: string) => {
    const page = { page: 1, size: 20 };
    const listing = kind === "quest" ? await store.quests.list(campaign, { search: query }, page)
      : kind === "moment" ? await store.moments.list({ campaignId: campaign, search: query }, page)
      : await store.recaps.listAwards({ campaignId: campaign, search: query }, page);
    return { total: listing.total, ids: listing.rows.map((r) => r.id) };
  };
  /** Pages read by one warm call of the search function (its statements' plans cached), on one connection. */
  const pagesRead = (campaign: string, kind: "quest" | "moment" | "award", query: string) =>
    db.transaction(async (tx: SqlExecutor) => {
      const like = `%${query}%`;
      const call = kind === "quest" ? [`quest_search_page($1, $2, $3, null, null, 20, 0)`, [campaign, query, like]]
        : kind === "moment" ? [`moment_search_page($1, $2, $3, 20, 0)`, [campaign, query, like]]
        : [`recap_search_page($1, 'award', $2, 20, 0)`, [campaign, query]];
      const sql = `select * from ${call[0]}`;
      await tx.query(sql, call[1] as unknown[]);
      const [row] = await tx.query(`explain (analyze, buffers, format json) ${sql}`, call[1] as unknown[]);
      const value = Object.values(row!)[0];
      const plan = ((typeof value === "string" ? JSON.parse(value) : value) as { Plan: PlanNode }[])[0]!.Plan;
      return plan["Shared Hit Blocks"] + plan["Shared Read Blocks"];
    });

  for (const kind of ["quest", "moment", "award"] as const) {
    test(`${kind} search: pages and totals as the texts say, in a big and a small campaign among ${OTHERS} others`, async () => {
      for (const [campaign, n] of [[big, CARDS], [small, 10]] as const) {
        for (const query of QUERIES[kind]) {
          expect({ query, n, ...(await served(campaign, kind, query)) }).toEqual({ query, n, ...expected(campaign, n, kind, query) });
        }
      }
      // The other campaigns' records hold the words too: none served here, and one of theirs served there.
      expect(await served("other-7", kind, "dragon")).toEqual({ total: 2, ids: kind === "moment" ? [`o${kind[0]}-7-2`, `o${kind[0]}-7-1`] : [`o${kind[0]}-7-1`, `o${kind[0]}-7-2`] });
    });

    test(`${kind} search reads a few pages whatever the campaigns and the campaign's vocabulary`, async () => {
      // 6–21 pages with 0056. Before it the planner took the vocabulary's primary key here (many small
      // campaigns) and read the big campaign's 2,000+ words: 42–43 pages a search (14–20 in the small one);
      // with few, large campaigns it took the trigram index, one row per campaign holding the word.
      const read: Record<string, number> = {};
      for (const query of QUERIES[kind].filter((q) => !q.endsWith(" 123"))) {
        read[`big ${query}`] = await pagesRead(big, kind, query);
        read[`small ${query}`] = await pagesRead(small, kind, query);
      }
      if (process.env.SHOW_PAGES) console.log(kind, JSON.stringify(read));
      expect(Object.entries(read).filter(([, pages]) => pages > 30)).toEqual([]);
    });
  }
});
