-- List search's similar-names step from the campaign's vocabulary (issue 15). `q <% search_text` on
-- the trigram index read the posting lists of the query's trigrams, which grow with the campaign
-- (bench names: every trigram is common; 4.7 ms of PostgreSQL CPU per typo search at 100k). Now:
-- the words of the list's vocabulary (search_vocabulary, 0025: it stops growing once a campaign's
-- words repeat) nearest to each query word, their records from search_terms (index-only), each
-- record scored by the sum over query words of its nearest word's similarity, and only the best
-- `p_limit` records (newest first among equal scores) are checked with `<%` and ranked
-- (search_similar_names; adapters/sql/search.ts falls back to the full `<%` when none pass).
--
-- A query word's neighbours: at most `p_near` distinct words of trigram similarity >= 0.4 (the `%`
-- operator on the vocabulary's trigram index), most similar first. 0.4 keeps two letters swapped
-- in a word of 6 or more letters ((n - 2) / (n + 4)); at pg_trgm's default 0.3 the index let
-- through ~1,000 words per query word at 100k, each rechecked (1.5 ms a word; 0.4: ~170-400).
-- A query word that is a word of the lists stands for itself (a primary key lookup): the correctly
-- spelt words of a typo query cost no trigram search, and only their own records are read.
-- Generic plan, campaign fenced and sequential scans off (as search_words_containing, 0026): the
-- vocabulary's trigram index is the only way in, then the terms' primary key by exact word.
-- A query word's neighbours in the lists' vocabulary. Bitmap scans on here whatever the caller's
-- settings (a trigram GIN index is read only by bitmap): without, the generic plan filtered the
-- whole vocabulary's primary key (216,000 entries at 100k, 470 ms a word).
create function search_near_words(p_campaign text, p_lists text, p_words text[], p_near int)
returns table (i int, term text, sim real)
language plpgsql stable rows 16
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set jit = off set pg_trgm.similarity_threshold = 0.4 as $$
begin
  return query
    select w.i::int, n.term::text, n.sim
    from unnest(p_words) with ordinality w(word, i)
    cross join lateral (
      select w.word collate "C" as term, 1::real as sim
      where exists (select from search_vocabulary v where v.campaign_id = p_campaign and v.list = any (string_to_array(p_lists, ',')) and v.term = w.word collate "C")
      union all
      (select v.term, max(similarity(v.term, w.word))
       from search_vocabulary v
       where not exists (select from search_vocabulary x where x.campaign_id = p_campaign and x.list = any (string_to_array(p_lists, ',')) and x.term = w.word collate "C")
         and v.campaign_id || '' = p_campaign and v.list = any (string_to_array(p_lists, ',')) and v.term % w.word
       group by v.term order by 2 desc, 1 limit p_near)) n;
end $$;

create function search_similar_records(p_campaign text, p_lists text, p_words text[], p_near int, p_limit int)
returns table (record_id text, score real)
language plpgsql stable rows 50
set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
begin
  return query
    with hits as (
      select s.record_id collate "C" as id, n.i, max(n.sim) as sim, max(s.created_at) as at
      from search_near_words(p_campaign, p_lists, p_words, p_near) n
      join search_terms s on s.campaign_id = p_campaign and s.list = any (string_to_array(p_lists, ',')) and s.term = n.term collate "C"
      group by 1, 2)
    select h.id::text, sum(h.sim)::real from hits h group by h.id order by 2 desc, max(h.at) desc, 1 desc limit p_limit;
end $$;

-- The candidates of search_similar_records that pass `<%` against their list's text, with their
-- score and word similarity (the caller ranks and pages them). Index scans only: each candidate is
-- read by primary key. A statement of the caller's planned per call hashed a sequential scan of the
-- table (small tables) or could take the text's trigram index — the read this step replaces.
create function search_similar_names(p_table text, p_campaign text, p_lists text, p_words text[], p_query text, p_near int, p_limit int)
returns table (record_id text, created_at timestamptz, score real, similarity real)
language plpgsql stable rows 50
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set enable_hashjoin = off set enable_mergejoin = off set jit = off as $$
begin
  if p_table = 'characters' then
    return query
      select c.id, c.created_at, t.score, word_similarity(p_query, c.search_text)
      from search_similar_records(p_campaign, p_lists, p_words, p_near, p_limit) t join characters c on c.id = t.record_id
      where c.campaign_id || '' = p_campaign and p_query <% c.search_text;
  else
    return query
      select e.id, e.created_at, t.score, word_similarity(p_query, e.search_text)
      from search_similar_records(p_campaign, p_lists, p_words, p_near, p_limit) t join entities e on e.id = t.record_id
      where e.campaign_id || '' = p_campaign and p_query <% e.search_text;
  end if;
end $$;
