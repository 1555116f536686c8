-- Hero award and quote/spotlight search by campaign, bounded by the page (issue 15). 0051's trigram
-- index found the candidates, then each field was tested and the matches read twice (the page, then
-- its count): at 100k awards "award 12" read 1,111 rows twice (4.2-4.8 ms of PostgreSQL CPU, loaded).
-- 0050's design for quests: per card and per word w of each searched field (quest_search_heads_of: the
-- run of letters and digits of lower(field), and the first 0 to 3 characters after it, within that
-- field), one row (card, w, head) keyed in the list's order (order_index, created_at, id). A query
-- a + r (a its leading letters and digits, r of at most 3 characters) is a substring of a field
-- exactly when the field has a word ending with a (r not empty) or holding a (r empty) whose head of
-- length(r) is r; heads are computed field by field, so a phrase spanning two fields has none.
-- kind: 'award' for hero_awards, the entry_type ('quote', 'spotlight') for recap_entries.
create table recap_search_heads (
  campaign_id text not null,
  kind text collate "C" not null,
  word text collate "C" not null,
  head text collate "C" not null,
  order_index int not null,
  created_at timestamptz not null,
  card_id text not null
);

-- Every word a campaign's cards of a kind have held (never pruned, as quest_search_words): the
-- words matching `%a` or `%a%` through the trigram index, then each word's range of heads.
create table recap_search_words (
  campaign_id text not null,
  kind text collate "C" not null,
  word text collate "C" not null,
  primary key (campaign_id, kind, word)
);
create index recap_search_words_trgm on recap_search_words using gin (word gin_trgm_ops) with (fastupdate = off);

-- How many cards of a kind hold each (word, head): 0052's slotted counters (search_head_counts, kinds
-- 'award', 'quote', 'spotlight' beside its 'moment'), added to by 0052's search_head_counts_add.

-- A card's (word, head) pairs over its fields, each once (0050's quest_search_heads_of per field), and
-- the marker ('', '') when a field has a word over 200 characters (left out of the heads): a kind of a
-- campaign with a marker keeps 0051's path.
create function recap_search_heads_of(f text[]) returns table (word text, head text) language sql immutable parallel safe as $$
  select h.word, h.head from unnest(f) t, quest_search_heads_of(t) h
  union
  select '', '' where exists (select 1 from unnest(f) t where lower(t) ~ '[[:alnum:]]{201}')
$$;

-- A card as the heads see it: the fields searched, in no particular order.
create type recap_search_card as (id text, campaign_id text, kind text, order_index int, created_at timestamptz, f text[]);

-- Statement triggers (transition tables), as 0050's: an update rewrites a card's heads only when a
-- searched field, its kind, place in the list, creation time or campaign changed. One function for
-- both tables (plpgsql plans a trigger function per table: each branch only on its own).
create function recap_search_heads_track() returns trigger language plpgsql as $$
declare
  olds recap_search_card[];
  news recap_search_card[];
  g_c text[]; g_k text[]; g_w text[]; g_h text[];
  a_c text[]; a_k text[]; a_w text[]; a_h text[];
  d int[];
  kk text;
begin
  if TG_TABLE_NAME = 'hero_awards' then
    if TG_OP <> 'INSERT' then
      select array_agg(row(o.id, o.campaign_id, 'award', o.order_index, o.created_at, array[o.title, o.description, o.character_name])::recap_search_card) into olds from old_rows o;
    end if;
    if TG_OP <> 'DELETE' then
      select array_agg(row(n.id, n.campaign_id, 'award', n.order_index, n.created_at, array[n.title, n.description, n.character_name])::recap_search_card) into news from new_rows n;
    end if;
  else
    if TG_OP <> 'INSERT' then
      select array_agg(row(o.id, o.campaign_id, o.entry_type, o.order_index, o.created_at, array[o.text, o.title, o.description, o.character_name, o.speaker])::recap_search_card) into olds from old_rows o;
    end if;
    if TG_OP <> 'DELETE' then
      select array_agg(row(n.id, n.campaign_id, n.entry_type, n.order_index, n.created_at, array[n.text, n.title, n.description, n.character_name, n.speaker])::recap_search_card) into news from new_rows n;
    end if;
  end if;
  if TG_OP = 'UPDATE' then
    -- Only the cards whose heads change.
    select array_agg(o) filter (where (o).id is not null), array_agg(n) filter (where (n).id is not null) into olds, news from (
      select o, n from unnest(olds) o full join unnest(news) n on n.id = o.id
      where (n.campaign_id, n.kind, n.order_index, n.created_at, n.f) is distinct from (o.campaign_id, o.kind, o.order_index, o.created_at, o.f)) x;
  end if;
  if olds is not null then
    with gone as (
      delete from recap_search_heads s
      using unnest(olds) o, recap_search_heads_of(o.f) w
      where s.campaign_id = o.campaign_id and s.kind = o.kind and s.word = w.word and s.head = w.head
        and s.order_index = o.order_index and s.created_at = o.created_at and s.card_id = o.id
      returning s.campaign_id, s.kind, s.word, s.head
    )
    select array_agg(campaign_id), array_agg(kind), array_agg(word), array_agg(head) into g_c, g_k, g_w, g_h from gone;
  end if;
  if news is not null then
    -- A second statement: within the delete's, this insert would not see its work.
    with added as (
      insert into recap_search_heads (campaign_id, kind, word, head, order_index, created_at, card_id)
      select n.campaign_id, n.kind, w.word, w.head, n.order_index, n.created_at, n.id from unnest(news) n, recap_search_heads_of(n.f) w
      returning campaign_id, kind, word, head
    ), vocabulary as (
      insert into recap_search_words (campaign_id, kind, word)
      select distinct campaign_id, kind, word from added where word <> '' order by 1, 2, 3 on conflict do nothing
    )
    select array_agg(campaign_id), array_agg(kind), array_agg(word), array_agg(head) into a_c, a_k, a_w, a_h from added;
  end if;
  -- The rows gone and added, netted per key by search_head_counts_add, once per kind (a statement on
  -- recap_entries may hold quotes and spotlights).
  if g_w is not null or a_w is not null then
    d := array_fill(-1, array[coalesce(cardinality(g_w), 0)]) || array_fill(1, array[coalesce(cardinality(a_w), 0)]);
    g_c := coalesce(g_c, '{}') || coalesce(a_c, '{}');
    g_k := coalesce(g_k, '{}') || coalesce(a_k, '{}');
    g_w := coalesce(g_w, '{}') || coalesce(a_w, '{}');
    g_h := coalesce(g_h, '{}') || coalesce(a_h, '{}');
    for kk in select distinct x from unnest(g_k) x order by 1 loop
      perform search_head_counts_add(kk, array_agg(u.uc), array_agg(u.uw), array_agg(u.uh), array_agg(u.ud))
      from unnest(g_c, g_k, g_w, g_h, d) u(uc, uk, uw, uh, ud) where u.uk = kk;
    end loop;
  end if;
  return null;
