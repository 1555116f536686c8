-- Cross-type search's similar titles from the campaign's title vocabulary (issue 15), as the list
-- search's similar names (0030_search_similar_vocabulary): `q <% title` on the title trigram index
-- read posting lists that grow with the campaign (5.8 ms of PostgreSQL CPU per typo search at 100k).
--
-- search_title_terms: one row per document and distinct word of its title (the lexemes of
-- to_tsvector('simple', title), the title half of search_vector), so a word's documents of a type
-- are an index range, read without the documents. search_title_vocabulary: every word a campaign's
-- titles have held (never pruned, as search_vocabulary), with a trigram index for the nearest words.
create table search_title_terms (
  campaign_id text not null,
  term text collate "C" not null,
  doc_type text not null,
  doc_id text not null,
  primary key (campaign_id, term, doc_type, doc_id)
);

create table search_title_vocabulary (
  campaign_id text not null,
  term text collate "C" not null,
  primary key (campaign_id, term)
);
create index search_title_vocabulary_trgm on search_title_vocabulary using gin (term gin_trgm_ops) with (gin_pending_list_limit = 64);

-- Kept by statement triggers in the writing transaction (transition tables: one statement per
-- write statement). An update rewrites a document's words only when its title, type or campaign
-- changed (the usual upsert rewrites the body). Vocabulary rows are added in key order.
create function search_title_terms_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    delete from search_title_terms s
    using old_rows o, unnest(to_tsvector('simple', o.title)) w
    where s.campaign_id = o.campaign_id and s.term = w.lexeme and s.doc_type = o.doc_type and s.doc_id = o.doc_id;
  elsif TG_OP = 'INSERT' then
    with added as (
      select n.campaign_id, w.lexeme as term, n.doc_type, n.doc_id from new_rows n, unnest(to_tsvector('simple', n.title)) w
    ), terms as (
      insert into search_title_terms (campaign_id, term, doc_type, doc_id)
      select campaign_id, term, doc_type, doc_id from added on conflict do nothing
    )
    insert into search_title_vocabulary (campaign_id, term)
    select distinct campaign_id, term from added order by 1, 2 on conflict do nothing;
  else
    -- Two statements: within one, an insert would not see the delete's work.
    delete from search_title_terms s
    using old_rows o join new_rows n on n.doc_type = o.doc_type and n.doc_id = o.doc_id and (n.campaign_id <> o.campaign_id or n.title <> o.title),
          unnest(to_tsvector('simple', o.title)) w
    where s.campaign_id = o.campaign_id and s.term = w.lexeme and s.doc_type = o.doc_type and s.doc_id = o.doc_id;
    with added as (
      select n.campaign_id, w.lexeme as term, n.doc_type, n.doc_id
      from old_rows o join new_rows n on n.doc_type = o.doc_type and n.doc_id = o.doc_id and (n.campaign_id <> o.campaign_id or n.title <> o.title),
           unnest(to_tsvector('simple', n.title)) w
    ), terms as (
      insert into search_title_terms (campaign_id, term, doc_type, doc_id)
      select campaign_id, term, doc_type, doc_id from added on conflict do nothing
    )
    insert into search_title_vocabulary (campaign_id, term)
    select distinct campaign_id, term from added order by 1, 2 on conflict do nothing;
  end if;
  return null;
end $$;

create trigger search_title_terms_insert after insert on search_documents referencing new table as new_rows for each statement execute function search_title_terms_track();
create trigger search_title_terms_delete after delete on search_documents referencing old table as old_rows for each statement execute function search_title_terms_track();
create trigger search_title_terms_update after update on search_documents referencing old table as old_rows new table as new_rows for each statement execute function search_title_terms_track();

-- The documents already there.
insert into search_title_terms (campaign_id, term, doc_type, doc_id)
select d.campaign_id, w.lexeme, d.doc_type, d.doc_id from search_documents d, unnest(to_tsvector('simple', d.title)) w;
insert into search_title_vocabulary (campaign_id, term) select distinct campaign_id, term from search_title_terms;

-- A query word's neighbours in the title vocabulary: at most p_near words of similarity >= 0.4
-- (the `%` operator on its trigram index), most similar first; a word of the vocabulary stands for
-- itself. Bitmap scans on whatever the caller's settings: the trigram index is read only by bitmap.
create function search_near_titles(p_campaign text, p_words text[], p_near int)
returns table (i int, term text, sim real)
language plpgsql stable rows 16
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set jit = off set pg_trgm.similarity_threshold = 0.4 as $$
begin
  return query
    select w.i::int, n.term::text, n.sim
    from unnest(p_words) with ordinality w(word, i)
    cross join lateral (
      select w.word collate "C" as term, 1::real as sim
      where exists (select from search_title_vocabulary v where v.campaign_id = p_campaign and v.term = w.word collate "C")
      union all
      (select v.term, similarity(v.term, w.word)
       from search_title_vocabulary v
       where not exists (select from search_title_vocabulary x where x.campaign_id = p_campaign and x.term = w.word collate "C")
         and v.campaign_id || '' = p_campaign and v.term % w.word
       order by 2 desc, 1 limit p_near)) n;
end $$;

-- Similar titles of the requested types: the nearest words, their documents from
-- search_title_terms (index-only), each scored by the mean over query words of its nearest word's
-- similarity; per type the best p_limit (then the greatest id) are read by primary key and kept when
-- `p_query <% title`, not a substring (the caller's other half) and visible to the viewer. Index
-- scans only: the title's trigram index is what this replaces.
create function search_similar_titles(p_campaign text, p_types text, p_query text, p_words text[], p_like text, p_viewer text, p_near int, p_limit int)
returns table (doc_type text, doc_id text, title text, body text, near real)
language plpgsql stable rows 50
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set enable_hashjoin = off set enable_mergejoin = off
set jit = off as $$
declare
  -- Split once: in the statement, string_to_array ran for every word entry it filtered.
  types text[] := string_to_array(p_types, ',');
begin
  return query
    with hits as (
      select s.doc_type, s.doc_id, n.i, max(n.sim) as sim
      from search_near_titles(p_campaign, p_words, p_near) n
      join search_title_terms s on s.campaign_id = p_campaign and s.term = n.term collate "C" and s.doc_type = any (types)
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

-- The other half of the fallback, unchanged: titles that hold the query (search_similar's first
-- statement, 0026), from the title trigram index.
create function search_titles_containing(p_campaign text, p_types text, p_like text, p_viewer text)
returns table (doc_type text, doc_id text, title text, body text)
language plpgsql stable rows 20 set enable_seqscan = off set plan_cache_mode = force_generic_plan set jit = off as $$
begin
  return query
    select d.doc_type, d.doc_id, d.title, d.body from search_documents d
    where d.campaign_id || '' = p_campaign and d.doc_type || '' = any (string_to_array(p_types, ','))
      and d.title ilike p_like and search_visible(d.facets, p_viewer);
end $$;
