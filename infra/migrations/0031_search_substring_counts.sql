-- List search's substring step without reading every match (issue 15). search_words_containing
-- (0026) grouped, counted and sorted every (record, word) entry of the words holding the query:
-- 924 records at 100k per kind for five letters, ~1 µs of PostgreSQL CPU each, growing with the
-- campaign. Now the page and the exact total each cost what the words and the page cost:
--   * total = Σ records per matched word (a counter kept on search_vocabulary) − the records counted
--     more than once (a record holding k matched words counts k − 1 too many). Those records are
--     found in search_word_overlaps: one row per record whose words share a 3-letter piece, with the
--     pieces shared and the words sharing them. Two words that both hold the query share all of the
--     query's 3-letter pieces, so every record counted twice is among the rows whose shared pieces
--     hold the query's, and its words there say how many of them hold it. Exact for queries of 3
--     letters or more; shorter ones keep the grouped count (their trigram lookup reads the whole
--     vocabulary index anyway).
--   * page = from the matched words' newest records: each vocabulary row also keeps its word's 4
--     newest records (id and creation time), so the page's first candidates come with the word
--     lookup, no index read per word. A record of the page is among its word's page-end newest;
--     the page's last record among the candidates is no newer than the real one, so only a word
--     whose 4 reach back to it (and that has more) can hold more of the page, and only those words
--     are read on in a new index in page order, down to it. (Fewer candidates than the page's end,
--     a deep page: the words with more than 4 are read to their page-end newest.) The same page as
--     every match sorted, for the word lookup and a few entries instead of every match.

-- Records holding each word (the list's records with this term in search_terms), and the newest 4
-- of them, newest first (ties by id in the "C" collation, as the page is ordered).
-- Room on each page, so the rewrite of a word's row on each write stays on its page (no new
-- trigram index entries).
alter table search_vocabulary set (fillfactor = 70);
alter table search_vocabulary add column n int not null default 0,
  add column recent_ids text[] not null default '{}', add column recent_at timestamptz[] not null default '{}';
update search_vocabulary v set n = (select count(*)::int from search_terms s where s.campaign_id = v.campaign_id and s.list = v.list and s.term = v.term);

-- Each word's records newest first (ties by id in the "C" collation, as the page is ordered).
create index search_terms_newest on search_terms (campaign_id, list, term, created_at desc, record_id collate "C" desc);

-- A word's 4 newest records, from that index (the trigger refills the words a statement touched).
update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
from search_vocabulary t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term collate "C"
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
where t.n > 0 and v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term;

create table search_word_overlaps (
  campaign_id text not null,
  list text not null,
  record_id text not null,
  terms text[] not null,   -- the record's words that share a 3-letter piece with another of its words
  shared text[] not null,  -- the 3-letter pieces at least two of its words hold
  primary key (campaign_id, list, record_id)
);
create index search_word_overlaps_shared on search_word_overlaps using gin (shared) with (gin_pending_list_limit = 64);

-- The pieces a record's words share and the words sharing them; nulls when they share none.
create function search_word_overlap(p_vector tsvector, out terms text[], out shared text[]) language sql immutable as $$
  select array_agg(distinct s.w order by s.w), array_agg(distinct s.g order by s.g)
  from (select g.g, unnest(array_agg(g.w)) as w
        from (select distinct u.lexeme as w, substr(u.lexeme, i, 3) as g from unnest(p_vector) u, generate_series(1, length(u.lexeme) - 2) i) g
        group by g.g having count(*) > 1) s
$$;

-- search_terms_track (0025) also keeps the counters, the newest records and the overlaps. Counter
-- changes are one upsert per statement in key order (two writers wait for each other in the same
-- order); the counts are those of the search_terms rows the statement really inserted, and of the
-- rows it deleted. Then the words the statement touched get their newest records again from the
-- index (their rows are already locked by the upsert; a statement of its own, which sees its writes).
-- A record's list is taken in the default collation: search_list's result takes its first
-- argument's, and TG_TABLE_NAME is a name ("C"), so 0025's `s.list = o.list` compared in "C" and
-- the primary key (list in the default collation) could not serve it: its delete and update read
-- search_terms whole (one character's delete: 110-310 ms at 10k, a sequential scan).
create or replace function search_terms_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    with gone as (
      delete from search_terms s
      using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o, unnest(o.search_vector) w
      where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id
      returning s.campaign_id, s.list, s.term
    )
    insert into search_vocabulary as v (campaign_id, list, term, n)
    select campaign_id, list, term, -count(*)::int from gone group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term) do update set n = v.n + excluded.n;
    delete from search_word_overlaps x
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id from old_rows t) o
    where x.campaign_id = o.campaign_id and x.list = o.list and x.record_id = o.id;
    update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
    from (select distinct t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, w.lexeme as term from old_rows t, unnest(t.search_vector) w) t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term collate "C"
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
    where v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term collate "C";
  elsif TG_OP = 'INSERT' then
    with added as (
      select n.campaign_id, n.list, w.lexeme as term, n.id as record_id, n.created_at
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.created_at, t.search_vector from new_rows t) n, unnest(n.search_vector) w
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select campaign_id, list, term, record_id, created_at from added on conflict do nothing
      returning campaign_id, list, term
    )
    insert into search_vocabulary as v (campaign_id, list, term, n)
    select campaign_id, list, term, count(*)::int from terms group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term) do update set n = v.n + excluded.n;
    insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
    select n.campaign_id, n.list, n.id, o.terms, o.shared
    from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n, search_word_overlap(n.search_vector) o
    where o.shared is not null
    on conflict do nothing;
    update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
    from (select distinct t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, w.lexeme as term from new_rows t, unnest(t.search_vector) w) t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term collate "C"
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
    where v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term collate "C";
  else
    -- The changed records (words, list or campaign): their old words out, their new words in. Two
    -- statements for search_terms (within one, an insert would not see the delete's work); the
    -- counters move once, in the second, by the old words removed and the new words added.
    delete from search_terms s
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
          join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
            on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
          unnest(o.search_vector) w
    where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id;
    delete from search_word_overlaps x
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
          join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
            on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector)
    where x.campaign_id = o.campaign_id and x.list = o.list and x.record_id = o.id;
    with changed as (
      select o.campaign_id as old_campaign, o.list as old_list, o.search_vector as old_vector,
             n.campaign_id, n.list, n.id, n.created_at, n.search_vector
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
           join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.created_at, t.search_vector from new_rows t) n
             on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector)
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select c.campaign_id, c.list, w.lexeme, c.id, c.created_at from changed c, unnest(c.search_vector) w on conflict do nothing
      returning campaign_id, list, term
    ), shared_pieces as (
      insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
      select c.campaign_id, c.list, c.id, o.terms, o.shared from changed c, search_word_overlap(c.search_vector) o
      where o.shared is not null
      on conflict do nothing
    ), moved as (
      select campaign_id, list, term, 1 as d from terms
      union all
      select c.old_campaign, c.old_list, w.lexeme, -1 from changed c, unnest(c.old_vector) w
    )
    insert into search_vocabulary as v (campaign_id, list, term, n)
    select campaign_id, list, term, sum(d)::int from moved group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term) do update set n = v.n + excluded.n;
    update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
    from (select o.campaign_id, o.list, w.lexeme as term
          from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
               join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
                 on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
               unnest(o.search_vector) w
          union
          select n.campaign_id, n.list, w.lexeme
          from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
               join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
                 on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
               unnest(n.search_vector) w) t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term collate "C"
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
    where v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term collate "C";
  end if;
  return null;
