-- Issue 15, lead, tenth session: a word's newest records merged from its slots in one place.
-- 0058 keeps search_vocabulary's newest records per slot and merges them on read; the merge (the 4
-- newest of the slots' lists, no id twice) was written out three times: twice in
-- search_words_containing (the ids, then the same subquery again for their times) and once in
-- search_counters_fold (0059). Now it is search_word_newest, called where a word has more than one
-- row. In search_words_containing it sits behind a lateral gate (`where g.k > 1`), so the usual
-- word (one row) neither calls it nor carries its two never-run subplans in the statement's plan;
-- the query's 3-letter pieces, which the overlap total looks up, are worked out once before the
-- statement. Same answers; measured neutral on a one-campaign 100k seed (docs/benchmarks.md).

-- The 4 newest records of a word over its rows (of p_slots only, when given), newest first.
create function search_word_newest(p_campaign text, p_list text, p_term text, p_slots int[] default null,
                                   out ids text[], out ats timestamptz[])
language plpgsql stable set plan_cache_mode = force_generic_plan set jit = off as $$
begin
  select coalesce(array_agg(d.i order by d.a desc, d.i collate "C" desc), '{}'),
         coalesce(array_agg(d.a order by d.a desc, d.i collate "C" desc), '{}')
    into ids, ats
  from (select x.i, x.a
        from (select distinct u.i, u.a from search_vocabulary y, unnest(y.recent_ids, y.recent_at) u(i, a)
              where y.campaign_id = p_campaign and y.list = p_list and y.term = p_term
                and (p_slots is null or y.slot = any (p_slots))) x
        order by x.a desc, x.i collate "C" desc limit 4) d;
end $$;

create or replace function search_words_containing(p_campaign text, p_lists text, p_word text, p_size int, p_offset int)
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
            from (select distinct v.campaign_id, v.list, v.term from search_vocabulary v
                  where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like) v
            join search_terms s on s.campaign_id = v.campaign_id and s.list = v.list and s.term = v.term
            group by 1) m
      order by m.at desc, m.id desc limit p_size offset p_offset;
    return;
  end if;
  v_pieces := array(select distinct substr(p_word, i, 3) from generate_series(1, length(p_word) - 2) i);
  return query
    with w as materialized (
      -- The campaign's words that hold the query and some record holds: their record counts (their
      -- slots summed) and newest records (a word in one slot, the usual case, as it is; else merged).
      select g.term, g.list, g.n,
             case when g.k = 1 then g.ids else m.ids end as recent_ids,
             case when g.k = 1 then g.ats else m.ats end as recent_at
      from (select v.term, v.list, sum(v.n)::int as n, count(*) as k, max(v.recent_ids) as ids, max(v.recent_at) as ats
            from search_vocabulary v
            where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like
            group by 1, 2 having sum(v.n) > 0) g
      left join lateral (select n.ids, n.ats from search_word_newest(p_campaign, g.list, g.term) n where g.k > 1 offset 0) m on true
    ), top as materialized (
      -- The page's end newest of the words' kept records.
      select w.recent_ids[k.k] collate "C" as id, max(w.recent_at[k.k]) as at
      from w cross join generate_series(1, 4) k(k)
      where k.k <= cardinality(w.recent_ids)
      group by 1 order by 2 desc, 1 desc limit v_need
    ), cut as materialized (
      -- The last of them when there are as many as the page's end: no newer than the real one.
      select case when count(*) = v_need then min(t.at) end as at from top t
    ), rest as (
      -- Words with more records than they keep whose oldest kept one is not older than that: read on.
      select s.record_id, s.created_at
      from w cross join lateral (
        select s.record_id, s.created_at from search_terms s
        where s.campaign_id = p_campaign and s.list = w.list and s.term = w.term collate "C"
          and s.created_at >= coalesce((select c.at from cut c), '-infinity')
        order by s.created_at desc, s.record_id collate "C" desc limit v_need) s
      where w.n > cardinality(w.recent_ids)
        and coalesce(w.recent_at[cardinality(w.recent_at)] >= (select c.at from cut c), true)
    )
    select p.id, p.at,
      -- Records that hold k > 1 of the words were counted k times.
      (select sum(w.n) from w)::int - coalesce((
        select sum(m.k - 1) from (
          select (select count(*) from unnest(o.terms) t where t like v_like) as k
          from search_word_overlaps o
          where o.campaign_id || '' = p_campaign and o.list = any (v_lists) and o.shared @> v_pieces) m
        where m.k > 1), 0)::int
    from (select e.id, max(e.at) as at
          from (select t.id, t.at from top t union all select r.record_id collate "C", r.created_at from rest r) e
          group by 1) p
    order by p.at desc, p.id desc limit p_size offset p_offset;
end $$;

-- 0059's fold, its merge of the locked slots' lists now search_word_newest's.
create or replace function search_counters_fold(p_keys int) returns int language plpgsql set jit = off as $$
declare
  k record;
  v_slots int[];
  v_n int;
  v_ids text[];
  v_ats timestamptz[];
  visited int := 0;
begin
  for k in select distinct v.campaign_id, v.list, v.term
           from (select y.campaign_id, y.list, y.term from search_vocabulary y where y.slot <> 0 limit p_keys) v
           order by 1, 2, 3 loop
    visited := visited + 1;
    select array_agg(l.slot order by l.slot), sum(l.n)::int into v_slots, v_n
    from (select y.slot, y.n from search_vocabulary y
          where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term
          for update skip locked) l;
    if v_slots is null or (cardinality(v_slots) = 1 and v_slots[1] = 0) then continue; end if;
    if cardinality(v_slots) = 1 then
      -- A key's only row outside slot 0 (a new word first written by a second writer): moved to
      -- slot 0 unless a writer is creating that row now (then a later pass merges the two).
      if exists (select 1 from search_vocabulary y where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = 0) then continue; end if;
      begin
        update search_vocabulary y set slot = 0 where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = v_slots[1];
      exception when unique_violation then null;
      end;
      continue;
    end if;
    select n.ids, n.ats into v_ids, v_ats from search_word_newest(k.campaign_id, k.list, k.term, v_slots) n;
    update search_vocabulary y set n = v_n, recent_ids = v_ids, recent_at = v_ats
    where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = v_slots[1];
    delete from search_vocabulary y
    where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = any (v_slots[2:]);
  end loop;

  for k in select distinct p.campaign_id, p.list, p.prefix, p.type
           from (select y.campaign_id, y.list, y.prefix, y.type from search_prefix_counts y where y.slot <> 0 limit p_keys) p
           order by 1, 2, 3, 4 loop
    visited := visited + 1;
    select array_agg(l.slot order by l.slot), sum(l.n)::int into v_slots, v_n
    from (select y.slot, y.n from search_prefix_counts y
          where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type
          for update skip locked) l;
    if v_slots is null or (cardinality(v_slots) = 1 and v_slots[1] = 0) then continue; end if;
    if cardinality(v_slots) = 1 then
      if exists (select 1 from search_prefix_counts y where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = 0) then continue; end if;
      begin
        update search_prefix_counts y set slot = 0 where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = v_slots[1];
      exception when unique_violation then null;
      end;
      continue;
    end if;
    -- A key whose records are gone keeps no row (0058's rule for a slot at 0).
    if v_n = 0 then
      delete from search_prefix_counts y
      where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = any (v_slots);
      continue;
    end if;
    update search_prefix_counts y set n = v_n
    where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = v_slots[1];
    delete from search_prefix_counts y
    where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = any (v_slots[2:]);
  end loop;
  return visited;
end $$;
