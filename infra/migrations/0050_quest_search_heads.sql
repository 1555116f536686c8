-- Quest search's page read from the matches in log order (issue 15). 0046 read every matching entry
-- of quest_search_entries (keyed by word and tail, not by the log's order), then found the distinct
-- quests (a union), counted them (a window buffering every row) and sorted them for the page: at 100k,
-- "quest 12" read 1,111 entries for 20 rows, ~0.75 µs each.
-- Now, for each quest and each word w of its text (as quest_search_entries_of), the heads of w's
-- tails of 0 to 3 characters: one row per distinct (quest, word, head), keyed by the log's order.
-- A query a + r (0046's split) with r of at most 3 characters matches exactly the quests with a head
-- (w, r) for a word w ending with a (r not empty) or holding a (r empty): left(tail, length(r)) = r is
-- "tail starts with r", and a tail shorter than 3 gives itself as a head (equal to r only if it is r).
-- So the page is the first rows of an index range (a few words: each word's first rows, merged), and
-- the total is a counter per (word, head) when one word applies: no union, window or sort over the
-- matches, and nothing read per match but the page's rows.
create table quest_search_heads (
  campaign_id text not null,
  word text collate "C" not null,
  head text collate "C" not null,
  order_index int not null,
  created_at timestamptz not null,
  quest_id text not null
);

-- How many quests hold each (word, head): the sum of a key's rows. Every "Quest N" adds to ("quest", '')
-- and ("quest", ' '), every long text to ("the", ''): one row per key would queue concurrent writers of
-- a campaign on it until commit. So each key has up to 8 rows ("slot"), a writer adding to its
-- connection's slot (pg_backend_pid() % 8: the same in all of a transaction's statements); a slot may go
-- below 0 (a quest added on one connection, deleted on another) and is deleted at 0.
create table quest_search_head_counts (
  campaign_id text not null,
  word text collate "C" not null,
  head text collate "C" not null,
  slot int not null,
  n int not null,
  primary key (campaign_id, word, head, slot)
);
-- Short heads' rows are rewritten by most writes: room on each page keeps them HOT (as 0045).
alter table quest_search_head_counts set (fillfactor = 70);

-- Adds each delta to its key's slot, in key order (writers of one slot wait for each other in the
-- same order). A slot this statement brought to 0 is deleted; one brought below 0 (a quest counted
-- on another connection's slot, removed on this one's) takes in the key's other slots that no writer
-- holds (skip locked: never a wait), so a key whose quests are gone leaves no rows behind unless
-- another writer held one of its slots at that moment.
create function quest_search_head_counts_add(p_campaign text[], p_word text[], p_head text[], p_delta int[]) returns void language plpgsql as $$
declare
  s int := pg_backend_pid() % 8;
  z_campaign text[];
  z_word text[];
  z_head text[];
  z_n int[];
  moved int;
  cur int;
begin
  with changed as (
    insert into quest_search_head_counts as c (campaign_id, word, head, slot, n)
    select d.campaign_id, d.word, d.head, s, sum(d.delta)::int
    from unnest(p_campaign, p_word, p_head, p_delta) d(campaign_id, word, head, delta)
    group by 1, 2, 3 having sum(d.delta) <> 0 order by 1, 2, 3
    on conflict (campaign_id, word, head, slot) do update set n = c.n + excluded.n
    returning c.campaign_id, c.word, c.head, c.n
  )
  select array_agg(campaign_id), array_agg(word), array_agg(head), array_agg(n) into z_campaign, z_word, z_head, z_n from changed where n <= 0;
  -- By primary key: a join planned from the arrays' estimates could read the whole table.
  for i in 1 .. coalesce(cardinality(z_word), 0) loop
    cur := z_n[i];
    if cur < 0 then
      with taken as (
        delete from quest_search_head_counts c
        where c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot in (
          select o.slot from quest_search_head_counts o
          where o.campaign_id = z_campaign[i] and o.word = z_word[i] collate "C" and o.head = z_head[i] collate "C" and o.slot <> s
          for update skip locked)
        returning c.n
      )
      select coalesce(sum(n), 0) into moved from taken;
      cur := cur + moved;
      if moved <> 0 and cur <> 0 then
        update quest_search_head_counts c set n = cur
        where c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot = s;
      end if;
    end if;
    if cur = 0 then
      delete from quest_search_head_counts c
      where c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot = s;
    end if;
  end loop;
end $$;

-- A text's (word, head) pairs, each once. Words over 200 characters (0046's marker, '') are left out:
-- a campaign with a marker keeps 0046's path.
create function quest_search_heads_of(t text) returns table (word text, head text) language sql immutable parallel safe as $$
  select distinct e.word, left(e.tail, j) from quest_search_entries_of(t) e, generate_series(0, 3) j where e.word <> ''
$$;

