-- Cross-type search's first stage without the per-type fixed cost (issue 15). 0015_search_candidates
-- ran up to three statements per document type and probed 800 documents of every type that had any:
-- about 7,200 rows read for a name or a rare word that the text index answers from a few postings.
-- Now: one statement samples 40 documents of each type (and skips the types the campaign has none
-- of); only a type where the sample says the word is common (≥ 1 in 8; at 1 in 4, 800 documents
-- fill a quota of 200) gets the 800-document probe; every other type asks the text index, in one
-- statement for all types. A common word so never builds its whole bitmap (the reason for the
-- probe), a rare one never pays for a probe. The sample and the probe read the type's documents in
-- the order of a new index (campaign, type, id): with the order in the query, no plan reads the
-- whole type first (a bitmap of it was built for a LIMIT 40 before, 100,000 entries at 100k).
--
-- The text-index statements are fenced (`campaign_id || ''`, `doc_type || ''`): with a small LIMIT
-- the planner otherwise walked the campaign's btree (or the primary key's doc_type) in order and
-- tested every document of the type (700 ms at 100k with 50 candidates), or intersected the few
-- text hits with a bitmap of the whole campaign. With campaign and type out of reach of every
-- btree, the text index is the only way in, whatever the LIMIT and the statistics.
create index search_documents_by_campaign_id on search_documents (campaign_id, doc_type, doc_id);
drop index search_documents_by_campaign;

create or replace function search_candidates(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int)
returns table (doc_type text, doc_id text, title text, body text, search_vector tsvector)
language plpgsql stable set enable_seqscan = off as $$
declare
  present text[];
  common text[];
begin
  -- Per type: has the campaign any document of it, and how many of its first 40 hold the words.
  select coalesce(array_agg(s.kind), '{}'), coalesce(array_agg(s.kind) filter (where s.hits * 8 >= s.seen and s.seen >= 40), '{}')
    into present, common
  from (
    select k.kind, count(x.*) as seen, count(x.*) filter (where x.search_vector @@ p_body) as hits
    from unnest(string_to_array(p_types, ',')) as k(kind)
    cross join lateral (select s.search_vector from search_documents s where s.campaign_id = p_campaign and s.doc_type = k.kind order by s.doc_id limit 40) x
    group by k.kind
  ) s;

  -- Titles, words by prefix (names: few titles share one), at most p_n per type, from the title index.
  return query
    select t.doc_type, t.doc_id, t.title, t.body, t.search_vector
    from unnest(present) as k(kind)
    cross join lateral (
      select d.doc_type, d.doc_id, d.title, d.body, d.search_vector from search_documents d
      where d.campaign_id || '' = p_campaign and d.doc_type || '' = k.kind and to_tsvector('simple', d.title) @@ p_title
        and search_visible(d.facets, p_viewer)
      limit p_n) t;

  -- Common words: the first p_n matches among 4 × p_n documents of the type, in index order. Every
  -- other type asks the text index: at most p_n per type. So does a common one whose probe found
  -- under a quarter of its quota (the sample misjudged it); a probe that found more stands even if
  -- short: the word is common, so the type has more matches than candidates either way (at 100k
  -- the bench's word in exactly 1 in 4 found 199 of 200, and asking the index cost its whole
  -- bitmap, 50,000 entries, 23 ms).
  return query
    with probed as materialized (
      select t.doc_type, t.doc_id, t.title, t.body, t.search_vector
      from unnest(common) as k(kind)
      cross join lateral (
        select d.doc_type, d.doc_id, d.title, d.body, d.search_vector
        from (select * from search_documents s where s.campaign_id = p_campaign and s.doc_type = k.kind order by s.doc_id limit 4 * p_n) d
        where d.search_vector @@ p_body and search_visible(d.facets, p_viewer)
        limit p_n) t
    ), asked as (
      select k.kind from unnest(present) as k(kind) where k.kind <> all (common)
      union all
      select k.kind from unnest(common) as k(kind) where (select count(*) from probed p where p.doc_type = k.kind) * 4 < p_n
    )
    select p.doc_type, p.doc_id, p.title, p.body, p.search_vector from probed p
    union all
    select t.doc_type, t.doc_id, t.title, t.body, t.search_vector
    from asked a
    cross join lateral (
      select d.doc_type, d.doc_id, d.title, d.body, d.search_vector from search_documents d
      where d.campaign_id || '' = p_campaign and d.doc_type || '' = a.kind and d.search_vector @@ p_body
        and search_visible(d.facets, p_viewer)
      limit p_n) t;
end $$;

-- Hero awards, quotes and spotlights get the list counters the other kinds have (0015_list_counts):
-- their unfiltered lists counted the campaign's cards per request, and sorted them all for a page
-- (the index put the session before the list's order). Their own trigger functions, not
-- record_counts_track: that one reads each row as JSON, and an award's row holds its card image.
-- A card's campaign and entry type never change: inserts and deletes are all there is to count.
create function record_counts_awards() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into record_counts (campaign_id, kind, n)
    select campaign_id, 'hero_awards', count(*) from new_rows group by 1 order by 1
    on conflict (campaign_id, kind) do update set n = record_counts.n + excluded.n;
  else
    update record_counts c set n = c.n - d.n
    from (select campaign_id, count(*) as n from old_rows group by 1 order by 1) d
    where c.campaign_id = d.campaign_id and c.kind = 'hero_awards';
  end if;
  return null;
end $$;
create function record_counts_entries() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into record_counts (campaign_id, kind, n)
    select campaign_id, entry_type || 's', count(*) from new_rows group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind) do update set n = record_counts.n + excluded.n;
  else
    update record_counts c set n = c.n - d.n
    from (select campaign_id, entry_type || 's' as kind, count(*) as n from old_rows group by 1, 2 order by 1, 2) d
    where c.campaign_id = d.campaign_id and c.kind = d.kind;
  end if;
  return null;
end $$;
create trigger record_counts_insert after insert on hero_awards referencing new table as new_rows for each statement execute function record_counts_awards();
create trigger record_counts_delete after delete on hero_awards referencing old table as old_rows for each statement execute function record_counts_awards();
create trigger record_counts_insert after insert on recap_entries referencing new table as new_rows for each statement execute function record_counts_entries();
create trigger record_counts_delete after delete on recap_entries referencing old table as old_rows for each statement execute function record_counts_entries();
insert into record_counts (campaign_id, kind, n)
select campaign_id, 'hero_awards', count(*) from hero_awards group by 1
union all
select campaign_id, entry_type || 's', count(*) from recap_entries group by 1, 2;
create index hero_awards_listed on hero_awards (campaign_id, order_index, created_at, id);
create index recap_entries_listed on recap_entries (campaign_id, entry_type, order_index, created_at, id);
