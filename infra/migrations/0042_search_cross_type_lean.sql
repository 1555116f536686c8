-- search_cross_type (0042_search_cross_type) with the title vocabulary's check inline and one setting
-- (plans kept generic) instead of three: every query that reaches the full-text stage made two more
-- PL/pgSQL calls than before 0042 and saved and restored six settings. Measured at 10k, one connection,
-- backend CPU per call, four rounds of 3,000 (docs/benchmarks.md): name 0.278 ms before 0042, 0.344 with it,
-- 0.313 with this; "Vexqualia Radr" 0.269, 0.312, 0.301. Without any setting the wrapper's
-- plans were custom, planned on every call (name 0.34 -> 0.39 ms). The statements it runs are the same;
-- each called function keeps its own settings, and the check's anti-join reads the vocabulary's primary
-- key by range (a nested loop over the query's words, at most 16).
drop function search_title_prefixes_known(text, text[], text[]);

create or replace function search_cross_type(
  p_campaign text, p_types text, p_query text, p_title tsquery, p_words text[], p_ends text[], p_plain boolean,
  p_gated boolean, p_suffix_end text, p_like text, p_viewer text, p_per int, p_n int, p_near int)
returns table (doc_type text, doc_id text, title text, body text, rank real, score double precision)
language plpgsql stable set plan_cache_mode = force_generic_plan as $$
begin
  if p_title is not null then
    return query select r.doc_type, r.doc_id, r.title, r.body, r.score, null::double precision
      from search_ranked(p_campaign, p_types, p_title, websearch_to_tsquery('english', p_query), p_viewer, p_n, p_per,
                         not p_plain or not exists (
                           select from unnest(p_words, p_ends) w(word, high)
                           where not exists (
                             select from search_title_vocabulary v
                             where v.campaign_id = p_campaign and v.term >= w.word collate "C" and v.term < w.high collate "C"))) r;
    if found then return; end if;
  end if;
  if cardinality(p_words) > 0 then
    -- Titles holding the query (score 1 + word similarity), then similar titles from the title
    -- vocabulary (0030, 0035; twice p_per candidates per type), ranked as the adapter ranked them.
    return query
      select r.doc_type, r.doc_id, r.title, r.body, null::real, r.score
      from (
        select d.*, row_number() over (partition by d.doc_type order by d.score desc, d.similarity desc, d.doc_id) as position
        from (
          select c.doc_type, c.doc_id, c.title, c.body, 1 + word_similarity(p_query, c.title) as score, 0 as similarity
          from search_titles_containing(p_campaign, p_types, p_like, p_viewer) c
          where not p_gated or search_title_words_known(p_campaign, p_words, p_ends, p_suffix_end)
          union all
          select t.doc_type, t.doc_id, t.title, t.body, t.near, word_similarity(p_query, t.title)
          from search_similar_titles(p_campaign, p_types, p_query, p_words, p_like, p_viewer, p_near, p_per * 2) t
        ) d
      ) r
      where r.position <= p_per order by r.doc_type, r.position;
    if found then return; end if;
  end if;
  -- Nothing near in the vocabulary: every title by word similarity (search_similar, 0021/0026).
  return query
    select r.doc_type, r.doc_id, r.title, r.body, null::real, r.score
    from (
      select d.doc_type, d.doc_id, d.title, d.body, s.score,
             row_number() over (partition by d.doc_type order by s.score desc, d.doc_id) as position
      from search_similar(p_campaign, p_types, p_query, p_like, p_viewer) d
      cross join lateral (select (d.title ilike p_like)::int + word_similarity(p_query, d.title) as score) s
    ) r
    where r.position <= p_per order by r.doc_type, r.position;
end $$;
