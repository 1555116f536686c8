-- List search's last prefix tier ("another word or an alias") bounded by its matches, not by how
-- common the query's words are (issue 15). search_*_names_rest (0026) read the text index for
-- `w1:* & w2:*`: GIN reads every posting of every word each prefix starts and intersects them, in
-- every campaign and list (a place name of two common words at 100k per kind: ~500 + ~500 postings
-- for a handful of matches, 0.2 ms, ten times its 10k cost), and the tier runs for every name
-- search whose page the name tiers leave short — most names.
--
-- Now each record's words are also indexed in pairs: search_word_pairs(search_vector) holds 'x y'
-- for every two distinct words x, y of the record (both orders). For a query of two or more plain
-- words, the words x of the lists' vocabulary (0025) that start the query word with the fewest such
-- words, each with the prefix of another query word, are a handful of prefix lookups
-- ('x w2':* | …) that find exactly the records holding both — then checked against the whole query
-- and the name condition as before. Same rows, same order: the candidates are a superset of the
-- tier's matches (a record matching `w1:* & w2:*` holds some x starting with w1 — a word of the
-- vocabulary — and some other word y starting with w2: it cannot be x itself unless one query word
-- starts the other, and those queries keep the text index), and the final filter is the old one.
-- A record whose words are too many or too long for its pairs (over 24 words: 552 pairs; a word over
-- 100 bytes: a lexeme is at most 2 kB) holds the one lexeme ' +' instead, which every lookup also
-- reads (a candidate, then checked). One query word, a word starting more than 64 vocabulary words,
-- or a query not given as plain words: the text index, as before.

-- A record's word pairs. PL/pgSQL, so the index expression and the query's are the same call (a SQL
-- function would be inlined).
create function search_word_pairs(p_vector tsvector) returns tsvector language plpgsql immutable parallel safe as $$
declare
  words text[] := tsvector_to_array(p_vector);
begin
  if cardinality(words) < 2 then return ''::tsvector; end if;
  if cardinality(words) > 24 or exists (select from unnest(words) w where octet_length(w) > 100) then
    return array_to_tsvector(array[' +']);
  end if;
  return array_to_tsvector(array(select a || ' ' || b from unnest(words) a, unnest(words) b where a <> b));
end $$;

create index characters_word_pairs on characters using gin (search_word_pairs(search_vector)) with (gin_pending_list_limit = 64);
create index entities_word_pairs on entities using gin (search_word_pairs(search_vector)) with (gin_pending_list_limit = 64);

-- The pair lookup for a query: null when the text index is the way (see above). p_lists are the
-- vocabulary lists the tier's records are in.
create function search_word_pairs_query(p_campaign text, p_lists text[], p_words text[], p_ends text[])
returns tsquery
language plpgsql stable
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
declare
  a text[];
  a_word text;
  b text;
