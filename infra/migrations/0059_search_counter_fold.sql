-- Issue 15, lead, eighth session: the list search's counters folded back to one row a key.
-- 0058 spread search_vocabulary and search_prefix_counts over slots per writer so writers of one
-- campaign stop waiting for each other; readers sum a key's slots. Seeded through the API by 8
-- clients (100k characters and locations), a word had 5 slot rows on average: the substring step
-- read 212 rows and merged 41 words' newest lists (1,141 buffers, PostgreSQL CPU 3.5 ms a search
-- against 0.4 for one row a word), and a prefix total 14 rows. Writers need the slots only while
-- they overlap; afterwards the worker folds each key's slots into one row (search_counters_fold).
--
-- Exact at any time: a fold moves counts between rows of one key inside one transaction, on rows it
-- locked (skip locked: a row a writer holds stays for a later pass, so the fold never waits and
-- never deadlocks). A word's newest records: the merged row keeps the 4 newest of the lists it
-- folds, so the union over the key's rows still holds the word's 4 newest (0058's rule).

-- The keys with a row outside slot 0: what a fold has to visit (empty on PGlite, one writer).
create index search_vocabulary_slotted on search_vocabulary (campaign_id, list, term) where slot <> 0;
create index search_prefix_counts_slotted on search_prefix_counts (campaign_id, list, prefix, type) where slot <> 0;

-- Folds up to p_keys keys of each table; returns how many keys it visited (p_keys or more: call again).
create function search_counters_fold(p_keys int) returns int language plpgsql set jit = off as $$
declare
  k record;
  v_slots int[];
  v_n int;
  v_ids text[];
  v_ats timestamptz[];
  visited int := 0;
begin
  for k in select distinct v.campaign_id, v.list, v.term
           from (select y.campaign_id, y.list, y.term from search_vocabulary y where y.slot <> 0 limit p_keys) v
           order by 1, 2, 3 loop
    visited := visited + 1;
    select array_agg(l.slot order by l.slot), sum(l.n)::int into v_slots, v_n
    from (select y.slot, y.n from search_vocabulary y
          where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term
          for update skip locked) l;
    if v_slots is null or (cardinality(v_slots) = 1 and v_slots[1] = 0) then continue; end if;
    if cardinality(v_slots) = 1 then
      -- A key's only row outside slot 0 (a new word first written by a second writer): moved to
      -- slot 0 unless a writer is creating that row now (then a later pass merges the two).
      if exists (select 1 from search_vocabulary y where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = 0) then continue; end if;
      begin
        update search_vocabulary y set slot = 0 where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = v_slots[1];
      exception when unique_violation then null;
      end;
      continue;
    end if;
    select coalesce(array_agg(d.i order by d.a desc, d.i collate "C" desc), '{}'), coalesce(array_agg(d.a order by d.a desc, d.i collate "C" desc), '{}')
      into v_ids, v_ats
    from (select x.i, x.a
          from (select distinct u.i, u.a from search_vocabulary y, unnest(y.recent_ids, y.recent_at) u(i, a)
                where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = any (v_slots)) x
          order by x.a desc, x.i collate "C" desc limit 4) d;
    update search_vocabulary y set n = v_n, recent_ids = v_ids, recent_at = v_ats
    where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = v_slots[1];
    delete from search_vocabulary y
    where y.campaign_id = k.campaign_id and y.list = k.list and y.term = k.term and y.slot = any (v_slots[2:]);
  end loop;

  for k in select distinct p.campaign_id, p.list, p.prefix, p.type
           from (select y.campaign_id, y.list, y.prefix, y.type from search_prefix_counts y where y.slot <> 0 limit p_keys) p
           order by 1, 2, 3, 4 loop
    visited := visited + 1;
    select array_agg(l.slot order by l.slot), sum(l.n)::int into v_slots, v_n
    from (select y.slot, y.n from search_prefix_counts y
          where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type
          for update skip locked) l;
    if v_slots is null or (cardinality(v_slots) = 1 and v_slots[1] = 0) then continue; end if;
    if cardinality(v_slots) = 1 then
      if exists (select 1 from search_prefix_counts y where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = 0) then continue; end if;
      begin
        update search_prefix_counts y set slot = 0 where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = v_slots[1];
      exception when unique_violation then null;
      end;
      continue;
    end if;
    -- A key whose records are gone keeps no row (0058's rule for a slot at 0).
    if v_n = 0 then
      delete from search_prefix_counts y
      where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = any (v_slots);
      continue;
    end if;
    update search_prefix_counts y set n = v_n
    where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = v_slots[1];
    delete from search_prefix_counts y
    where y.campaign_id = k.campaign_id and y.list = k.list and y.prefix = k.prefix and y.type = k.type and y.slot = any (v_slots[2:]);
  end loop;
  return visited;
end $$;
