-- Similar names without the trigram index and without reading every record of a common word (issue 15).
-- 0030's step found a misspelt word's neighbours with `%` on the vocabulary's trigram index (every
-- list of every campaign: 0.7-0.9 ms a word at 100k) and then read and scored every record of every
-- near word (633 entries for "Vexqaulia Radra" at 100k, 0.6 ms). Two changes:
--
-- * Near words by deletion variants (SymSpell): search_word_variants holds, for each word of the
--   campaign's vocabularies (list words, 0025, and title words, 0030), every form with one letter
--   deleted. A vocabulary word is within one edit of a query word (a letter added, dropped, replaced,
--   or two adjacent letters swapped) exactly when the query word or one of its deletions is the word
--   or one of its deletions: exact lookups of the query word and its deletions in this table and in
--   the vocabulary's primary key, a few index probes whatever the campaign's size. Only when no word
--   is within one edit are the trigram neighbours (similarity >= 0.4) looked up, as before, so a query
--   found before is still found; what changes is that a word one edit away, when there is one, stands
--   for the query word alone (its farther trigram neighbours are not listed beside it).
--   Words of 4 to 40 letters with no digit (names; numbers keep the trigram lookup): a deletion of a
--   shorter word leaves two letters, which half the vocabulary shares.
-- * Candidates from the rarest query word: when every query word has near words and the rarest
--   one's records are few (<= 256), only its records are candidates, each kept when it also holds a
--   near word of every other query word (a primary-key probe of search_terms per word), so a common
--   correctly spelt word ("radra": 331 records at 100k) is probed, not read. Otherwise (one query
--   word, a rare word's records many, or no record holding them all) the union of 0030, as before.

create table search_word_variants (
  campaign_id text not null,
  variant text collate "C" not null,
  term text collate "C" not null,
  primary key (campaign_id, variant, term)
);

-- A word's one-letter deletions (distinct), for words of 4 to 40 letters without digits; else none.
-- PL/pgSQL: a SQL function with a subquery is not inlined, and ran its executor setup on every call.
create function search_word_deletions(p_word text) returns text[] language plpgsql immutable parallel safe as $$
declare
  deletions text[] := '{}';
  d text;
begin
  if length(p_word) between 4 and 40 and p_word !~ '[0-9]' then
    for i in 1 .. length(p_word) loop
      d := left(p_word, i - 1) || substr(p_word, i + 1);
      if not d = any (deletions) then deletions := deletions || d; end if;
    end loop;
  end if;
  return deletions;
end $$;

-- New words of either vocabulary bring their variants (a vocabulary row is only inserted for a word
-- the campaign's list or titles never held, so once a campaign's words repeat this writes nothing).
-- In key order, as the vocabularies' own inserts.
create function search_word_variants_track() returns trigger language plpgsql as $$
begin
  insert into search_word_variants (campaign_id, variant, term)
  select distinct n.campaign_id, d.variant, n.term from new_rows n, unnest(search_word_deletions(n.term)) d(variant)
  order by 1, 2, 3 on conflict do nothing;
  return null;
end $$;

create trigger search_word_variants_insert after insert on search_vocabulary referencing new table as new_rows for each statement execute function search_word_variants_track();
create trigger search_word_variants_insert after insert on search_title_vocabulary referencing new table as new_rows for each statement execute function search_word_variants_track();

insert into search_word_variants (campaign_id, variant, term)
select distinct v.campaign_id, d.variant, v.term
from (select campaign_id, term from search_vocabulary union select campaign_id, term from search_title_vocabulary) v, unnest(search_word_deletions(v.term)) d(variant);

-- A deleted campaign's variants go with its vocabularies (0034: at commit, after the cascade).
create or replace function search_vocabulary_forget() returns trigger language plpgsql as $$
begin
  delete from search_vocabulary where campaign_id = old.id;
  delete from search_word_variants where campaign_id = old.id;
  return null;
end $$;

-- 0030's trigram lookup for one word: at most p_near words of the lists of similarity >= 0.4, most
-- similar first, with their records' count. Bitmap scans on (the trigram index is read only by bitmap).
create function search_near_trigrams(p_campaign text, p_lists text[], p_word text, p_near int)
returns table (term text, sim real, n int)
language plpgsql stable rows 8
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = on set jit = off set pg_trgm.similarity_threshold = 0.4 as $$
begin
  return query
    select v.term::text, max(similarity(v.term, p_word)), sum(v.n)::int
    from search_vocabulary v
    where v.campaign_id || '' = p_campaign and v.list = any (p_lists) and v.term % p_word
    group by v.term having sum(v.n) > 0 order by 2 desc, 1 limit p_near;
end $$;

-- Each query word's near words in the lists' vocabulary, with how many records of the lists hold each
-- (n, 0031): the word itself when the lists hold it; else the words within one edit (at most p_near,
-- most similar first); else, only then, its trigram neighbours (search_near_trigrams). Words no
-- record holds any more (n = 0) are left out. `sim` is trigram similarity, as before (it ranks).
-- Bitmap scans off: with them the planner probed the vocabulary by `term =` on its trigram index
-- (pg_trgm's GIN answers equality) instead of the primary key, 2.5 ms for ten words.
create function search_near_forms(p_campaign text, p_lists text, p_words text[], p_near int)
returns table (i int, term text, sim real, n int)
language plpgsql stable rows 16
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
declare
  lists text[] := string_to_array(p_lists, ',');
  w text;
  dels text[];
  k int := 0;
begin
  foreach w in array p_words loop
    k := k + 1;
    return query
      select k, w, 1::real, sum(v.n)::int from search_vocabulary v
      where v.campaign_id = p_campaign and v.list = any (lists) and v.term = w collate "C" having sum(v.n) > 0;
    if found then continue; end if;
    -- A word one of whose deletions is the query word or one of its deletions, or a word that is one
    -- of the query word's deletions.
    dels := search_word_deletions(w);
    return query
      select k, c.term, similarity(c.term, w), c.n
      from (select t.term::text, sum(v.n)::int as n
            from (select x.term from search_word_variants x where x.campaign_id = p_campaign and x.variant = any ((w || dels) collate "C")
                  union select d collate "C" from unnest(dels) d) t
            join search_vocabulary v on v.campaign_id = p_campaign and v.list = any (lists) and v.term = t.term
            group by t.term having sum(v.n) > 0) c
      order by 3 desc, 2 limit p_near;
    if found then continue; end if;
    return query select k, t.term, t.sim, t.n from search_near_trigrams(p_campaign, lists, w, p_near) t;
  end loop;
end $$;

-- search_similar_records (0030) from those near words: the records of the rarest query word's near
-- words that hold a near word of every other query word (primary-key probes), when that word has at
-- most 256 records; else, or when no record holds them all, every record of every near word (0030).
-- Scored by the sum over query words of the best near word's similarity; the best p_limit, newest
-- first among equal scores. search_similar_names (0030) reads them and checks `<%`. The probe compares
-- ids in the column's own collation: in "C" (as the union's grouping) the primary key could not serve
-- it and the planner read every entry of the probed word per candidate (search_terms_newest's "C" id).
create or replace function search_similar_records(p_campaign text, p_lists text, p_words text[], p_near int, p_limit int)
returns table (record_id text, score real)
language plpgsql stable rows 50
set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
declare
  lists text[] := string_to_array(p_lists, ',');
  fi int[];
  ft text[];
  fs real[];
  fn int[];
  driver int;
  driver_n bigint;
  words int;
begin
  select array_agg(f.i), array_agg(f.term), array_agg(f.sim), array_agg(f.n) into fi, ft, fs, fn
  from search_near_forms(p_campaign, p_lists, p_words, p_near) f;
  if fi is null then return; end if;
  select count(distinct x) into words from unnest(fi) x;
  if words > 1 and words = cardinality(p_words) then
    select d.i, sum(d.n) into driver, driver_n from unnest(fi, fn) d(i, n) group by d.i order by 2, 1 limit 1;
    if driver_n <= 256 then
      return query
        with f as (select * from unnest(fi, ft, fs) f(i, term, sim)),
        d as (
          select s.record_id as id, s.list, max(s.created_at) as at, max(f.sim) as sim
          from f join search_terms s on s.campaign_id = p_campaign and s.list = any (lists) and s.term = f.term collate "C"
          where f.i = driver group by 1, 2)
        select d.id::text, (d.sim + o.sim)::real
        from d cross join lateral (
          select sum(x.sim) as sim, count(*) as held from (
            select f.i, max(f.sim) as sim from f
            where f.i <> driver
              and exists (select from search_terms s where s.campaign_id = p_campaign and s.list = d.list and s.term = f.term collate "C" and s.record_id = d.id)
            group by f.i) x) o
        where o.held = words - 1
        order by 2 desc, d.at desc, d.id collate "C" desc limit p_limit;
      if found then return; end if;
    end if;
  end if;
  return query
    with hits as (
      select s.record_id collate "C" as id, f.i, max(f.sim) as sim, max(s.created_at) as at
      from unnest(fi, ft, fs) f(i, term, sim)
      join search_terms s on s.campaign_id = p_campaign and s.list = any (lists) and s.term = f.term collate "C"
      group by 1, 2)
    select h.id::text, sum(h.sim)::real from hits h group by h.id order by 2 desc, max(h.at) desc, 1 desc limit p_limit;
end $$;

-- Whether a list search's earlier steps can find anything, from the vocabulary alone, so a typo does not
-- pay for them (at 100k: the prefix tiers and the substring statement found nothing in ~0.6 ms of CPU,
-- the substring statement planned anew on every call). The prefix step matches only when every query
-- word starts a word of the lists (exact: it is that tsquery); the substring step (several words, the
-- query as typed) only when the first word ends a word and every other starts one (the text holds
-- them in a row, and search_vector is that text's words). Each word one range of the primary key or
-- of the words reversed (p_suffix_first: the first word as an ending; p_ends / p_suffix_end: the first
-- string after every string with that start, computed by the caller). Words no record holds any more
-- (n = 0) are skipped.
create index search_vocabulary_reversed on search_vocabulary (campaign_id, list, (reverse(term)) collate "C");

create function search_words_known(p_campaign text, p_lists text, p_words text[], p_ends text[], p_suffix_first boolean, p_suffix_end text)
returns boolean
language plpgsql stable
set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
declare
  lists text[] := string_to_array(p_lists, ',');
begin
  if p_suffix_first and not exists (
    select from search_vocabulary v
    where v.campaign_id = p_campaign and v.list = any (lists)
      and reverse(v.term) collate "C" >= reverse(p_words[1]) collate "C" and reverse(v.term) collate "C" < p_suffix_end collate "C" and v.n > 0) then
    return false;
  end if;
  return not exists (
    select from unnest(p_words, p_ends) with ordinality w(word, high, i)
    where not (p_suffix_first and w.i = 1) and not exists (
      select from search_vocabulary v
      where v.campaign_id = p_campaign and v.list = any (lists) and v.term >= w.word collate "C" and v.term < w.high collate "C" and v.n > 0));
end $$;
