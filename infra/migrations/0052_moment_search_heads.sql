-- Moment search's page read from the matches newest first (issue 15), 0050's design for quests.
-- 0051 read every matching entry of moment_search_entries (keyed by word and tail, not by creation
-- time), then found the distinct moments (a union), counted them (a window over every row) and sorted
-- them for the page: at 100k, "moment 12" read 1,111 entries for 20 rows.
-- Now, for each moment and each word of its label, the heads (0050's quest_search_heads_of: the
-- word's tail cut to 0 to 3 characters) in the list's order, and a counter per (word, head): the page
-- is the first rows of an index range per word, the total one counter when one word applies.
create table moment_search_heads (
  campaign_id text not null,
  word text collate "C" not null,
  head text collate "C" not null,
  created_at timestamptz not null,
  moment_id text not null
);

-- 0050's slotted counters with a kind in the key (quest_search_head_counts_add is tied to its table):
-- how many records of a kind hold each (word, head), split in up to 8 rows per key so that concurrent
-- writers of a campaign (a transcript's moments in bulk, "moment" in most labels) do not queue on one.
create table search_head_counts (
  kind text collate "C" not null,
  campaign_id text not null,
  word text collate "C" not null,
  head text collate "C" not null,
  slot int not null,
  n int not null,
  primary key (kind, campaign_id, word, head, slot)
);
alter table search_head_counts set (fillfactor = 70);

-- As quest_search_head_counts_add (0050, whose reasoning holds): each delta added to its key's slot
-- (pg_backend_pid() % 8) in key order; a slot at 0 deleted; one below 0 takes in the key's other
-- slots that no writer holds (skip locked: never a wait).
create function search_head_counts_add(p_kind text, p_campaign text[], p_word text[], p_head text[], p_delta int[]) returns void language plpgsql as $$
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
    insert into search_head_counts as c (kind, campaign_id, word, head, slot, n)
    select p_kind, d.campaign_id, d.word, d.head, s, sum(d.delta)::int
    from unnest(p_campaign, p_word, p_head, p_delta) d(campaign_id, word, head, delta)
    group by 2, 3, 4 having sum(d.delta) <> 0 order by 2, 3, 4
    on conflict (kind, campaign_id, word, head, slot) do update set n = c.n + excluded.n
    returning c.campaign_id, c.word, c.head, c.n
  )
  select array_agg(campaign_id), array_agg(word), array_agg(head), array_agg(n) into z_campaign, z_word, z_head, z_n from changed where n <= 0;
  for i in 1 .. coalesce(cardinality(z_word), 0) loop
    cur := z_n[i];
    if cur < 0 then
      with taken as (
        delete from search_head_counts c
        where c.kind = p_kind and c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot in (
          select o.slot from search_head_counts o
          where o.kind = p_kind and o.campaign_id = z_campaign[i] and o.word = z_word[i] collate "C" and o.head = z_head[i] collate "C" and o.slot <> s
          for update skip locked)
        returning c.n
      )
      select coalesce(sum(n), 0) into moved from taken;
      cur := cur + moved;
      if moved <> 0 and cur <> 0 then
        update search_head_counts c set n = cur
        where c.kind = p_kind and c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot = s;
      end if;
    end if;
    if cur = 0 then
      delete from search_head_counts c
      where c.kind = p_kind and c.campaign_id = z_campaign[i] and c.word = z_word[i] collate "C" and c.head = z_head[i] collate "C" and c.slot = s;
    end if;
  end loop;
end $$;

-- Kept by statement triggers as 0051's entries: an update rewrites a moment's heads only when its
-- label, creation time or campaign changed; gone and added rows netted per key into the counters.
create function moment_search_heads_track() returns trigger language plpgsql as $$
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
      delete from moment_search_heads s
      using old_rows o, quest_search_heads_of(o.label) w
      where s.campaign_id = o.campaign_id and s.word = w.word and s.head = w.head and s.created_at = o.created_at and s.moment_id = o.id
      returning s.campaign_id, s.word, s.head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into g_campaign, g_word, g_head from gone;
  elsif TG_OP = 'UPDATE' then
    with gone as (
      delete from moment_search_heads s
      using old_rows o join new_rows n on n.id = o.id
              and (n.campaign_id <> o.campaign_id or n.label is distinct from o.label or n.created_at <> o.created_at),
            quest_search_heads_of(o.label) w
      where s.campaign_id = o.campaign_id and s.word = w.word and s.head = w.head and s.created_at = o.created_at and s.moment_id = o.id
      returning s.campaign_id, s.word, s.head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into g_campaign, g_word, g_head from gone;
    -- A second statement: within the delete's, this insert would not see its work.
    with added as (
      insert into moment_search_heads (campaign_id, word, head, created_at, moment_id)
      select n.campaign_id, w.word, w.head, n.created_at, n.id
      from old_rows o join new_rows n on n.id = o.id
             and (n.campaign_id <> o.campaign_id or n.label is distinct from o.label or n.created_at <> o.created_at),
           quest_search_heads_of(n.label) w
      returning campaign_id, word, head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into a_campaign, a_word, a_head from added;
  else
    with added as (
      insert into moment_search_heads (campaign_id, word, head, created_at, moment_id)
      select n.campaign_id, w.word, w.head, n.created_at, n.id from new_rows n, quest_search_heads_of(n.label) w
      returning campaign_id, word, head
    )
    select array_agg(campaign_id), array_agg(word), array_agg(head) into a_campaign, a_word, a_head from added;
  end if;
  if g_word is not null or a_word is not null then
    perform search_head_counts_add('moment',
      coalesce(g_campaign, '{}') || coalesce(a_campaign, '{}'), coalesce(g_word, '{}') || coalesce(a_word, '{}'),
      coalesce(g_head, '{}') || coalesce(a_head, '{}'),
      array_fill(-1, array[coalesce(cardinality(g_word), 0)]) || array_fill(1, array[coalesce(cardinality(a_word), 0)]));
  end if;
  return null;
end $$;

create trigger moment_search_heads_insert after insert on moments referencing new table as new_rows for each statement execute function moment_search_heads_track();
create trigger moment_search_heads_delete after delete on moments referencing old table as old_rows for each statement execute function moment_search_heads_track();
create trigger moment_search_heads_update after update on moments referencing old table as old_rows new table as new_rows for each statement execute function moment_search_heads_track();

insert into moment_search_heads (campaign_id, word, head, created_at, moment_id)
select m.campaign_id, w.word, w.head, m.created_at, m.id from moments m, quest_search_heads_of(m.label) w;
insert into search_head_counts (kind, campaign_id, word, head, slot, n)
select 'moment', campaign_id, word, head, 0, count(*)::int from moment_search_heads group by 2, 3, 4;
-- Built after the rows (compact, as 0050's). Read backward: newest first.
alter table moment_search_heads add primary key (campaign_id, word, head, created_at, moment_id);

-- 0051's function stays whole, called for what the heads do not answer: a rest after the first word
-- over 3 characters, 9 or more vocabulary words, a campaign with a label word over 200 characters
-- (0051's marker entries), and the queries it sends to the trigram index.
alter function moment_search_page(text, text, text, int, int) rename to moment_search_page_entries;

create function moment_search_page(p_campaign text, p_query text, p_like text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text;
  n int;
  ws text[];
begin
  r := substr(lower(p_query), coalesce(length(a), 0) + 1);
  if a is not null and length(a) <= 200 and length(r) <= 3 and (r <> '' or length(a) >= 3)
     and not exists (select 1 from moment_search_entries e where e.campaign_id = p_campaign and e.word = '' and e.tail = '') then
    -- The vocabulary's words ending with a (a rest follows) or holding it; a has no LIKE wildcard.
    select array_agg(v.word) into ws from (
      select v.word from moment_search_words v
      where v.campaign_id = p_campaign and v.word like (case when r = '' then '%' || a || '%' else '%' || a end) limit 9) v;
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
