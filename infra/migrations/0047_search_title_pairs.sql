-- Cross-type search's title stage bounded by its matches (issue 15). search_ranked's title scan
-- (0032, 0042) asks the title index for every query word as a prefix ("vexqualia:* & radra:*"):
-- GIN gathers every posting of every title word each prefix starts, in every campaign, before
-- intersecting them — one matching title, but the postings of ~21 "radra…" words, ten times as many
-- at 100k per kind as at 10k. The name and misspelled-name searches grew with the campaign by it.
--
-- Now the titles' words are also indexed in pairs, as 0041 does for the lists' records:
-- search_word_pairs(to_tsvector('simple', title)) holds 'x y' for every two distinct words of the
-- title (' +' for a title of more than 24 words or with a word over 100 bytes). For two or more plain
-- query words, the title vocabulary's words (0030: every word the campaign's titles ever held) that
-- start the query word starting the fewest of them (A), each with another query word (B) as a prefix
-- ('a1 B':* | … | ' +'), find the titles holding a word starting with A and another starting with B
-- — then checked against the whole title query as before. Same titles: a title matching the query
-- holds some x starting with A (a vocabulary word) and some other word starting with B, unless one
-- of A and B starts the other (those queries keep the title index, as do one word, a word starting
-- more than 64 vocabulary words, and queries not of plain words). The vocabulary's ranges are the
-- ones the wrapper already read to tell whether any title can match (0042), now read to one more
-- than the fewest so far instead of stopping at the first word.
--
-- fastupdate off: every lookup would otherwise also read the pending list until a VACUUM (the lists'
-- pairs indexes of 0041 had 6-7 pending pages on a campaign written through the API).
create index search_documents_title_pairs on search_documents using gin (search_word_pairs(to_tsvector('simple', title))) with (fastupdate = off);

-- search_ranked (0042) with the title stage's first scan from the pairs when p_pairs is given; the
-- same statements otherwise (p_pairs null: 0042's function).
drop function search_ranked(text, text, tsquery, tsquery, text, int, int, boolean);
create function search_ranked(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int, p_per int, p_titled boolean, p_pairs tsquery)
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
      -- A type of more than 4 × p_n records keeps the first p_n / 4 hits: see 0032_search_probe_quota.
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
      -- below are not made either: no title matched). With p_pairs, the titles holding a pair of
      -- the query's words are the way in (the title index fenced off), then the title query.
      select d.doc_type, d.doc_id, d.search_vector from search_documents d
      where p_titled and p_pairs is null and d.campaign_id || '' = p_campaign and d.doc_type || '' = any (present) and to_tsvector('simple', d.title) @@ p_title
        and search_visible(d.facets, p_viewer)
      union all
      select d.doc_type, d.doc_id, d.search_vector from search_documents d
      where p_titled and p_pairs is not null and search_word_pairs(to_tsvector('simple', d.title)) @@ p_pairs
        and d.campaign_id || '' = p_campaign and d.doc_type || '' = any (present) and (to_tsvector('simple', d.title) || ''::tsvector) @@ p_title
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

-- search_cross_type (0042_search_cross_type_lean) with the title check also building the pairs
-- lookup: per query word, the title vocabulary's words it starts (read to 65). A word starting none
-- means no title matches (p_titled false, as before); otherwise the lookup as in the header.
create or replace function search_cross_type(
  p_campaign text, p_types text, p_query text, p_title tsquery, p_words text[], p_ends text[], p_plain boolean,
  p_gated boolean, p_suffix_end text, p_like text, p_viewer text, p_per int, p_n int, p_near int)
returns table (doc_type text, doc_id text, title text, body text, rank real, score double precision)
language plpgsql stable set plan_cache_mode = force_generic_plan as $$
declare
  titled boolean := true;
  terms text[];
  a text[];
  a_word text;
  b text;
  pairs tsquery;
begin
  if p_title is not null then
    if p_plain then
      -- Per word, the title words it starts, read to one more than the fewest so far (65 at first):
      -- the word starting the fewest is A, with its words; another is B. None: no title can match.
      for i in 1 .. cardinality(p_words) loop
        terms := array(select v.term::text from search_title_vocabulary v
                       where v.campaign_id = p_campaign and v.term >= p_words[i] collate "C" and v.term < p_ends[i] collate "C"
                       limit least(coalesce(cardinality(a), 64), 64) + 1);
        if cardinality(terms) = 0 then titled := false; exit; end if;
        if a is null or cardinality(terms) < cardinality(a) then
          b := coalesce(a_word, b);
          a := terms;
          a_word := p_words[i];
        elsif b is null then
          b := p_words[i];
        end if;
      end loop;
      if titled and b is not null and cardinality(a) <= 64 and not starts_with(a_word, b) and not starts_with(b, a_word) then
        pairs := (array_to_string(array(select '''' || replace(replace(t || ' ' || b, '\', '\\'), '''', '''''') || ''':*' from unnest(a) t), ' | ') || ' | '' +''')::tsquery;
      end if;
    end if;
    return query select r.doc_type, r.doc_id, r.title, r.body, r.score, null::double precision
      from search_ranked(p_campaign, p_types, p_title, websearch_to_tsquery('english', p_query), p_viewer, p_n, p_per, titled, pairs) r;
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
