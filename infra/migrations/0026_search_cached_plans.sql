-- Plans kept per connection for list search (its name tiers, its substring step, its word-table
-- total) and cross-type search's trigram fallback (issue 15). All were planned on every call:
-- postgres.js prepares the adapter's statements, but the plan cache chose custom plans (or, after a
-- run of broad prefixes had raised its average, the generic one — a bitmap sorted for the page),
-- and a SQL function with a SET clause (search_similar, 0021) is planned at each call. Planning was most of a name search's PostgreSQL time (10k bench,
-- the tiered page: 0.33 ms planning against 0.08 ms execution; backend CPU per exact-name list
-- search 0.50 ms before, 0.13 ms after; 0.64 and 0.32 ms at 100k, docs/decisions.md).
--
-- The tiers (adapters/sql/search.ts, tieredPage) are now PL/pgSQL statements with generic plans, one
-- per tier, each asked only while the page is not full, each limited to what the page still needs:
--   * exact name, newest first, and names that start with the query in name order: sorts and bitmap
--     scans off, so the only plan is the ordered range scan of the name index (characters_by_name,
--     entities_by_name, 0023) that stops after the page's rows. (The tiers as one generic statement,
--     tried: the prefix tier became a BitmapAnd of the text index and the name range, sorted — every
--     match read for 20 rows, 3× slower at 100k.)
--   * the rest (a later word, an alias), newest first: its own function, with bitmap scans on, so
--     the text index is its way in; the campaign is fenced off the btrees (`|| ''`) and the subquery
--     fenced from the LIMIT (`offset 0`), as the statement it replaces was.
-- The filters are the lists' own (characters: approved only, a type; entities: the kind).
create function search_character_names_rest(p_campaign text, p_approved boolean, p_type text, p_query tsquery, p_low text, p_high text, p_like text, p_end int)
returns setof characters
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set enable_sort = on set jit = off as $$
begin
  return query
    select t.* from (
      select c.* from characters c
      where c.campaign_id || '' = p_campaign and (c.approved or not p_approved) and (p_type is null or c.type = p_type)
        and c.search_vector @@ p_query
        and not (lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like)
      offset 0) t
    order by t.created_at desc, t.id desc limit p_end;
end $$;

create function search_character_names(p_campaign text, p_approved boolean, p_type text, p_query tsquery, p_name text, p_low text, p_high text, p_like text, p_end int)
returns setof characters
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set enable_sort = off set jit = off as $$
declare
  got int;
  n int := 0;
begin
  return query
    select c.* from characters c
    where c.campaign_id = p_campaign and (c.approved or not p_approved) and (p_type is null or c.type = p_type)
      and c.search_vector @@ p_query and lower(c.character_name) collate "C" = p_name
    order by c.created_at desc, c.id desc limit p_end;
  get diagnostics got = row_count;
  n := n + got;
  if n >= p_end then return; end if;
  return query
    select c.* from characters c
    where c.campaign_id = p_campaign and (c.approved or not p_approved) and (p_type is null or c.type = p_type)
      and c.search_vector @@ p_query
      and lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like
      and lower(c.character_name) collate "C" <> p_name
    order by lower(c.character_name) collate "C", c.created_at desc, c.id desc limit p_end - n;
  get diagnostics got = row_count;
  n := n + got;
  if n >= p_end then return; end if;
  return query select * from search_character_names_rest(p_campaign, p_approved, p_type, p_query, p_low, p_high, p_like, p_end - n);
end $$;

create function search_entity_names_rest(p_campaign text, p_kind text, p_query tsquery, p_low text, p_high text, p_like text, p_end int)
returns setof entities
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set enable_sort = on set jit = off as $$
begin
  return query
    select t.* from (
      select e.* from entities e
      where e.campaign_id || '' = p_campaign and e.kind = p_kind and e.search_vector @@ p_query
        and not (lower(e.name) collate "C" >= p_low and lower(e.name) collate "C" < p_high and lower(e.name) like p_like)
      offset 0) t
    order by t.created_at desc, t.id desc limit p_end;
end $$;

create function search_entity_names(p_campaign text, p_kind text, p_query tsquery, p_name text, p_low text, p_high text, p_like text, p_end int)
returns setof entities
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set enable_sort = off set jit = off as $$
declare
  got int;
  n int := 0;
begin
  return query
    select e.* from entities e
    where e.campaign_id = p_campaign and e.kind = p_kind and e.search_vector @@ p_query and lower(e.name) collate "C" = p_name
    order by e.created_at desc, e.id desc limit p_end;
  get diagnostics got = row_count;
  n := n + got;
  if n >= p_end then return; end if;
  return query
    select e.* from entities e
    where e.campaign_id = p_campaign and e.kind = p_kind and e.search_vector @@ p_query
      and lower(e.name) collate "C" >= p_low and lower(e.name) collate "C" < p_high and lower(e.name) like p_like
      and lower(e.name) collate "C" <> p_name
    order by lower(e.name) collate "C", e.created_at desc, e.id desc limit p_end - n;
  get diagnostics got = row_count;
  n := n + got;
  if n >= p_end then return; end if;
  return query select * from search_entity_names_rest(p_campaign, p_kind, p_query, p_low, p_high, p_like, p_end - n);