-- Kept by statement triggers as 0046's entries: an update rewrites a quest's heads only when its text,
-- place in the log, creation time or campaign changed.
create function quest_search_heads_track() returns trigger language plpgsql as $$
declare
  g_campaign text[];
  g_word text[];
  g_head text[];
  a_campaign text[];
  a_word text[];
  a_head text[];
begin
  if TG_OP = 'DELETE' then
    with gone as (
      delete from quest_search_heads s
      using old_rows o, quest_search_heads_of(o.search_text) w
      where s.campaign_id = o.campaign_id and s.word = w.word and s.head = w.head
        and s.order_index = o.order_index and s.created_at = o.created_at and s.quest_id = o.id
      returning s.campaign_id, s.word, s.head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into g_campaign, g_word, g_head from gone;
  elsif TG_OP = 'UPDATE' then
    with gone as (
      delete from quest_search_heads s
      using old_rows o join new_rows n on n.id = o.id
              and (n.campaign_id <> o.campaign_id or n.search_text <> o.search_text or n.order_index <> o.order_index or n.created_at <> o.created_at),
            quest_search_heads_of(o.search_text) w
      where s.campaign_id = o.campaign_id and s.word = w.word and s.head = w.head
        and s.order_index = o.order_index and s.created_at = o.created_at and s.quest_id = o.id
      returning s.campaign_id, s.word, s.head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into g_campaign, g_word, g_head from gone;
    -- A second statement: within the delete's, this insert would not see its work.
    with added as (
      insert into quest_search_heads (campaign_id, word, head, order_index, created_at, quest_id)
      select n.campaign_id, w.word, w.head, n.order_index, n.created_at, n.id
      from old_rows o join new_rows n on n.id = o.id
             and (n.campaign_id <> o.campaign_id or n.search_text <> o.search_text or n.order_index <> o.order_index or n.created_at <> o.created_at),
           quest_search_heads_of(n.search_text) w
      returning campaign_id, word, head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into a_campaign, a_word, a_head from added;
  else
    with added as (
      insert into quest_search_heads (campaign_id, word, head, order_index, created_at, quest_id)
      select n.campaign_id, w.word, w.head, n.order_index, n.created_at, n.id from new_rows n, quest_search_heads_of(n.search_text) w
      returning campaign_id, word, head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into a_campaign, a_word, a_head from added;
  end if;
  -- The rows gone and added, netted per key (a rename keeps most of its heads: no change to their counts).
  if g_word is not null or a_word is not null then
    perform quest_search_head_counts_add(
      coalesce(g_campaign, '{}') || coalesce(a_campaign, '{}'), coalesce(g_word, '{}') || coalesce(a_word, '{}'),
      coalesce(g_head, '{}') || coalesce(a_head, '{}'),
      array_fill(-1, array[coalesce(cardinality(g_word), 0)]) || array_fill(1, array[coalesce(cardinality(a_word), 0)]));
  end if;
  return null;
end $$;

create trigger quest_search_heads_insert after insert on quests referencing new table as new_rows for each statement execute function quest_search_heads_track();
create trigger quest_search_heads_delete after delete on quests referencing old table as old_rows for each statement execute function quest_search_heads_track();
create trigger quest_search_heads_update after update on quests referencing old table as old_rows new table as new_rows for each statement execute function quest_search_heads_track();

insert into quest_search_heads (campaign_id, word, head, order_index, created_at, quest_id)
select q.campaign_id, w.word, w.head, q.order_index, q.created_at, q.id from quests q, quest_search_heads_of(q.search_text) w;
insert into quest_search_head_counts (campaign_id, word, head, slot, n)
select campaign_id, word, head, 0, count(*)::int from quest_search_heads group by 1, 2, 3;
-- Built after the rows (a compact index: inserted row by row, 171 MB with the table at 100k).
alter table quest_search_heads add primary key (campaign_id, word, head, order_index, created_at, quest_id);

-- 0046's function with the heads first: a rest of at most 3 characters, no status or category
-- filter, at most 8 vocabulary words and no marker entry in the campaign. Otherwise 0046's path, unchanged.
create or replace function quest_search_page(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  lq text := lower(p_query);
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  words text;
  hi text;
  n int;
  ws text[];
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
  if length(r) <= 3 and p_status is null and p_category is null
     and not exists (select 1 from quest_search_entries e where e.campaign_id = p_campaign and e.word = '' and e.tail = '') then
    select array_agg(v.word) into ws from (select v.word from quest_search_words v where v.campaign_id = p_campaign and v.word like words limit 9) v;
    if coalesce(cardinality(ws), 0) <= 8 then
      if ws is null then
        n := 0;
      elsif cardinality(ws) = 1 then
        -- One word: its counter (a quest holding the word twice with this head counts once).
        select coalesce(sum(c.n), 0)::int into n from quest_search_head_counts c
        where c.campaign_id = p_campaign and c.word = ws[1] collate "C" and c.head = r collate "C";
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