end $$;

create trigger recap_search_heads_insert after insert on hero_awards referencing new table as new_rows for each statement execute function recap_search_heads_track();
create trigger recap_search_heads_delete after delete on hero_awards referencing old table as old_rows for each statement execute function recap_search_heads_track();
create trigger recap_search_heads_update after update on hero_awards referencing old table as old_rows new table as new_rows for each statement execute function recap_search_heads_track();
create trigger recap_search_heads_insert after insert on recap_entries referencing new table as new_rows for each statement execute function recap_search_heads_track();
create trigger recap_search_heads_delete after delete on recap_entries referencing old table as old_rows for each statement execute function recap_search_heads_track();
create trigger recap_search_heads_update after update on recap_entries referencing old table as old_rows new table as new_rows for each statement execute function recap_search_heads_track();

insert into recap_search_heads (campaign_id, kind, word, head, order_index, created_at, card_id)
select a.campaign_id, 'award', w.word, w.head, a.order_index, a.created_at, a.id
from hero_awards a, recap_search_heads_of(array[a.title, a.description, a.character_name]) w;
insert into recap_search_heads (campaign_id, kind, word, head, order_index, created_at, card_id)
select e.campaign_id, e.entry_type, w.word, w.head, e.order_index, e.created_at, e.id
from recap_entries e, recap_search_heads_of(array[e.text, e.title, e.description, e.character_name, e.speaker]) w;
insert into search_head_counts (kind, campaign_id, word, head, slot, n)
select kind, campaign_id, word, head, 0, count(*)::int from recap_search_heads group by 1, 2, 3, 4;
insert into recap_search_words (campaign_id, kind, word)
select distinct campaign_id, kind, word from recap_search_heads where word <> '';
-- Built after the rows (compact, as 0050's).
alter table recap_search_heads add primary key (campaign_id, kind, word, head, order_index, created_at, card_id);

-- A page of a card search by campaign and its exact total: (id, total) per card of the page in list
-- order, one row (null, total) when the page is empty, or one row (null, -1) when the heads cannot
-- answer (the caller then takes 0051's path): a query not starting with a letter or digit, a rest over
-- 3 characters, a lone word under 3, a word over 200, over 8 vocabulary words, or a marker.
create function recap_search_page(p_campaign text, p_kind text, p_query text, p_limit int, p_offset int)
returns table (id text, total int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set jit = off as $$
declare
  a text := substring(lower(p_query) from '^[[:alnum:]]+');
  r text := substr(lower(p_query), coalesce(length(substring(lower(p_query) from '^[[:alnum:]]+')), 0) + 1);
  ws text[];
  n int;
begin
  if a is null or length(a) > 200 or length(r) > 3 or (r = '' and length(a) < 3)
     or exists (select 1 from recap_search_heads h where h.campaign_id = p_campaign and h.kind = p_kind collate "C" and h.word = '' and h.head = '') then
    id := null; total := -1; return next; return;
  end if;
  -- The vocabulary's words ending with a (a rest follows) or holding it; a has no LIKE wildcard.
  select array_agg(v.word) into ws from (
    select v.word from recap_search_words v
    where v.campaign_id = p_campaign and v.kind = p_kind collate "C" and v.word like (case when r = '' then '%' || a || '%' else '%' || a end) limit 9) v;
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
