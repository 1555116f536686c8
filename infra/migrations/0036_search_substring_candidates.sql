-- List search's substring step (search_words_containing, 0031) with fewer passes over its candidates
-- (issue 15). Same page, same total; what changed is how the statement handles the matched words'
-- kept records (4 per word: 164 rows for `exqua` at 100k per kind, 66 at 10k), which was most of its
-- time and what grew with the campaign (backend CPU per call 390 µs at 100k, 215 at 10k):
--   * the kept records come from the word rows by subscript (a join to a constant 1..4) instead of a
--     lateral two-array unnest per word: a set-returning function per row cost ~2 µs a word;
--   * they are grouped and cut to the page's end once (`top`), and the cut and the final page read
--     that instead of every candidate again: a record past the page's end among the candidates stays
--     past it when more records are added (the words read on);
--   * the query's 3-letter pieces are an expression of the statement, not a statement of their own.
-- At 100k per kind 390 -> 250 µs a call, at 10k 215 -> 175 (docs/benchmarks.md).
create or replace function search_words_containing(p_campaign text, p_lists text, p_word text, p_size int, p_offset int)
returns table (record_id text, created_at timestamptz, total_count int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
declare
  v_like text := '%' || p_word || '%';
  v_lists text[] := string_to_array(p_lists, ',');
  v_need int := p_offset + p_size;
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
  return query
    with w as materialized (
      -- The campaign's words that hold the query and some record holds: their record counts and newest records.
      select v.term, v.list, v.n, v.recent_ids, v.recent_at from search_vocabulary v
      where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like and v.n > 0
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
          where o.campaign_id || '' = p_campaign and o.list = any (v_lists)
            and o.shared @> array(select distinct substr(p_word, i, 3) from generate_series(1, length(p_word) - 2) i)) m
        where m.k > 1), 0)::int
    from (select e.id, max(e.at) as at
          from (select t.id, t.at from top t union all select r.record_id collate "C", r.created_at from rest r) e
          group by 1) p
    order by p.at desc, p.id desc limit p_size offset p_offset;
end $$;