begin
  if p_words is null or cardinality(p_words) < 2 then return null; end if;
  -- The two query words that start the fewest vocabulary words (read to 65), with the first one's words.
  select w.terms, w.word, w.next into a, a_word, b
  from (select u.terms, u.word, lead(u.word) over (order by cardinality(u.terms), u.i) as next, row_number() over (order by cardinality(u.terms), u.i) as r
        from (select w.word, w.i, array(
                select v.term::text from search_vocabulary v
                where v.campaign_id = p_campaign and v.list = any (p_lists) and v.term >= w.word collate "C" and v.term < w.high collate "C"
                limit 65) as terms
              from unnest(p_words, p_ends) with ordinality w(word, high, i)) u) w
  where w.r = 1;
  if cardinality(a) > 64 or starts_with(a_word, b) or starts_with(b, a_word) then return null; end if;
  return (array_to_string(array(select '''' || replace(replace(t || ' ' || b, '\', '\\'), '''', '''''') || ''':*' from unnest(a) t), ' | ')
    || case when cardinality(a) > 0 then ' | ' else '' end || ''' +''')::tsquery;
end $$;

-- The tiers of 0026 with the query's plain words and their prefix ends (null when the query is not
-- plain words: the text index then), passed to the last tier.
drop function search_character_names(text, boolean, text, tsquery, text, text, text, text, int);
drop function search_character_names_rest(text, boolean, text, tsquery, text, text, text, int);
drop function search_entity_names(text, text, tsquery, text, text, text, text, int);
drop function search_entity_names_rest(text, text, tsquery, text, text, text, int);

-- The last tier from the pairs when search_word_pairs_query gives a lookup, else from the text index
-- (0026's statement). Either way the campaign is fenced off the btrees and the subquery from the
-- LIMIT; on the pairs path the text index is fenced too (`|| ''`), so the pairs are the way in.
create function search_character_names_rest(p_campaign text, p_approved boolean, p_type text, p_query tsquery, p_low text, p_high text, p_like text, p_end int, p_words text[], p_ends text[])
returns setof characters
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set enable_sort = on set jit = off as $$
declare
  pairs tsquery := search_word_pairs_query(p_campaign, case when p_approved then array['characters'] else array['characters', 'characters:unapproved'] end, p_words, p_ends);
begin
  if pairs is null then
    return query
      select t.* from (
        select c.* from characters c
        where c.campaign_id || '' = p_campaign and (c.approved or not p_approved) and (p_type is null or c.type = p_type)
          and c.search_vector @@ p_query
          and not (lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like)
        offset 0) t
      order by t.created_at desc, t.id desc limit p_end;
    return;
  end if;
  return query
    select t.* from (
      select c.* from characters c
      where search_word_pairs(c.search_vector) @@ pairs
        and c.campaign_id || '' = p_campaign and (c.approved or not p_approved) and (p_type is null or c.type = p_type)
        and (c.search_vector || ''::tsvector) @@ p_query
        and not (lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like)
      offset 0) t
    order by t.created_at desc, t.id desc limit p_end;
end $$;

create function search_character_names(p_campaign text, p_approved boolean, p_type text, p_query tsquery, p_name text, p_low text, p_high text, p_like text, p_end int, p_words text[], p_ends text[])
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
  return query select * from search_character_names_rest(p_campaign, p_approved, p_type, p_query, p_low, p_high, p_like, p_end - n, p_words, p_ends);
end $$;

create function search_entity_names_rest(p_campaign text, p_kind text, p_query tsquery, p_low text, p_high text, p_like text, p_end int, p_words text[], p_ends text[])
returns setof entities
language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set enable_sort = on set jit = off as $$
declare
  pairs tsquery := search_word_pairs_query(p_campaign, array[p_kind], p_words, p_ends);
begin
  if pairs is null then
    return query
      select t.* from (
        select e.* from entities e
        where e.campaign_id || '' = p_campaign and e.kind = p_kind and e.search_vector @@ p_query
          and not (lower(e.name) collate "C" >= p_low and lower(e.name) collate "C" < p_high and lower(e.name) like p_like)
        offset 0) t
      order by t.created_at desc, t.id desc limit p_end;
    return;
  end if;
  return query
    select t.* from (
      select e.* from entities e
      where search_word_pairs(e.search_vector) @@ pairs
        and e.campaign_id || '' = p_campaign and e.kind = p_kind and (e.search_vector || ''::tsvector) @@ p_query
        and not (lower(e.name) collate "C" >= p_low and lower(e.name) collate "C" < p_high and lower(e.name) like p_like)
      offset 0) t
    order by t.created_at desc, t.id desc limit p_end;
end $$;

create function search_entity_names(p_campaign text, p_kind text, p_query tsquery, p_name text, p_low text, p_high text, p_like text, p_end int, p_words text[], p_ends text[])
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
  return query select * from search_entity_names_rest(p_campaign, p_kind, p_query, p_low, p_high, p_like, p_end - n, p_words, p_ends);
end $$;
