-- Cross-type search in one call, and the full-text stage's title scans skipped when the title
-- vocabulary shows no title can match (issue 15). A misspelt name ("Vexqaulia Radra") ran
-- search_ranked (0032) to find nothing — its title stage asks the title index with every query
-- word's prefix, which gathers every posting of every title word a prefix starts before the words
-- are intersected ("radra:*": 1,028 titles at 100k, 0.19 ms under EXPLAIN against 0.02 at 10k), so
-- it grew with the campaign — and then the adapter sent a second statement for the similar titles.
-- Now the adapter sends one call, search_cross_type, which runs the same stages in the same order,
-- each only when the one before returned nothing, with the same statements: the same answer.
--
-- A title matches the full-text stage's title query (p_title: every query word as a prefix) only
-- if every query word starts one of its words. For plain words (p_plain: the caller's query words,
-- all [a-z0-9]+, the words p_title is made of; to_tsvector('simple') keeps such words whole) that is
-- impossible when a word starts no word of the campaign's title vocabulary (search_title_vocabulary,
-- 0030: every word its titles ever held, never pruned, so it never says no wrongly) — a range of its
-- primary key per word, stopping at the first word it does not know. Then search_ranked runs without
-- its title scans (p_titled false); its body stages run as before. Tried first and not kept: skipping
-- search_ranked whole when no document matches the body query either (asked of the text index once
-- for all types) — a word in a quarter of the bodies and in no title ("wayfarer") then built a bitmap
-- of its 50,000 postings at 100k (PG CPU per call 0.6-0.9 -> 4.8-5.2 ms), which search_ranked's probe
-- of common words exists to avoid. Scores: search_ranked's are real and the similarity stages' double
-- precision, returned in two columns (rank, score) so the client reads each exactly as before.

-- search_ranked (0032) with the title scans made only when p_titled; the same statements otherwise.
drop function search_ranked(text, text, tsquery, tsquery, text, int, int);
create function search_ranked(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int, p_per int, p_titled boolean)
returns table (doc_type text, doc_id text, title text, body text, score real)
language plpgsql stable set enable_seqscan = off set enable_sort = off set jit = off set plan_cache_mode = force_generic_plan as $$
declare
  present text[];
  common text[];
  -- Once per call: in a generic plan `p_title || p_body` would be computed for every candidate.
  p_rank tsquery := p_title || p_body;
