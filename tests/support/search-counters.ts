// The list search's word counters as readers see them (migration 0058: a word's count is the sum
// of its slots, its newest records the 4 newest of its slots' lists), worked out here from the rows
// rather than by the service's own functions, and checked against the records' words.
import type { SqlExecutor } from "../../adapters/sql/database.ts";

/** A campaign's words (`$1`): list, term, n (slots summed), newest (the merged lists, newest first). */
const MERGED = `select x.list, x.term, sum(x.n)::int as n,
                       coalesce((select (array_agg(d.i order by d.a desc, d.i collate "C" desc))[1:4]
                                 from (select distinct u.i, u.a from search_vocabulary y, unnest(y.recent_ids, y.recent_at) u(i, a)
                                       where y.campaign_id = x.campaign_id and y.list = x.list and y.term = x.term) d), '{}') as newest
                from search_vocabulary x where x.campaign_id = $1 group by x.campaign_id, 1, 2`;

/** The campaign's words as readers merge them, in list and term order. */
export const mergedWords = (db: SqlExecutor, campaign: string) => db.query(`${MERGED} order by 1, 2`, [campaign]);

/**
 * The words whose merged counters differ from search_terms (the records' words): their count, or
 * their 4 newest records. Empty when the triggers kept every counter.
 */
export const wordDrift = (db: SqlExecutor, campaign: string) =>
  db.query(
    `select v.list, v.term, v.n, v.newest, held.n as held, held.ids as held_newest
     from (${MERGED}) v
     cross join lateral (select count(*)::int as n,
                                coalesce((array_agg(s.record_id order by s.created_at desc, s.record_id collate "C" desc))[1:4], '{}') as ids
                         from search_terms s where s.campaign_id = $1 and s.list = v.list and s.term = v.term) held
     where v.n <> held.n or v.newest <> held.ids`,
    [campaign],
  );
