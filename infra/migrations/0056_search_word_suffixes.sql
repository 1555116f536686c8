-- The vocabulary lookups of quest, moment and recap-card search by campaign (issue 15). Each search
-- looks up its campaign's words ending with the query's first word a (a rest follows) or holding it
-- (0046's split), as `word like '%a'` / `'%a%'` on quest_search_words, moment_search_words and
-- recap_search_words. Neither index bounds that by the campaign: the trigram index holds every
-- campaign's words (a search read one row per campaign holding "award": 2,000 campaigns, ~250 pages),
-- and the primary key (campaign, word), which the generic plan takes when campaigns are many and
-- small, is read over the campaign's whole vocabulary and filtered (3,000 number words, 23 pages).
-- Which one the planner took depended on the statistics.
-- Now every suffix of every vocabulary word, keyed by kind and campaign: a word ends with a when one
-- of its suffixes is a, and holds a when one starts with a. So both lookups are one range of the key:
-- suffix between a and a (ending) or a and a || U+10FFFF (holding; the words are letters and digits,
-- and U+10FFFF sorts last in "C"), read only as far as the words it needs. kind: 'quest', 'moment',
-- and recap_search_words' kinds ('award', 'quote', 'spotlight'), as search_head_counts'.
create table search_word_suffixes (
  kind text collate "C" not null,
  campaign_id text not null,
  suffix text collate "C" not null,
  word text collate "C" not null
);

-- A word's suffixes, the word itself first.
create function search_word_suffixes_of(w text) returns setof text language sql immutable parallel safe as $$
  select substr(w, i) from generate_series(1, length(w)) i
$$;

-- The vocabulary tables only gain rows (never pruned, 0046), each new word once: an insert's
-- `on conflict do nothing` leaves a word already held out of its transition table. So an insert
-- trigger is all: a word's suffixes are written once, when a campaign first holds it. TG_ARGV[0] is the
-- kind for the tables without a kind column.
create function search_word_suffixes_track() returns trigger language plpgsql as $$
begin
  if TG_TABLE_NAME = 'recap_search_words' then
    insert into search_word_suffixes (kind, campaign_id, suffix, word)
    select n.kind, n.campaign_id, s, n.word from new_rows n, search_word_suffixes_of(n.word) s order by 1, 2, 3, 4;
  else
    insert into search_word_suffixes (kind, campaign_id, suffix, word)
    select TG_ARGV[0], n.campaign_id, s, n.word from new_rows n, search_word_suffixes_of(n.word) s order by 1, 2, 3, 4;
  end if;
  return null;
end $$;

-- Triggers first: they lock each table against writers until the migration commits, so no word is
-- added between the copy below and the trigger.
create trigger search_word_suffixes_insert after insert on quest_search_words referencing new table as new_rows
  for each statement execute function search_word_suffixes_track('quest');
create trigger search_word_suffixes_insert after insert on moment_search_words referencing new table as new_rows
  for each statement execute function search_word_suffixes_track('moment');
create trigger search_word_suffixes_insert after insert on recap_search_words referencing new table as new_rows
  for each statement execute function search_word_suffixes_track();

insert into search_word_suffixes (kind, campaign_id, suffix, word)
select 'quest', v.campaign_id, s, v.word from quest_search_words v, search_word_suffixes_of(v.word) s;
insert into search_word_suffixes (kind, campaign_id, suffix, word)
select 'moment', v.campaign_id, s, v.word from moment_search_words v, search_word_suffixes_of(v.word) s;
insert into search_word_suffixes (kind, campaign_id, suffix, word)
select v.kind, v.campaign_id, s, v.word from recap_search_words v, search_word_suffixes_of(v.word) s;
-- Built after the rows (compact, as 0050's). A word's suffixes are distinct, so the row is its key.
alter table search_word_suffixes add primary key (kind, campaign_id, suffix, word);

-- Nothing reads the trigram indexes of the vocabularies now (the functions below were their only
-- readers): each new word's trigrams were a GIN insert.
drop index quest_search_words_trgm, moment_search_words_trgm, recap_search_words_trgm;

-- The heads paths (0055's quest_search_page, 0052's moment_search_page, 0053's recap_search_page) and
-- the word-start paths they fall back to (0055's quest_search_page_entries, 0051's moment search
-- renamed moment_search_page_entries by 0052), whole, with only the vocabulary lookup changed: the
-- heads' up to 9 words from the suffixes; the word starts' words as the distinct words of the range.

create or replace function quest_search_page(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  word_hi text;
  vw text;
  n int;
  ws text[];
begin
  r := substr(lower(p_query), coalesce(length(a), 0) + 1);
  if a is not null and length(a) <= 200 and length(r) <= 3 and (r <> '' or length(a) >= 3) and p_status is null and p_category is null
     and not exists (select 1 from quest_search_entries e where e.campaign_id = p_campaign and e.word = '' and e.tail = '') then
    -- The campaign's words ending with a (a rest follows: the suffix a) or holding it (suffixes
    -- starting with a), up to 9: its suffixes read in order until a ninth distinct word.
    word_hi := case when r = '' then a || chr(1114111) else a end;
    for vw in select s.word from search_word_suffixes s
              where s.kind = 'quest' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C" loop
      if ws is null or not vw = any (ws) then
        ws := ws || vw;
        exit when cardinality(ws) > 8;
      end if;
    end loop;
    if coalesce(cardinality(ws), 0) <= 8 then
      if ws is null then
        n := 0;
      elsif cardinality(ws) = 1 then
        -- One word: its counter (a quest holding the word twice with this head counts once).
        select coalesce(sum(c.n), 0)::int into n from search_head_counts c
        where c.kind = 'quest' and c.campaign_id = p_campaign and c.word = ws[1] collate "C" and c.head = r collate "C";
      else
        -- A quest may hold several of the words: the distinct quests of their ranges.
        select count(*)::int into n from (
          select distinct h.quest_id from quest_search_heads h
          where h.campaign_id = p_campaign and h.word = any (ws::text[] collate "C") and h.head = r collate "C") m;
      end if;
      -- A quest in the page is among its word's first p_offset + p_limit rows (those before it are other
      -- quests before it), so each word's range is read that far and no further.
      return query
        select x.quest_id, n from (
          select distinct s.quest_id, s.order_index, s.created_at
          from unnest(ws) w(word),
            lateral (select h.quest_id, h.order_index, h.created_at from quest_search_heads h
                     where h.campaign_id = p_campaign and h.word = w.word collate "C" and h.head = r collate "C"
                     order by h.order_index, h.created_at, h.quest_id limit p_offset + p_limit) s
        ) x
        order by x.order_index, x.created_at, x.quest_id limit p_limit offset p_offset;
      if not found then
        id := null; total := n; return next;
      end if;
      return;
    end if;
  end if;
  return query select * from quest_search_page_entries(p_campaign, p_query, p_like, p_status, p_category, p_limit, p_offset);
end $$;

create or replace function quest_search_page_entries(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  lq text := lower(p_query);
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  word_hi text;
  hi text;
  n int;
begin
  r := substr(lq, coalesce(length(a), 0) + 1);
  if a is null or length(a) > 200 or length(r) > 32 or (r = '' and length(a) < 3) then
    -- The trigram index, as before 0046.
    return query
      select q.id, (select count(*) from quests c where c.campaign_id = p_campaign and c.search_text ilike p_like
                      and (p_status is null or c.status = p_status) and (p_category is null or c.quest_category = p_category))::int
      from quests q
      where q.campaign_id = p_campaign and q.search_text ilike p_like
        and (p_status is null or q.status = p_status) and (p_category is null or q.quest_category = p_category)
      order by q.order_index, q.created_at, q.id limit p_limit offset p_offset;
    if not found then
      select count(*)::int into n from quests c where c.campaign_id = p_campaign and c.search_text ilike p_like
        and (p_status is null or c.status = p_status) and (p_category is null or c.quest_category = p_category);
      id := null; total := n; return next;
    end if;
    return;
  end if;
  -- The vocabulary's words ending with a (a rest follows: the suffix a) or holding it (a suffix starting with a).
  word_hi := case when r = '' then a || chr(1114111) else a end;
  -- Every tail starting with r is at most this (tails are at most 32 characters; U+10FFFF sorts last in "C").
  hi := r || repeat(chr(1114111), 32 - length(r));
  return query
    with m as (
      select e.quest_id, e.order_index, e.created_at
      from (select distinct s.word from search_word_suffixes s
            where s.kind = 'quest' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C") v
      join quest_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      union
      select e.quest_id, e.order_index, e.created_at
      from quest_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select q.search_text ilike p_like from quests q where q.id = e.quest_id)
    ), f as (
      -- Scalar subqueries: a row read by key per quest, never a join that could read the table.
      select m.* from m
      where (p_status is null and p_category is null)
         or (select (p_status is null or q.status = p_status) and (p_category is null or q.quest_category = p_category) from quests q where q.id = m.quest_id)
    )
    select f.quest_id, (count(*) over ())::int from f order by f.order_index, f.created_at, f.quest_id limit p_limit offset p_offset;
  if not found then
    select count(*)::int into n from (
      select e.quest_id from (select distinct s.word from search_word_suffixes s
            where s.kind = 'quest' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C") v
      join quest_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      union
      select e.quest_id from quest_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select q.search_text ilike p_like from quests q where q.id = e.quest_id)) m
    where (p_status is null and p_category is null)
       or (select (p_status is null or q.status = p_status) and (p_category is null or q.quest_category = p_category) from quests q where q.id = m.quest_id);
    id := null; total := n; return next;
  end if;
end $$;

create or replace function moment_search_page(p_campaign text, p_query text, p_like text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  n int;
  ws text[];
  word_hi text;
  vw text;
begin
  r := substr(lower(p_query), coalesce(length(a), 0) + 1);
  if a is not null and length(a) <= 200 and length(r) <= 3 and (r <> '' or length(a) >= 3)
     and not exists (select 1 from moment_search_entries e where e.campaign_id = p_campaign and e.word = '' and e.tail = '') then
    -- The campaign's words ending with a (a rest follows: the suffix a) or holding it (suffixes
    -- starting with a), up to 9: its suffixes read in order until a ninth distinct word.
    word_hi := case when r = '' then a || chr(1114111) else a end;
    for vw in select s.word from search_word_suffixes s
              where s.kind = 'moment' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C" loop
      if ws is null or not vw = any (ws) then
        ws := ws || vw;
        exit when cardinality(ws) > 8;
      end if;
    end loop;
    if coalesce(cardinality(ws), 0) <= 8 then
      if ws is null then
        n := 0;
      elsif cardinality(ws) = 1 then
        select coalesce(sum(c.n), 0)::int into n from search_head_counts c
        where c.kind = 'moment' and c.campaign_id = p_campaign and c.word = ws[1] collate "C" and c.head = r collate "C";
      else
        -- A moment may hold several of the words: the distinct moments of their ranges (linear).
        select count(*)::int into n from (
          select distinct h.moment_id from moment_search_heads h
          where h.campaign_id = p_campaign and h.word = any (ws::text[] collate "C") and h.head = r collate "C") m;
      end if;
      -- A moment of the page is among its word's newest p_offset + p_limit rows.
      return query
        select x.moment_id, n from (
          select distinct s.moment_id, s.created_at
          from unnest(ws) w(word),
            lateral (select h.moment_id, h.created_at from moment_search_heads h
                     where h.campaign_id = p_campaign and h.word = w.word collate "C" and h.head = r collate "C"
                     order by h.created_at desc, h.moment_id desc limit p_offset + p_limit) s
        ) x
        order by x.created_at desc, x.moment_id desc limit p_limit offset p_offset;
      if not found then
        id := null; total := n; return next;
      end if;
      return;
    end if;
  end if;
  return query select * from moment_search_page_entries(p_campaign, p_query, p_like, p_limit, p_offset);
end $$;

create or replace function moment_search_page_entries(p_campaign text, p_query text, p_like text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  lq text := lower(p_query);
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  word_hi text;
  hi text;
  n int;
begin
  r := substr(lq, coalesce(length(a), 0) + 1);
  if a is null or length(a) > 200 or length(r) > 32 or (r = '' and length(a) < 3) then
    -- The trigram index (0039).
    return query
      select m.id, (select count(*) from moments c where c.campaign_id = p_campaign and c.label ilike p_like)::int
      from moments m where m.campaign_id = p_campaign and m.label ilike p_like
      order by m.created_at desc, m.id desc limit p_limit offset p_offset;
    if not found then
      select count(*)::int into n from moments c where c.campaign_id = p_campaign and c.label ilike p_like;
      id := null; total := n; return next;
    end if;
    return;
  end if;
  -- The vocabulary's words ending with a (a rest follows: the suffix a) or holding it (a suffix starting with a).
  word_hi := case when r = '' then a || chr(1114111) else a end;
  hi := r || repeat(chr(1114111), 32 - length(r));
  return query
    with m as (
      select e.moment_id, e.created_at
      from (select distinct s.word from search_word_suffixes s
            where s.kind = 'moment' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C") v
      join moment_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      union
      select e.moment_id, e.created_at
      from moment_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select m.label ilike p_like from moments m where m.id = e.moment_id)
    )
    select m.moment_id, (count(*) over ())::int from m order by m.created_at desc, m.moment_id desc limit p_limit offset p_offset;
  if not found then
    select count(*)::int into n from (
      select e.moment_id from (select distinct s.word from search_word_suffixes s
            where s.kind = 'moment' and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C") v
      join moment_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      union
      select e.moment_id from moment_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select m.label ilike p_like from moments m where m.id = e.moment_id)) m;
    id := null; total := n; return next;
  end if;
end $$;

create or replace function recap_search_page(p_campaign text, p_kind text, p_query text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text := substr(lower(p_query), coalesce(length(substring(lower(p_query) from '^[[:alnum:]]+')), 0) + 1);
  ws text[];
  word_hi text;
  vw text;
  n int;
begin
  if a is null or length(a) > 200 or length(r) > 3 or (r = '' and length(a) < 3)
     or exists (select 1 from recap_search_heads h where h.campaign_id = p_campaign and h.kind = p_kind collate "C" and h.word = '' and h.head = '') then
    id := null; total := -1; return next; return;
  end if;
  -- The campaign's words ending with a (a rest follows: the suffix a) or holding it (suffixes
  -- starting with a), up to 9: its suffixes read in order until a ninth distinct word.
  word_hi := case when r = '' then a || chr(1114111) else a end;
  for vw in select s.word from search_word_suffixes s
            where s.kind = p_kind collate "C" and s.campaign_id = p_campaign and s.suffix >= a collate "C" and s.suffix <= word_hi collate "C" loop
    if ws is null or not vw = any (ws) then
      ws := ws || vw;
      exit when cardinality(ws) > 8;
    end if;
  end loop;
  if coalesce(cardinality(ws), 0) > 8 then
    id := null; total := -1; return next; return;
  end if;
  if ws is null then
    n := 0;
  elsif cardinality(ws) = 1 then
    select coalesce(sum(c.n), 0)::int into n from search_head_counts c
    where c.kind = p_kind collate "C" and c.campaign_id = p_campaign and c.word = ws[1] collate "C" and c.head = r collate "C";
  else
    -- A card may hold several of the words: the distinct cards of their ranges (grows with the matches).
    select count(*)::int into n from (
      select distinct h.card_id from recap_search_heads h
      where h.campaign_id = p_campaign and h.kind = p_kind collate "C" and h.word = any (ws::text[] collate "C") and h.head = r collate "C") m;
  end if;
  -- A card in the page is among its word's first p_offset + p_limit rows: each range read that far.
  return query
    select x.card_id, n from (
      select distinct s.card_id, s.order_index, s.created_at
      from unnest(ws) w(word),
        lateral (select h.card_id, h.order_index, h.created_at from recap_search_heads h
                 where h.campaign_id = p_campaign and h.kind = p_kind collate "C" and h.word = w.word collate "C" and h.head = r collate "C"
                 order by h.order_index, h.created_at, h.card_id limit p_offset + p_limit) s
    ) x
    order by x.order_index, x.created_at, x.card_id limit p_limit offset p_offset;
  if not found then
    id := null; total := n; return next;
  end if;
end $$;
