-- Cross-type search's title stage once, not once per type (issue 15). The title index is asked with
-- the query's word prefixes, and a prefix gathers every posting of every word it starts before the
-- words are intersected (`radra:*` in a full name: 21 words, 1,028 titles at 100k; 13 µs of CPU at
-- 10k, 117 µs at 100k), and that was repeated for each type the campaign has (two in the bench, up to
-- nine), each scan filtering its type from the same bitmap. Now one scan takes the title matches of
-- every present type, up to p_n + 1 rows; when they are at most p_n in all, every type's matches are
-- all there, which is what each type's own scan (limited to p_n) found. Only when there are more are
-- the per-type scans made, as before (then one scan more than before, stopped after p_n + 1 rows).
-- Same candidates, same rank, same answer.

create or replace function search_ranked(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int, p_per int)
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
      -- Every present type's title matches in one scan, while they are at most p_n in all.
      select d.doc_type, d.doc_id, d.search_vector from search_documents d
      where d.campaign_id || '' = p_campaign and d.doc_type || '' = any (present) and to_tsvector('simple', d.title) @@ p_title
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