end $$;

-- search_similar (0021) in PL/pgSQL: the same matches, planned once per connection (generic: the
-- trigram index is its only way in whatever the parameters — sequential scans off, campaign and type
-- fenced). A SQL function with a SET clause is never inlined and was planned at every call. The
-- two conditions are two scans of the index now, the second leaving out what the first found:
-- with `ilike or <%` the heap scan rechecked the OR and then filtered by it again, computing the
-- word similarity (about 4 µs a title) twice per candidate before the caller ranks by it.
create or replace function search_similar(p_campaign text, p_types text, p_query text, p_like text, p_viewer text)
returns table (doc_type text, doc_id text, title text, body text)
language plpgsql stable set enable_seqscan = off set plan_cache_mode = force_generic_plan as $$
begin
  return query
    select d.doc_type, d.doc_id, d.title, d.body from search_documents d
    where d.campaign_id || '' = p_campaign and d.doc_type || '' = any (string_to_array(p_types, ','))
      and d.title ilike p_like and search_visible(d.facets, p_viewer)
    union all
    select d.doc_type, d.doc_id, d.title, d.body from search_documents d
    where d.campaign_id || '' = p_campaign and d.doc_type || '' = any (string_to_array(p_types, ','))
      and p_query <% d.title and not d.title ilike p_like and search_visible(d.facets, p_viewer);
end $$;

-- List search's substring step for one plain word (adapters/sql/search.ts, wordsContaining): the
-- campaign's words that hold it, their records newest first, one page of (record, created_at) with
-- the number of records. The same statement as before, planned once per connection (it was planned
-- at every call: 0.26 ms against 1.3 ms execution at 10k). Generic, so the campaign is fenced
-- (`|| ''`) and sequential scans are off: the words' trigram index is the only way in, whatever a
-- pattern or a campaign would have let the planner estimate (the primary key would read the
-- campaign's whole vocabulary). Ids grouped in the "C" collation as before. `rows 20` (a page): the
-- caller joins the page to its table by primary key; at the default estimate of 1,000 rows its
-- plan hashed the whole table (tried: 6.8 ms a call at 10k).
create function search_words_containing(p_campaign text, p_lists text, p_like text, p_size int, p_offset int)
returns table (record_id text, created_at timestamptz, total_count int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
begin
  return query
    select m.id, m.at, (count(*) over ())::int
    from (select s.record_id collate "C" as id, max(s.created_at) as at
          from search_vocabulary v join search_terms s on s.campaign_id = v.campaign_id and s.list = v.list and s.term = v.term
          where v.campaign_id || '' = p_campaign and v.list = any (string_to_array(p_lists, ',')) and v.term like p_like
          group by 1) m
    order by m.at desc, m.id desc limit p_size offset p_offset;
end $$;

-- List search's total from search_terms (adapters/sql/search.ts, countWords): how many records of
-- the lists have, for every word, a word in [p_low[i], p_high[i]). The statements the adapter sent,
-- the one-word and two-word (most names) ones planned once per connection (each was planned at
-- every call: 0.07 ms, as long as the count's execution at 10k); generic plans read the primary
-- key's ranges index-only, as the custom ones did. More words: the same intersection, planned per
-- call (EXECUTE). Tried for them: each range's distinct records grouped and kept when in every
-- range — twice as slow as the intersection for three broad words at 100k (100 against 55 ms).
create function search_terms_count(p_campaign text, p_lists text, p_low text[], p_high text[])
returns int
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
declare
  n int;
begin
  if cardinality(p_low) = 1 then
    select count(distinct t.record_id collate "C")::int into n from search_terms t
    where t.campaign_id = p_campaign and t.list = any (string_to_array(p_lists, ',')) and t.term >= p_low[1] and t.term < p_high[1];
  elsif cardinality(p_low) = 2 then
    select count(*)::int into n from (
      select t.record_id collate "C" from search_terms t
      where t.campaign_id = p_campaign and t.list = any (string_to_array(p_lists, ',')) and t.term >= p_low[1] and t.term < p_high[1]
      intersect
      select t.record_id collate "C" from search_terms t
      where t.campaign_id = p_campaign and t.list = any (string_to_array(p_lists, ',')) and t.term >= p_low[2] and t.term < p_high[2]) m;
  else
    execute 'select count(*)::int from (' || (
        select string_agg(format('select t.record_id collate "C" from search_terms t where t.campaign_id = $1 and t.list = any (string_to_array($2, '','')) and t.term >= $3[%s] and t.term < $4[%s]', i, i), ' intersect ')
        from generate_subscripts(p_low, 1) i) || ') m'
      into n using p_campaign, p_lists, p_low, p_high;
  end if;
  return n;
end $$;