end $$;

-- The records already there.
insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end, c.id, o.terms, o.shared
from characters c, search_word_overlap(c.search_vector) o where o.shared is not null;
insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
select e.campaign_id, e.kind, e.id, o.terms, o.shared
from entities e, search_word_overlap(e.search_vector) o where o.shared is not null;

-- The page of (record, created_at) with the exact number of records, for one plain word (the
-- adapter sends only [a-z0-9]+). Planned once per connection, as 0026's: generic, campaign fenced
-- off the btrees where the trigram or GIN index must be the way in, sequential scans off.
drop function search_words_containing(text, text, text, int, int);
create function search_words_containing(p_campaign text, p_lists text, p_word text, p_size int, p_offset int)
returns table (record_id text, created_at timestamptz, total_count int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
declare
  v_like text := '%' || p_word || '%';
  v_lists text[] := string_to_array(p_lists, ',');
  v_need int := p_offset + p_size;
  v_pieces text[];
begin
  if length(p_word) < 3 then
    -- No 3-letter piece to find the overlaps by: every entry grouped and counted (0026's statement).
    return query
      select m.id, m.at, (count(*) over ())::int
      from (select s.record_id collate "C" as id, max(s.created_at) as at
            from search_vocabulary v join search_terms s on s.campaign_id = v.campaign_id and s.list = v.list and s.term = v.term
            where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like
            group by 1) m
      order by m.at desc, m.id desc limit p_size offset p_offset;
    return;
  end if;
  v_pieces := array(select distinct substr(p_word, i, 3) from generate_series(1, length(p_word) - 2) i);
  return query
    with w as materialized (
      -- The campaign's words that hold the query and some record holds: their record counts and newest records.
      select v.term, v.list, v.n, v.recent_ids, v.recent_at from search_vocabulary v
      where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like and v.n > 0
    ), total as materialized (
      -- Records that hold k > 1 of those words were counted k times.
      select (select sum(w.n) from w)::int - coalesce((
        select sum(m.k - 1) from (
          select (select count(*) from unnest(o.terms) t where t like v_like) as k
          from search_word_overlaps o
          where o.campaign_id || '' = p_campaign and o.list = any (v_lists) and o.shared @> v_pieces) m
        where m.k > 1), 0)::int as n
    ), first as (
      select r.record_id, r.created_at from w cross join lateral unnest(w.recent_ids, w.recent_at) r(record_id, created_at)
    ), cut as (
      -- The page's last record among those: no newer than the real one.
      select d.created_at from (select distinct f.record_id collate "C" as id, f.created_at from first f) d
      order by d.created_at desc, d.id desc offset v_need - 1 limit 1
    ), rest as (
      -- Words with more records than they keep whose oldest kept one is not older than that: read on.
      select s.record_id, s.created_at
      from w cross join lateral (
        select s.record_id, s.created_at from search_terms s
        where s.campaign_id = p_campaign and s.list = w.list and s.term = w.term collate "C"
          and s.created_at >= coalesce((select c.created_at from cut c), '-infinity')
        order by s.created_at desc, s.record_id collate "C" desc limit v_need) s
      where w.n > cardinality(w.recent_ids)
        and coalesce(w.recent_at[cardinality(w.recent_at)] >= (select c.created_at from cut c), true)
    )
    select p.id, p.at, (select t.n from total t)
    from (select e.record_id collate "C" as id, max(e.created_at) as at
          from (select f.record_id, f.created_at from first f union all select r.record_id, r.created_at from rest r) e
          group by 1) p
    order by p.at desc, p.id desc limit p_size offset p_offset;
end $$;
