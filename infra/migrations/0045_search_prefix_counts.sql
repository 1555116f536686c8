-- A character list search's exact total for one word without reading its matches (issue 15).
-- search_terms_count (0026) counted the records of the prefix's search_terms range (~250 index
-- entries for "vexq" at 100k per kind); with a type filter the text index's matches were read and
-- each row checked for the type (598 rows for "vexq" and PC). Both grew with the matches.
-- Now: one counter per (campaign, list, word prefix of 1 to 12 letters, type) = how many of the
-- list's characters of that type hold a word starting with the prefix. A record counts once per
-- prefix however many of its words start with it (its prefixes are a set), so the sum over the
-- lists and types asked is the exact total. Kept by statement triggers in the writing transaction
-- (as 0031's word counters); longer query words keep search_terms_count (their range is short).
create table search_prefix_counts (
  campaign_id text not null,
  list text not null,                   -- search_list's: 'characters' / 'characters:unapproved'
  prefix text collate "C" not null,
  type text not null,
  n int not null,
  primary key (campaign_id, list, prefix, type)
);
-- Short prefixes' rows are rewritten by most writes: room on each page keeps those updates on
-- their page (HOT, pruned as they go) with no new index entry, as 0031 does for search_vocabulary.
alter table search_prefix_counts set (fillfactor = 70);

-- The distinct prefixes (1 to 12 letters) of a record's words.
create function search_prefixes(p_vector tsvector) returns setof text language sql immutable as $$
  select distinct left(u.lexeme, i) from unnest(p_vector) u, generate_series(1, least(length(u.lexeme), 12)) i
$$;

-- Counter changes are one upsert per statement in key order (two writers wait for each other in the
-- same order). Every character's text holds its type's word, so writers of one campaign's list
-- already queue on that word's search_vocabulary row (0031): no new kind of wait. A counter that
-- reaches 0 is deleted (renames leave no dead prefixes; a campaign's delete leaves none).
create function search_prefix_counts_track() returns trigger language plpgsql as $$
declare
  z_campaign text[];
  z_list text[];
  z_prefix text[];
  z_type text[];
begin
  if TG_OP = 'INSERT' then
    insert into search_prefix_counts as p (campaign_id, list, prefix, type, n)
    select t.campaign_id, case when t.approved then 'characters' else 'characters:unapproved' end, x.x, t.type, count(*)::int
    from new_rows t, search_prefixes(t.search_vector) x
    group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (campaign_id, list, prefix, type) do update set n = p.n + excluded.n;
    return null;
  elsif TG_OP = 'DELETE' then
    with moved as (
      insert into search_prefix_counts as p (campaign_id, list, prefix, type, n)
      select t.campaign_id, case when t.approved then 'characters' else 'characters:unapproved' end, x.x, t.type, -count(*)::int
      from old_rows t, search_prefixes(t.search_vector) x
      group by 1, 2, 3, 4 order by 1, 2, 3, 4
      on conflict (campaign_id, list, prefix, type) do update set n = p.n + excluded.n
      returning p.campaign_id, p.list, p.prefix, p.type, p.n
    )
    select array_agg(campaign_id), array_agg(list), array_agg(prefix), array_agg(type) into z_campaign, z_list, z_prefix, z_type
    from moved where n = 0;
  else
    -- Only the records whose words, list, type or campaign changed (the usual update, a description,
    -- moves nothing): the old side out, the new side in, netted per counter.
    with changed as (
      select o.campaign_id as old_campaign, o.approved as old_approved, o.type as old_type, o.search_vector as old_vector,
             n.campaign_id, n.approved, n.type, n.search_vector
      from old_rows o join new_rows n on n.id = o.id
      where (n.campaign_id, n.approved, n.type, n.search_vector) is distinct from (o.campaign_id, o.approved, o.type, o.search_vector)
    ), moved as (
      insert into search_prefix_counts as p (campaign_id, list, prefix, type, n)
      select campaign_id, list, prefix, type, sum(d)::int
      from (select c.old_campaign as campaign_id, case when c.old_approved then 'characters' else 'characters:unapproved' end as list, x.x as prefix, c.old_type as type, -1 as d
            from changed c, search_prefixes(c.old_vector) x
            union all
            select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end, x.x, c.type, 1
            from changed c, search_prefixes(c.search_vector) x) m
      group by 1, 2, 3, 4 having sum(d) <> 0 order by 1, 2, 3, 4
      on conflict (campaign_id, list, prefix, type) do update set n = p.n + excluded.n
      returning p.campaign_id, p.list, p.prefix, p.type, p.n
    )
    select array_agg(campaign_id), array_agg(list), array_agg(prefix), array_agg(type) into z_campaign, z_list, z_prefix, z_type
    from moved where n = 0;
  end if;
  -- The counters this statement brought to 0 (locked by it since the upsert), by primary key: a
  -- join planned from the transition tables' estimates read the whole table.
  for i in 1 .. coalesce(cardinality(z_prefix), 0) loop
    delete from search_prefix_counts p
    where p.campaign_id = z_campaign[i] and p.list = z_list[i] and p.prefix = z_prefix[i] collate "C" and p.type = z_type[i] and p.n = 0;
  end loop;
  return null;
end $$;

create trigger search_prefix_counts_insert after insert on characters referencing new table as new_rows for each statement execute function search_prefix_counts_track();
create trigger search_prefix_counts_delete after delete on characters referencing old table as old_rows for each statement execute function search_prefix_counts_track();
create trigger search_prefix_counts_update after update on characters referencing old table as old_rows new table as new_rows for each statement execute function search_prefix_counts_track();

-- The records already there.
insert into search_prefix_counts (campaign_id, list, prefix, type, n)
select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end, x.x, c.type, count(*)::int
from characters c, search_prefixes(c.search_vector) x
group by 1, 2, 3, 4;

-- The same search with a type filter (issue 15, "PCs by prefix"): its name tiers read the campaign's
-- names in order and checked each row's type (at 100k, ~330 "vexq…" names for 20 PCs), and its last
-- tier read the text index's matches of every type and campaign. Now the name range is read in an
-- index of the type's names, and the last tier looks up the word pairs (0041) of the type's word
-- with the query's: every character's search text holds its type ("pc", "npc", "other"), so a
-- record of the type matching `w:*` holds the type's word and another word starting with w (the
-- adapter passes both as the pairs' words; search_word_pairs_query keeps the text index when one
-- starts the other). The candidates pass the tier's old conditions: same rows, same order.
create index characters_by_type_name on characters (campaign_id, type, lower(character_name) collate "C", created_at desc, id desc);

-- 0041's body, with the second tier's statement split on the type.
create or replace function search_character_names(p_campaign text, p_approved boolean, p_type text, p_query tsquery, p_name text, p_low text, p_high text, p_like text, p_end int, p_words text[], p_ends text[])
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
  if p_type is null then
    return query
      select c.* from characters c
      where c.campaign_id = p_campaign and (c.approved or not p_approved)
        and c.search_vector @@ p_query
        and lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like
        and lower(c.character_name) collate "C" <> p_name
      order by lower(c.character_name) collate "C", c.created_at desc, c.id desc limit p_end - n;
  else
    return query
      select c.* from characters c
      where c.campaign_id = p_campaign and c.type = p_type and (c.approved or not p_approved)
        and c.search_vector @@ p_query
        and lower(c.character_name) collate "C" >= p_low and lower(c.character_name) collate "C" < p_high and lower(c.character_name) like p_like
        and lower(c.character_name) collate "C" <> p_name
      order by lower(c.character_name) collate "C", c.created_at desc, c.id desc limit p_end - n;
  end if;
  get diagnostics got = row_count;
  n := n + got;
  if n >= p_end then return; end if;
  return query select * from search_character_names_rest(p_campaign, p_approved, p_type, p_query, p_low, p_high, p_like, p_end - n, p_words, p_ends);
end $$;