begin
  -- Per type: has the campaign any document of it, and how many of its first 40 hold the words.
  select coalesce(array_agg(s.kind), '{}'), coalesce(array_agg(s.kind) filter (where s.hits * 8 >= s.seen and s.seen >= 40), '{}')
    into present, common
  from (
    select k.kind, count(x.*) as seen, count(x.*) filter (where x.search_vector @@ p_body) as hits
    from unnest(string_to_array(p_types, ',')) as k(kind)
    cross join lateral (select s.search_vector from search_documents s where s.campaign_id = p_campaign and s.doc_type collate "C" = k.kind order by s.doc_id limit 40) x
    group by k.kind
  ) s;

  -- Candidates as in search_candidates (0022): titles by prefix, at most p_n per type; common
  -- words from the first p_n matches among 4 × p_n documents in index order; every other type (and
  -- a common one whose probe found under a quarter of its quota) from the text index.
  return query
    with probed as materialized (
      select t.doc_type, t.doc_id, t.search_vector
      from unnest(common) as k(kind)
      -- A type of more than 4 × p_n records keeps the first p_n / 4 hits: see the header.
      cross join lateral (select coalesce((select c.n from record_counts c where c.campaign_id = p_campaign and c.kind = k.kind), 0) > 4 * p_n as big) b
      cross join lateral (
        select d.doc_type, d.doc_id, d.search_vector
        from (select * from search_documents s where s.campaign_id = p_campaign and s.doc_type collate "C" = k.kind order by s.doc_id limit 4 * p_n) d
        where d.search_vector @@ p_body and search_visible(d.facets, p_viewer)
        limit case when b.big then p_n / 4 else p_n end) t
    ), asked as (
      select k.kind from unnest(present) as k(kind) where k.kind <> all (common)
      union all
      select k.kind from unnest(common) as k(kind) where (select count(*) from probed p where p.doc_type = k.kind) * 4 < p_n
    ), titled as materialized (
      -- Every present type's title matches in one scan, while they are at most p_n in all. Not
      -- asked when the caller knows no title can match (p_titled false; then the per-type scans
      -- below are not made either: no title matched).
      select d.doc_type, d.doc_id, d.search_vector from search_documents d
      where p_titled and d.campaign_id || '' = p_campaign and d.doc_type || '' = any (present) and to_tsvector('simple', d.title) @@ p_title
        and search_visible(d.facets, p_viewer)
      limit p_n + 1
    ), candidates as (
      select t.doc_type, t.doc_id, t.search_vector from titled t where (select count(*) from titled) <= p_n
      union all
      -- More: each type's first p_n, as before.
      select t.doc_type, t.doc_id, t.search_vector
      from unnest(present) as k(kind)
      cross join lateral (
        select d.doc_type, d.doc_id, d.search_vector from search_documents d
        where (select count(*) from titled) > p_n and d.campaign_id || '' = p_campaign and d.doc_type || '' = k.kind and to_tsvector('simple', d.title) @@ p_title
          and search_visible(d.facets, p_viewer)
        limit p_n) t
      union all
      select p.doc_type, p.doc_id, p.search_vector from probed p
      union all
      select t.doc_type, t.doc_id, t.search_vector
      from asked a
      cross join lateral (
        select d.doc_type, d.doc_id, d.search_vector from search_documents d
        where d.campaign_id || '' = p_campaign and d.doc_type || '' = a.kind and d.search_vector @@ p_body
          and search_visible(d.facets, p_viewer)
        limit p_n) t
    ), ranked as (
      select c.doc_type, c.doc_id, r.score,
             row_number() over (partition by c.doc_type order by r.score desc, c.doc_id) as position
      from (select distinct on (c.doc_type, c.doc_id) c.* from candidates c) c
      cross join lateral (select ts_rank(c.search_vector, p_rank) as score) r
    )
    select d.doc_type, d.doc_id, d.title, d.body, r.score
    from ranked r join search_documents d on d.doc_type = r.doc_type and d.doc_id = r.doc_id
    where r.position <= p_per
    order by r.doc_type, r.position;
end $$;

-- Whether every word starts a word of the campaign's titles (p_ends: the first string after every
-- string with that start, from the caller), as search_title_words_known does for its other words.
create function search_title_prefixes_known(p_campaign text, p_words text[], p_ends text[])
returns boolean
language plpgsql stable
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
begin
  return not exists (
    select from unnest(p_words, p_ends) w(word, high)
    where not exists (
      select from search_title_vocabulary v
      where v.campaign_id = p_campaign and v.term >= w.word collate "C" and v.term < w.high collate "C"));
end $$;

create function search_cross_type(
  p_campaign text, p_types text, p_query text, p_title tsquery, p_words text[], p_ends text[], p_plain boolean,
  p_gated boolean, p_suffix_end text, p_like text, p_viewer text, p_per int, p_n int, p_near int)
returns table (doc_type text, doc_id text, title text, body text, rank real, score double precision)
language plpgsql stable set plan_cache_mode = force_generic_plan set jit = off as $$
begin
  if p_title is not null then
    return query select r.doc_type, r.doc_id, r.title, r.body, r.score, null::double precision
      from search_ranked(p_campaign, p_types, p_title, websearch_to_tsquery('english', p_query), p_viewer, p_n, p_per,
                         not p_plain or search_title_prefixes_known(p_campaign, p_words, p_ends)) r;
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
