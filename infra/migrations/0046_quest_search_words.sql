-- Quest search (`search`: `search_text ilike '%…%'`, a substring of name, giver and the narrative
-- fields) counted its total from the trigram index, a table row read and rechecked per match, and
-- walked the quest log in order to its page's last match (issue 15; 100k, "quest 12": 1,111
-- matches counted, 1,208 rows walked). The matches now come from a btree of word starts, read
-- index-only: for each run of letters and digits ("word") of lower(search_text), the word and the
-- 32 characters after it. On PostgreSQL (UTF-8) `ilike` is `lower(text) like lower(pattern)`, so a
-- query q (lowercased) whose first character is a letter or digit splits into its first word a and
-- the rest r (empty, or starting with another character):
--   * r not empty: a match starts inside or at the start of a word w of the text that ends with a
--     (the next character is r's first, not a letter or digit), so its entry is (w, r…). The words
--     ending with a come from the campaign's vocabulary (trigram index), then each word's entries
--     whose tail starts with r: a range of the key.
--   * r empty: the matches are the records holding a word that contains a: those words' entries.
-- A word over 200 characters is not kept (a btree key is at most ~2.7 kB): its record gets a marker
-- entry ('', '') and is checked on its row. Queries the entries cannot answer (first character not a
-- letter or digit, a rest over 32 characters, one word under 3 characters) keep the trigram index.
-- order_index and created_at ride along, so the page is sorted from the index too.
create table quest_search_entries (
  campaign_id text not null,
  word text collate "C" not null,
  tail text collate "C" not null,
  quest_id text not null,
  order_index int not null,
  created_at timestamptz not null,
  primary key (campaign_id, word, tail, quest_id) include (order_index, created_at)
);

-- Every word a campaign's quests have held (never pruned, as search_vocabulary, 0025: pruning would
-- race a concurrent writer adding the word again; a word no quest holds finds no entries).
create table quest_search_words (
  campaign_id text not null,
  word text collate "C" not null,
  primary key (campaign_id, word)
);
-- No pending list (0036): nothing vacuums it without autovacuum, and every lookup would read it.
create index quest_search_words_trgm on quest_search_words using gin (word gin_trgm_ops) with (fastupdate = off);

-- A text's entries: each word (a run of [[:alnum:]] of the lowercased text) with the 32 characters
-- after it; a word over 200 characters gives the marker ('', '') instead. A word repeated with the
-- same tail comes out again (its writers take distinct rows). A loop: as one SQL statement (a window
-- over the words) it cost twice as much per quest.
create function quest_search_entries_of(t text) returns table (word text, tail text) language plpgsql immutable parallel safe as $$
declare
  s text := lower(t);
  m text[];
  pos int := 1;
begin
  for m in select regexp_matches(s, '([^[:alnum:]]*)([[:alnum:]]+)', 'g') loop
    pos := pos + length(m[1]) + length(m[2]);
    if length(m[2]) > 200 then word := ''; tail := ''; else word := m[2]; tail := substr(s, pos, 32); end if;
    return next;
  end loop;
end $$;

-- A statement's quests' entries (transition tables). An update rewrites a quest's entries only when
-- its text, place in the log, creation time or campaign changed (a status or category change writes
-- nothing). Old entries are found from the old text, as search_terms_track does from the old vector.
create function quest_search_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    delete from quest_search_entries s
    using old_rows o, quest_search_entries_of(o.search_text) w
    where s.campaign_id = o.campaign_id and s.word = w.word and s.tail = w.tail and s.quest_id = o.id;
    return null;
  end if;
  if TG_OP = 'UPDATE' then
    -- Two statements: within one, an insert would not see the delete's work.
    delete from quest_search_entries s
    using old_rows o join new_rows n on n.id = o.id
            and (n.campaign_id <> o.campaign_id or n.search_text <> o.search_text or n.order_index <> o.order_index or n.created_at <> o.created_at),
          quest_search_entries_of(o.search_text) w
    where s.campaign_id = o.campaign_id and s.word = w.word and s.tail = w.tail and s.quest_id = o.id;
    with added as (
      select n.campaign_id, w.word, w.tail, n.id as quest_id, n.order_index, n.created_at
      from old_rows o join new_rows n on n.id = o.id
             and (n.campaign_id <> o.campaign_id or n.search_text <> o.search_text or n.order_index <> o.order_index or n.created_at <> o.created_at),
           lateral (select distinct * from quest_search_entries_of(n.search_text)) w
    ), entries as (
      insert into quest_search_entries (campaign_id, word, tail, quest_id, order_index, created_at)
      select campaign_id, word, tail, quest_id, order_index, created_at from added
    )
    insert into quest_search_words (campaign_id, word)
    select distinct campaign_id, word from added where word <> '' order by 1, 2 on conflict do nothing;
    return null;
  end if;
  with added as (
    select n.campaign_id, w.word, w.tail, n.id as quest_id, n.order_index, n.created_at
    from new_rows n, lateral (select distinct * from quest_search_entries_of(n.search_text)) w
  ), entries as (
    insert into quest_search_entries (campaign_id, word, tail, quest_id, order_index, created_at)
    select campaign_id, word, tail, quest_id, order_index, created_at from added
  )
  insert into quest_search_words (campaign_id, word)
  select distinct campaign_id, word from added where word <> '' order by 1, 2 on conflict do nothing;
  return null;
end $$;

create trigger quest_search_insert after insert on quests referencing new table as new_rows for each statement execute function quest_search_track();
create trigger quest_search_delete after delete on quests referencing old table as old_rows for each statement execute function quest_search_track();
create trigger quest_search_update after update on quests referencing old table as old_rows new table as new_rows for each statement execute function quest_search_track();

insert into quest_search_entries (campaign_id, word, tail, quest_id, order_index, created_at)
select q.campaign_id, w.word, w.tail, q.id, q.order_index, q.created_at from quests q, lateral (select distinct * from quest_search_entries_of(q.search_text)) w;
insert into quest_search_words (campaign_id, word)
select distinct campaign_id, word from quest_search_entries where word <> '' on conflict do nothing;

-- A page of a quest search and its exact total: (id, total) per quest of the page in log order
-- (order_index, created_at, id), or one row (null, total) when the page is empty. p_like is the
-- query as the old `ilike` pattern (escaped, between %), which the fallback and the marker check use.
create function quest_search_page(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  lq text := lower(p_query);
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  words text;
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
  -- The vocabulary's words ending with a (a rest follows) or holding it; a has no LIKE wildcard.
  words := case when r = '' then '%' || a || '%' else '%' || a end;
  -- Every tail starting with r is at most this (tails are at most 32 characters; U+10FFFF sorts last in "C").
  hi := r || repeat(chr(1114111), 32 - length(r));
  return query
    with m as (
      select e.quest_id, e.order_index, e.created_at
      from quest_search_words v
      join quest_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      where v.campaign_id = p_campaign and v.word like words
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
      select e.quest_id from quest_search_words v
      join quest_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      where v.campaign_id = p_campaign and v.word like words
      union
      select e.quest_id from quest_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select q.search_text ilike p_like from quests q where q.id = e.quest_id)) m
    where (p_status is null and p_category is null)
       or (select (p_status is null or q.status = p_status) and (p_category is null or q.quest_category = p_category) from quests q where q.id = m.quest_id);
    id := null; total := n; return next;
  end if;
end $$;
