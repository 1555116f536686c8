-- Hero award and quote/spotlight search (`search`: a substring of title, description, character
-- name; of text, title, description, character name, speaker for recap entries) read every card of
-- the campaign and tested each field (issue 15; 10k awards: 10,000 rows a request, 11 ms of
-- PostgreSQL CPU). One trigram index per table over its searched fields joined by a space: a
-- substring of a field is a substring of the join, so `join ilike p` finds every match (the
-- adapter keeps the per-field test for the exact answer: a match that spans two fields is not one).
-- One index, not one per field: a page's count would OR five bitmaps. As 0039, a small pending list.
create index hero_awards_search_trgm on hero_awards
  using gin ((title || ' ' || description || ' ' || character_name) gin_trgm_ops) with (gin_pending_list_limit = 64);
create index recap_entries_search_trgm on recap_entries
  using gin ((coalesce(text, '') || ' ' || coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(character_name, '') || ' ' || coalesce(speaker, '')) gin_trgm_ops)
  with (gin_pending_list_limit = 64);

-- Moment search (`search`: `label ilike '%…%'`) counted its total from the trigram index (0039), a
-- table row read and rechecked per match, and found them twice (the page, then its count): at 100k
-- moments "moment 12" read 1,111 rows twice (6 ms a request). The matches now come from the
-- labels' word starts, as quests' do (0046, whose reasoning and entry function are reused): a btree
-- of (word, the 32 characters after it) per run of letters and digits of lower(label), read
-- index-only, with created_at riding along for the list's order (newest first).
create table moment_search_entries (
  campaign_id text not null,
  word text collate "C" not null,
  tail text collate "C" not null,
  moment_id text not null,
  created_at timestamptz not null,
  primary key (campaign_id, word, tail, moment_id) include (created_at)
);
-- Every word a campaign's moment labels have held (never pruned, as quest_search_words).
create table moment_search_words (
  campaign_id text not null,
  word text collate "C" not null,
  primary key (campaign_id, word)
);
create index moment_search_words_trgm on moment_search_words using gin (word gin_trgm_ops) with (fastupdate = off);

-- A statement's moments' entries (transition tables). An update rewrites a moment's entries only
-- when its label, creation time or campaign changed.
create function moment_search_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    delete from moment_search_entries s
    using old_rows o, quest_search_entries_of(o.label) w
    where s.campaign_id = o.campaign_id and s.word = w.word and s.tail = w.tail and s.moment_id = o.id;
    return null;
  end if;
  if TG_OP = 'UPDATE' then
    delete from moment_search_entries s
    using old_rows o join new_rows n on n.id = o.id
            and (n.campaign_id <> o.campaign_id or n.label is distinct from o.label or n.created_at <> o.created_at),
          quest_search_entries_of(o.label) w
    where s.campaign_id = o.campaign_id and s.word = w.word and s.tail = w.tail and s.moment_id = o.id;
    with added as (
      select n.campaign_id, w.word, w.tail, n.id as moment_id, n.created_at
      from old_rows o join new_rows n on n.id = o.id
             and (n.campaign_id <> o.campaign_id or n.label is distinct from o.label or n.created_at <> o.created_at),
           lateral (select distinct * from quest_search_entries_of(n.label)) w
    ), entries as (
      insert into moment_search_entries (campaign_id, word, tail, moment_id, created_at)
      select campaign_id, word, tail, moment_id, created_at from added
    )
    insert into moment_search_words (campaign_id, word)
    select distinct campaign_id, word from added where word <> '' order by 1, 2 on conflict do nothing;
    return null;
  end if;
  with added as (
    select n.campaign_id, w.word, w.tail, n.id as moment_id, n.created_at
    from new_rows n, lateral (select distinct * from quest_search_entries_of(n.label)) w
  ), entries as (
    insert into moment_search_entries (campaign_id, word, tail, moment_id, created_at)
    select campaign_id, word, tail, moment_id, created_at from added
  )
  insert into moment_search_words (campaign_id, word)
  select distinct campaign_id, word from added where word <> '' order by 1, 2 on conflict do nothing;
  return null;
end $$;

create trigger moment_search_insert after insert on moments referencing new table as new_rows for each statement execute function moment_search_track();
create trigger moment_search_delete after delete on moments referencing old table as old_rows for each statement execute function moment_search_track();
create trigger moment_search_update after update on moments referencing old table as old_rows new table as new_rows for each statement execute function moment_search_track();

insert into moment_search_entries (campaign_id, word, tail, moment_id, created_at)
select m.campaign_id, w.word, w.tail, m.id, m.created_at from moments m, lateral (select distinct * from quest_search_entries_of(m.label)) w;
insert into moment_search_words (campaign_id, word)
select distinct campaign_id, word from moment_search_entries where word <> '' on conflict do nothing;

-- A page of a moment search and its exact total: (id, total) per moment of the page, newest first
-- (created_at desc, id desc), or one row (null, total) when the page is empty. p_like is the query as
-- the `ilike` pattern (escaped, between %), for the fallback and the marker check (0046's rules).
create function moment_search_page(p_campaign text, p_query text, p_like text, p_limit int, p_offset int)
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
  words := case when r = '' then '%' || a || '%' else '%' || a end;
  hi := r || repeat(chr(1114111), 32 - length(r));
  return query
    with m as (
      select e.moment_id, e.created_at
      from moment_search_words v
      join moment_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      where v.campaign_id = p_campaign and v.word like words
      union
      select e.moment_id, e.created_at
      from moment_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select m.label ilike p_like from moments m where m.id = e.moment_id)
    )
    select m.moment_id, (count(*) over ())::int from m order by m.created_at desc, m.moment_id desc limit p_limit offset p_offset;
  if not found then
    select count(*)::int into n from (
      select e.moment_id from moment_search_words v
      join moment_search_entries e on e.campaign_id = p_campaign and e.word = v.word and e.tail >= r and e.tail <= hi
      where v.campaign_id = p_campaign and v.word like words
      union
      select e.moment_id from moment_search_entries e
      where e.campaign_id = p_campaign and e.word = '' and e.tail = ''
        and (select m.label ilike p_like from moments m where m.id = e.moment_id)) m;
    id := null; total := n; return next;
  end if;
end $$;
