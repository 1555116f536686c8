-- Cross-type search's per-request cost (issue 15). The same candidates as search_candidates
-- (migration 0022: the 40-document sample per type, titles by prefix, the 800-document probe of a
-- common type, the text index for the others), ranked in the same statement, so a request is one
-- function call that answers only the page: at most p_per hits per type with their title and body.
-- Measured on the 10k bench (docs/benchmarks.md, "Issue 15 — cross-type search per-request cost"):
--   * plan_cache_mode = force_generic_plan: PL/pgSQL plans each statement once per connection, but
--     the plan cache kept choosing custom plans (the generic one costs `unnest` of an array
--     parameter at 10 rows), so every call planned three statements: about half of a name
--     search's backend CPU. The plans must then hold for every campaign: the text-index branches
--     are fenced off the btrees (`|| ''`, as before), and the sample and probe compare the type in
--     the "C" collation, which only the new index below serves. With the plain `doc_type = …` a
--     generic plan could take the primary key (doc_type, doc_id) and filter the campaign: with
--     statistics from a server with one campaign (campaign selectivity 1), a second, small
--     campaign's search would walk every document of the type (tried: the 10k bench's database
--     chose the primary key). The new index replaces search_documents_by_campaign_id (0022), which
--     only these statements read; its leading campaign_id still serves the cascade from campaigns.
--   * Ranking inside: search_candidates returned every candidate (up to 400 per type) with body
--     and tsvector through a tuplestore, and the caller sorted them twice more; now only the
--     candidates' keys and vectors are ranked and the page's rows are read by primary key.
-- The rank is ts_rank over title prefixes or stemmed body words, as before; ties by doc_id.
-- Sorts are off as in 0027_search_sample_order (without statistics the planner read a type's
-- documents through a bitmap and sorted them for 40): the sample and probe are ordered index scans;
-- the ranking's sorts (a few hundred candidates) have no other plan and stay. Their cost then
-- carries the "disabled" penalty (10^10), far over jit_above_cost: PostgreSQL compiled the statement
-- with LLVM on every call (1.3 s, tried), so JIT is off here too (PGlite has none).
create index search_documents_by_campaign_type on search_documents (campaign_id, doc_type collate "C", doc_id);
drop index search_documents_by_campaign_id;

create function search_ranked(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int, p_per int)
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
      cross join lateral (
        select d.doc_type, d.doc_id, d.search_vector
        from (select * from search_documents s where s.campaign_id = p_campaign and s.doc_type collate "C" = k.kind order by s.doc_id limit 4 * p_n) d
        where d.search_vector @@ p_body and search_visible(d.facets, p_viewer)
        limit p_n) t
    ), asked as (
      select k.kind from unnest(present) as k(kind) where k.kind <> all (common)
      union all
      select k.kind from unnest(common) as k(kind) where (select count(*) from probed p where p.doc_type = k.kind) * 4 < p_n
    ), candidates as (
      select t.doc_type, t.doc_id, t.search_vector
      from unnest(present) as k(kind)
      cross join lateral (
        select d.doc_type, d.doc_id, d.search_vector from search_documents d
        where d.campaign_id || '' = p_campaign and d.doc_type || '' = k.kind and to_tsvector('simple', d.title) @@ p_title
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

drop function search_candidates(text, text, tsquery, tsquery, text, int);
