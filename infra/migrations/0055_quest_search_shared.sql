-- Quests' search onto the shape moments' (0052) and recap cards' (0053) took after it; nothing a search
-- returns changes, and no plan.
-- 1. 0050 re-declared quest_search_page with a copy of 0046's whole body as its fallback. 0046's function
--    comes back whole as quest_search_page_entries (as 0052 kept 0051's as moment_search_page_entries),
--    and quest_search_page is 0050's heads path calling it for everything else.
-- 2. 0050's own counters (quest_search_head_counts, quest_search_head_counts_add) move into 0052's
--    search_head_counts as kind 'quest': the same slots (pg_backend_pid() % 8), the same sums per key.

-- Nothing writes quests while the counters move (a writer's trigger would add to the old table after
-- its rows were copied, and be lost with it).
lock table quests in share row exclusive mode;

create function quest_search_page_entries(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
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

-- 0050's function with its fallback (0046's path) called instead of copied: the heads for a rest of at
-- most 3 characters after a first word (of 3 or more characters when alone, of at most 200), no status or
-- category filter, at most 8 vocabulary words and no marker entry in the campaign.
create or replace function quest_search_page(p_campaign text, p_query text, p_like text, p_status text, p_category text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  words text;
  n int;
  ws text[];
begin
  r := substr(lower(p_query), coalesce(length(a), 0) + 1);
  if a is not null and length(a) <= 200 and length(r) <= 3 and (r <> '' or length(a) >= 3) and p_status is null and p_category is null
     and not exists (select 1 from quest_search_entries e where e.campaign_id = p_campaign and e.word = '' and e.tail = '') then
    -- The vocabulary's words ending with a (a rest follows) or holding it; a has no LIKE wildcard.
    words := case when r = '' then '%' || a || '%' else '%' || a end;
    select array_agg(v.word) into ws from (select v.word from quest_search_words v where v.campaign_id = p_campaign and v.word like words limit 9) v;
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

-- The counts, each key's slots summed into slot 0 (as 0050's and 0052's backfills wrote them); a key
-- whose slots summed to 0 (left by deletes on two connections at once) is no quest's and is not copied.
insert into search_head_counts (kind, campaign_id, word, head, slot, n)
select 'quest', campaign_id, word, head, 0, sum(n)::int from quest_search_head_counts group by campaign_id, word, head having sum(n) <> 0;

-- 0050's trigger function, adding to search_head_counts (kind 'quest') through 0052's function; its
-- triggers call it by name and stay.
create or replace function quest_search_heads_track() returns trigger language plpgsql as $$
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
  -- The rows gone and added, netted per key (a rename keeps most of its heads: no change to their counts),
  -- into 0052's shared counters as kind 'quest'.
  if g_word is not null or a_word is not null then
    perform search_head_counts_add('quest',
      coalesce(g_campaign, '{}') || coalesce(a_campaign, '{}'), coalesce(g_word, '{}') || coalesce(a_word, '{}'),
      coalesce(g_head, '{}') || coalesce(a_head, '{}'),
      array_fill(-1, array[coalesce(cardinality(g_word), 0)]) || array_fill(1, array[coalesce(cardinality(a_word), 0)]));
  end if;
  return null;
end $$;

drop function quest_search_head_counts_add(text[], text[], text[], int[]);
drop table quest_search_head_counts;
