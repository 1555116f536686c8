-- Cross-type search's similar titles as list search's similar names (0035_search_word_variants): each
-- query word's near title words by deletion variants (the word itself when a title holds it; else the
-- words within one edit; only when none, its trigram neighbours as in 0030), then, when every query
-- word has near words and one of them is held by at most 256 documents of the requested types, only
-- those documents are candidates, each kept when it also holds a near word of every other query word
-- (a primary-key probe of search_title_terms per word): "radra" (~600 titles at 100k) is probed, not
-- read and scored. Otherwise, or when none of those passes, every document of every near word, as
-- in 0030. Same scores (mean over query words of the best near word's similarity), same checks.

-- Each query word's near words in the title vocabulary (search_title_vocabulary holds no counts).
create function search_near_title_forms(p_campaign text, p_words text[], p_near int)
returns table (i int, term text, sim real)
language plpgsql stable rows 16
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
declare
  w text;
  dels text[];
  k int := 0;
begin
  foreach w in array p_words loop
    k := k + 1;
    return query
      select k, w, 1::real where exists (select from search_title_vocabulary v where v.campaign_id = p_campaign and v.term = w collate "C");
    if found then continue; end if;
    dels := search_word_deletions(w);
    return query
      select k, t.term::text, similarity(t.term, w)
      from (select x.term from search_word_variants x where x.campaign_id = p_campaign and x.variant = any ((w || dels) collate "C")
            union select d collate "C" from unnest(dels) d) t
      where exists (select from search_title_vocabulary v where v.campaign_id = p_campaign and v.term = t.term)
      order by 3 desc, 2 limit p_near;
    if found then continue; end if;
    -- 0030's trigram lookup (bitmap scans on in its own settings).
    return query select k, t.term, t.sim from search_near_titles(p_campaign, array[w], p_near) t;
  end loop;
end $$;

create or replace function search_similar_titles(p_campaign text, p_types text, p_query text, p_words text[], p_like text, p_viewer text, p_near int, p_limit int)
returns table (doc_type text, doc_id text, title text, body text, near real)
language plpgsql stable rows 50
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set enable_hashjoin = off set enable_mergejoin = off
set jit = off as $$
declare
  types text[] := string_to_array(p_types, ',');
  fi int[];
  ft text[];
  fs real[];
  words int;
  driver int;
  fewest int := 257;
  held int;
begin
  select array_agg(f.i), array_agg(f.term), array_agg(f.sim) into fi, ft, fs from search_near_title_forms(p_campaign, p_words, p_near) f;
  if fi is null then return; end if;
  select count(distinct x) into words from unnest(fi) x;
  if words > 1 and words = cardinality(p_words) then
    -- The query word whose near words' documents are fewest, each counted only up to the fewest so far.
    for k in 1 .. words loop
      select count(*) into held from (
        select from unnest(fi, ft) f(i, term)
        join search_title_terms s on s.campaign_id = p_campaign and s.term = f.term collate "C" and s.doc_type = any (types)
        where f.i = k limit fewest) x;
      if held < fewest then fewest := held; driver := k; end if;
    end loop;
    if driver is not null then
      return query
        with f as (select * from unnest(fi, ft, fs) f(i, term, sim)),
        d as (
          select s.doc_type, s.doc_id, max(f.sim) as sim
          from f join search_title_terms s on s.campaign_id = p_campaign and s.term = f.term collate "C" and s.doc_type = any (types)
          where f.i = driver group by 1, 2),
        scored as (
          select d.doc_type, d.doc_id, d.sim + o.sim as score,
                 row_number() over (partition by d.doc_type order by d.sim + o.sim desc, d.doc_id collate "C" desc) as position
          from d cross join lateral (
            select sum(x.sim) as sim, count(*) as held from (
              select f.i, max(f.sim) as sim from f
              where f.i <> driver
                and exists (select from search_title_terms s where s.campaign_id = p_campaign and s.term = f.term collate "C" and s.doc_type = d.doc_type and s.doc_id = d.doc_id)
              group by f.i) x) o
          where o.held = words - 1)
        select d.doc_type, d.doc_id, d.title, d.body, (c.score / cardinality(p_words))::real
        from scored c join search_documents d on d.doc_type = c.doc_type and d.doc_id = c.doc_id
        where c.position <= p_limit and d.campaign_id || '' = p_campaign
          and p_query <% d.title and not d.title ilike p_like and search_visible(d.facets, p_viewer);
      if found then return; end if;
    end if;
  end if;
  return query
    with hits as (
      select s.doc_type, s.doc_id, f.i, max(f.sim) as sim
      from unnest(fi, ft, fs) f(i, term, sim)
      join search_title_terms s on s.campaign_id = p_campaign and s.term = f.term collate "C" and s.doc_type = any (types)
      group by 1, 2, 3
    ), scored as (
      select h.doc_type, h.doc_id, (sum(h.sim) / cardinality(p_words))::real as near,
             row_number() over (partition by h.doc_type order by sum(h.sim) desc, h.doc_id collate "C" desc) as position
      from hits h group by 1, 2)
    select d.doc_type, d.doc_id, d.title, d.body, c.near
    from scored c join search_documents d on d.doc_type = c.doc_type and d.doc_id = c.doc_id
    where c.position <= p_limit and d.campaign_id || '' = p_campaign
      and p_query <% d.title and not d.title ilike p_like and search_visible(d.facets, p_viewer);
end $$;

-- Whether a title can hold the query's words in a row (the fallback's other half, `title ilike`, read
-- the title trigram index: posting lists of common trigrams that grow with the campaign): the first
-- word ends a title word, every other starts one (title words are to_tsvector('simple', title)'s).
-- Ranges of the title vocabulary's primary key and of its words reversed (p_ends, p_suffix_end: the
-- first string after every string with that start, from the caller). As search_words_known (lists).
create index search_title_vocabulary_reversed on search_title_vocabulary (campaign_id, (reverse(term)) collate "C");

create function search_title_words_known(p_campaign text, p_words text[], p_ends text[], p_suffix_end text)
returns boolean
language plpgsql stable
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
begin
  if not exists (
    select from search_title_vocabulary v
    where v.campaign_id = p_campaign
      and reverse(v.term) collate "C" >= reverse(p_words[1]) collate "C" and reverse(v.term) collate "C" < p_suffix_end collate "C") then
    return false;
  end if;
  return not exists (
    select from unnest(p_words, p_ends) with ordinality w(word, high, i)
    where w.i > 1 and not exists (
      select from search_title_vocabulary v
      where v.campaign_id = p_campaign and v.term >= w.word collate "C" and v.term < w.high collate "C"));
end $$;
