-- A character's insert (issue 15, helper insertcost): 8 writers into one campaign ran 161 inserts/s
-- against one writer's 138, waiting 68 % of their time on each other's rows. Every character's
-- words rewrite the same counter rows of its campaign: search_vocabulary's row of each word (0031:
-- "character", the type's word, …) twice (its count, then its newest records in a second statement,
-- a second row version), and search_prefix_counts' row of each of its words' prefixes (0045: "c",
-- "ch", … "character", "n", "np", "npc"). Those rows are held from the trigger to the commit.
--
-- 1. Both are spread over slots per writer, as record_counts (0057): the slot is counter_slot's (an
--    advisory lock: a slot no other writer of the campaign holds), part of the primary key. A key's
--    count is the sum of its slots; a campaign written by one client at a time keeps slot 0 alone.
-- 2. search_vocabulary's newest records (recent_ids / recent_at) are kept per slot and merged on
--    read. On insert a slot's list takes the statement's new records in the same upsert as the count
--    (one statement and one row version per word instead of two; the second statement also looked
--    the word up again, and without statistics chose the (campaign, list, reverse(term)) index and
--    read the campaign's whole vocabulary per word: 5,335 buffers for one character at 2k).
--    What the reader needs: the union of a word's slot lists holds its 4 newest records, and every
--    id listed is one of its records. An insert keeps it (a record of the 4 newest is newer than all
--    but at most 3 of its slot's list, so it stays; one pushed out has 4 newer in that list). A
--    delete or a change of words may take one of the 4 newest away and leave ids of records that
--    no longer hold the word: it locks every slot row of the words it removes (key order), then
--    sets each to the word's 4 newest read from search_terms (a statement after the locks: it sees
--    every writer that held one of them). Deletes and renames are the rare writes.
--    (Derived at read time instead — one index read per matching word — it would cost the substring
--    step a read per word; 0031 kept the list to avoid exactly that.)
-- 3. search_word_overlap (0031) returned a record, so the trigger called it as a function (planned
--    on every call, ~0.3 ms a character); search_word_overlaps_of is the same body as a table
--    function, inlined into the trigger's statement.

-- 1a. search_prefix_counts in slots. Readers sum (countPrefix: sum(p.n) over the lists and the
-- type), so they are unchanged.
alter table search_prefix_counts add column slot int not null default 0;
alter table search_prefix_counts alter column slot drop default;
alter table search_prefix_counts drop constraint search_prefix_counts_pkey;
alter table search_prefix_counts add primary key (campaign_id, list, prefix, type, slot);

-- 1b. search_vocabulary in slots. A word's row per slot: n its share of the count (may be below 0:
-- a record counted on one slot, deleted on another), recent_* that slot's newest records.
alter table search_vocabulary add column slot int not null default 0;
alter table search_vocabulary alter column slot drop default;
alter table search_vocabulary drop constraint search_vocabulary_pkey;
alter table search_vocabulary add primary key (campaign_id, list, term, slot);

-- 3. The same body as search_word_overlap, as a table function (one row: nulls when no piece is shared).
create function search_word_overlaps_of(p_vector tsvector) returns table (terms text[], shared text[]) language sql immutable as $$
  select array_agg(distinct s.w order by s.w), array_agg(distinct s.g order by s.g)
  from (select g.g, unnest(array_agg(g.w)) as w
        from (select distinct u.lexeme as w, substr(u.lexeme, i, 3) as g from unnest(p_vector) u, generate_series(1, length(u.lexeme) - 2) i) g
        group by g.g having count(*) > 1) s
$$;

-- The prefix counters: a statement's deltas in one upsert into its slot, in key order. A slot that
-- reaches 0 is deleted; one that goes below 0 takes the key's other slots no writer holds (as 0052's
-- heads counters), so a key whose records are gone leaves no rows behind once its writers are done.
create or replace function search_prefix_counts_track() returns trigger language plpgsql as $$
declare
  s int;
  z_campaign text[];
  z_list text[];
  z_prefix text[];
  z_type text[];
  z_n int[];
  moved int;
  cur int;
begin
  if TG_OP = 'INSERT' then
    s := counter_slot((select min(campaign_id) from new_rows));
    insert into search_prefix_counts as p (campaign_id, list, prefix, type, slot, n)
    select t.campaign_id, case when t.approved then 'characters' else 'characters:unapproved' end, x.x, t.type, s, count(*)::int
    from new_rows t, search_prefixes(t.search_vector) x
    group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (campaign_id, list, prefix, type, slot) do update set n = p.n + excluded.n;
    return null;
  elsif TG_OP = 'DELETE' then
    s := counter_slot((select min(campaign_id) from old_rows));
    with moved as (
      insert into search_prefix_counts as p (campaign_id, list, prefix, type, slot, n)
      select t.campaign_id, case when t.approved then 'characters' else 'characters:unapproved' end, x.x, t.type, s, -count(*)::int
      from old_rows t, search_prefixes(t.search_vector) x
      group by 1, 2, 3, 4 order by 1, 2, 3, 4
      on conflict (campaign_id, list, prefix, type, slot) do update set n = p.n + excluded.n
      returning p.campaign_id, p.list, p.prefix, p.type, p.n
    )
    select array_agg(campaign_id), array_agg(list), array_agg(prefix), array_agg(type), array_agg(n) into z_campaign, z_list, z_prefix, z_type, z_n
    from moved where n <= 0;
  else
    s := counter_slot((select min(campaign_id) from new_rows));
    -- Only the records whose words, list, type or campaign changed (the usual update, a description,
    -- moves nothing): the old side out, the new side in, netted per counter.
    with changed as (
      select o.campaign_id as old_campaign, o.approved as old_approved, o.type as old_type, o.search_vector as old_vector,
             n.campaign_id, n.approved, n.type, n.search_vector
      from old_rows o join new_rows n on n.id = o.id
      where (n.campaign_id, n.approved, n.type, n.search_vector) is distinct from (o.campaign_id, o.approved, o.type, o.search_vector)
    ), moved as (
      insert into search_prefix_counts as p (campaign_id, list, prefix, type, slot, n)
      select campaign_id, list, prefix, type, s, sum(d)::int
      from (select c.old_campaign as campaign_id, case when c.old_approved then 'characters' else 'characters:unapproved' end as list, x.x as prefix, c.old_type as type, -1 as d
            from changed c, search_prefixes(c.old_vector) x
            union all
            select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end, x.x, c.type, 1
            from changed c, search_prefixes(c.search_vector) x) m
      group by 1, 2, 3, 4 having sum(d) <> 0 order by 1, 2, 3, 4
      on conflict (campaign_id, list, prefix, type, slot) do update set n = p.n + excluded.n
      returning p.campaign_id, p.list, p.prefix, p.type, p.n
    )
    select array_agg(campaign_id), array_agg(list), array_agg(prefix), array_agg(type), array_agg(n) into z_campaign, z_list, z_prefix, z_type, z_n
    from moved where n <= 0;
  end if;
  -- This statement's slots at 0 or below (locked by it since the upsert), by primary key: a join
  -- planned from the transition tables' estimates read the whole table.
  for i in 1 .. coalesce(cardinality(z_prefix), 0) loop
    cur := z_n[i];
    if cur < 0 then
      with taken as (
        delete from search_prefix_counts p
        where p.campaign_id = z_campaign[i] and p.list = z_list[i] and p.prefix = z_prefix[i] collate "C" and p.type = z_type[i] and p.slot in (
          select o.slot from search_prefix_counts o
          where o.campaign_id = z_campaign[i] and o.list = z_list[i] and o.prefix = z_prefix[i] collate "C" and o.type = z_type[i] and o.slot <> s
          for update skip locked)
        returning p.n
      )
      select coalesce(sum(n), 0) into moved from taken;
      cur := cur + moved;
      if moved <> 0 and cur <> 0 then
        update search_prefix_counts p set n = cur
        where p.campaign_id = z_campaign[i] and p.list = z_list[i] and p.prefix = z_prefix[i] collate "C" and p.type = z_type[i] and p.slot = s;
      end if;
    end if;
    if cur = 0 then
      delete from search_prefix_counts p
      where p.campaign_id = z_campaign[i] and p.list = z_list[i] and p.prefix = z_prefix[i] collate "C" and p.type = z_type[i] and p.slot = s;
    end if;
  end loop;
  return null;
end $$;

-- search_terms, its words' counters and newest records, and the overlaps (0031's trigger). Lookups
-- of a word's rows name both its term and reverse(term): either index of search_vocabulary then
-- reads exactly the word's rows (the planner, without statistics, took the reversed one on the
-- term alone and read the campaign's vocabulary).
create or replace function search_terms_track() returns trigger language plpgsql as $$
declare
  s int;
begin
  if TG_OP = 'DELETE' then
    s := counter_slot((select min(campaign_id) from old_rows));
    -- Every slot row of the removed words, locked in key order (see the header).
    perform 1 from search_vocabulary v
    join (select distinct t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, w.lexeme collate "C" as term
          from old_rows t, unnest(t.search_vector) w) t
      on v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term and reverse(v.term) = reverse(t.term)
    order by v.campaign_id, v.list, v.term, v.slot for update of v;
    with gone as (
      delete from search_terms s
      using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o, unnest(o.search_vector) w
      where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id
      returning s.campaign_id, s.list, s.term
    )
    insert into search_vocabulary as v (campaign_id, list, term, slot, n)
    select campaign_id, list, term, s, -count(*)::int from gone group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term, slot) do update set n = v.n + excluded.n;
    delete from search_word_overlaps x
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id from old_rows t) o
    where x.campaign_id = o.campaign_id and x.list = o.list and x.record_id = o.id;
    update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
    from (select distinct t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, w.lexeme collate "C" as term from old_rows t, unnest(t.search_vector) w) t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
    where v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term and reverse(v.term) = reverse(t.term);
  elsif TG_OP = 'INSERT' then
    s := counter_slot((select min(campaign_id) from new_rows));
    -- The words' counts and newest records in one upsert into the slot: the list keeps the 4 newest
    -- of what it held and the statement's records.
    with added as (
      select n.campaign_id, n.list, w.lexeme as term, n.id as record_id, n.created_at
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.created_at, t.search_vector from new_rows t) n, unnest(n.search_vector) w
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select campaign_id, list, term, record_id, created_at from added on conflict do nothing
      returning campaign_id, list, term, record_id, created_at
    )
    insert into search_vocabulary as v (campaign_id, list, term, slot, n, recent_ids, recent_at)
    select campaign_id, list, term, s, count(*)::int,
           (array_agg(record_id order by created_at desc, record_id collate "C" desc))[1:4],
           (array_agg(created_at order by created_at desc, record_id collate "C" desc))[1:4]
    from terms group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term, slot) do update set n = v.n + excluded.n,
      recent_ids = array(select u.i from unnest(v.recent_ids || excluded.recent_ids, v.recent_at || excluded.recent_at) u(i, a) order by u.a desc, u.i collate "C" desc limit 4),
      recent_at = array(select u.a from unnest(v.recent_ids || excluded.recent_ids, v.recent_at || excluded.recent_at) u(i, a) order by u.a desc, u.i collate "C" desc limit 4);
    insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
    select n.campaign_id, n.list, n.id, o.terms, o.shared
    from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n, search_word_overlaps_of(n.search_vector) o
    where o.shared is not null
    on conflict do nothing;
  else
    s := counter_slot((select min(campaign_id) from new_rows));
    -- The changed records (words, list or campaign): their old words out, their new words in. The
    -- old words' slot rows are locked first (key order); two statements for search_terms (within
    -- one, an insert would not see the delete's work); the counters move once, in the second, by
    -- the old words removed and the new words added, the new records merged into the slot's lists;
    -- then the old words' rows get their newest records again.
    perform 1 from search_vocabulary v
    join (select distinct o.campaign_id, o.list, w.lexeme collate "C" as term
          from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
               join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
                 on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
               unnest(o.search_vector) w) t
      on v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term and reverse(v.term) = reverse(t.term)
    order by v.campaign_id, v.list, v.term, v.slot for update of v;
    delete from search_terms s
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
          join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
            on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
          unnest(o.search_vector) w
    where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id;
    delete from search_word_overlaps x
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
          join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
            on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector)
    where x.campaign_id = o.campaign_id and x.list = o.list and x.record_id = o.id;
    with changed as (
      select o.campaign_id as old_campaign, o.list as old_list, o.search_vector as old_vector,
             n.campaign_id, n.list, n.id, n.created_at, n.search_vector
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
           join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.created_at, t.search_vector from new_rows t) n
             on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector)
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select c.campaign_id, c.list, w.lexeme, c.id, c.created_at from changed c, unnest(c.search_vector) w on conflict do nothing
      returning campaign_id, list, term, record_id, created_at
    ), shared_pieces as (
      insert into search_word_overlaps (campaign_id, list, record_id, terms, shared)
      select c.campaign_id, c.list, c.id, o.terms, o.shared from changed c, search_word_overlaps_of(c.search_vector) o
      where o.shared is not null
      on conflict do nothing
    ), moved as (
      select campaign_id, list, term, 1 as d, record_id, created_at from terms
      union all
      select c.old_campaign, c.old_list, w.lexeme, -1, null, null from changed c, unnest(c.old_vector) w
    )
    insert into search_vocabulary as v (campaign_id, list, term, slot, n, recent_ids, recent_at)
    select campaign_id, list, term, s, sum(d)::int,
           coalesce((array_agg(record_id order by created_at desc, record_id collate "C" desc) filter (where d > 0))[1:4], '{}'),
           coalesce((array_agg(created_at order by created_at desc, record_id collate "C" desc) filter (where d > 0))[1:4], '{}')
    from moved group by 1, 2, 3 order by 1, 2, 3
    on conflict (campaign_id, list, term, slot) do update set n = v.n + excluded.n,
      recent_ids = array(select u.i from unnest(v.recent_ids || excluded.recent_ids, v.recent_at || excluded.recent_at) u(i, a) order by u.a desc, u.i collate "C" desc limit 4),
      recent_at = array(select u.a from unnest(v.recent_ids || excluded.recent_ids, v.recent_at || excluded.recent_at) u(i, a) order by u.a desc, u.i collate "C" desc limit 4);
    update search_vocabulary v set recent_ids = r.ids, recent_at = r.ats
    from (select distinct o.campaign_id, o.list, w.lexeme collate "C" as term
          from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from old_rows t) o
               join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) collate "default" as list, t.id, t.search_vector from new_rows t) n
                 on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
               unnest(o.search_vector) w) t
    cross join lateral (
      select coalesce(array_agg(x.record_id order by x.created_at desc, x.record_id collate "C" desc), '{}') as ids,
             coalesce(array_agg(x.created_at order by x.created_at desc, x.record_id collate "C" desc), '{}') as ats
      from (select s.record_id, s.created_at from search_terms s
            where s.campaign_id = t.campaign_id and s.list = t.list and s.term = t.term
            order by s.created_at desc, s.record_id collate "C" desc limit 4) x) r
    where v.campaign_id = t.campaign_id and v.list = t.list and v.term = t.term and reverse(v.term) = reverse(t.term);
  end if;
  return null;
end $$;

-- The substring step (0031, as it stands since 0036) on slotted words: a word's count is the sum of
-- its slots, its newest records the 4 newest of their lists (an id may sit in two lists).
create or replace function search_words_containing(p_campaign text, p_lists text, p_word text, p_size int, p_offset int)
returns table (record_id text, created_at timestamptz, total_count int)
language plpgsql stable rows 20 set plan_cache_mode = force_generic_plan set enable_seqscan = off set jit = off as $$
declare
  v_like text := '%' || p_word || '%';
  v_lists text[] := string_to_array(p_lists, ',');
  v_need int := p_offset + p_size;
begin
  if length(p_word) < 3 then
    -- No 3-letter piece to find the overlaps by: every entry grouped and counted (0026's statement).
    return query
      select m.id, m.at, (count(*) over ())::int
      from (select s.record_id collate "C" as id, max(s.created_at) as at
            from (select distinct v.campaign_id, v.list, v.term from search_vocabulary v
                  where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like) v
            join search_terms s on s.campaign_id = v.campaign_id and s.list = v.list and s.term = v.term
            group by 1) m
      order by m.at desc, m.id desc limit p_size offset p_offset;
    return;
  end if;
  return query
    with w as materialized (
      -- The campaign's words that hold the query and some record holds: their record counts (their
      -- slots summed) and newest records (a word in one slot, the usual case, as it is; else its
      -- slots' lists merged).
      select g.term, g.list, g.n,
             case when g.k = 1 then g.ids else array(
               select d.i from (select distinct u.i, u.a from search_vocabulary y, unnest(y.recent_ids, y.recent_at) u(i, a)
                                where y.campaign_id = p_campaign and y.list = g.list and y.term = g.term) d
               order by d.a desc, d.i collate "C" desc limit 4) end as recent_ids,
             case when g.k = 1 then g.ats else array(
               select d.a from (select distinct u.i, u.a from search_vocabulary y, unnest(y.recent_ids, y.recent_at) u(i, a)
                                where y.campaign_id = p_campaign and y.list = g.list and y.term = g.term) d
               order by d.a desc, d.i collate "C" desc limit 4) end as recent_at
      from (select v.term, v.list, sum(v.n)::int as n, count(*) as k, max(v.recent_ids) as ids, max(v.recent_at) as ats
            from search_vocabulary v
            where v.campaign_id || '' = p_campaign and v.list = any (v_lists) and v.term like v_like
            group by 1, 2 having sum(v.n) > 0) g
    ), top as materialized (
      -- The page's end newest of the words' kept records.
      select w.recent_ids[k.k] collate "C" as id, max(w.recent_at[k.k]) as at
      from w cross join generate_series(1, 4) k(k)
      where k.k <= cardinality(w.recent_ids)
      group by 1 order by 2 desc, 1 desc limit v_need
    ), cut as materialized (
      -- The last of them when there are as many as the page's end: no newer than the real one.
      select case when count(*) = v_need then min(t.at) end as at from top t
    ), rest as (
      -- Words with more records than they keep whose oldest kept one is not older than that: read on.
      select s.record_id, s.created_at
      from w cross join lateral (
        select s.record_id, s.created_at from search_terms s
        where s.campaign_id = p_campaign and s.list = w.list and s.term = w.term collate "C"
          and s.created_at >= coalesce((select c.at from cut c), '-infinity')
        order by s.created_at desc, s.record_id collate "C" desc limit v_need) s
      where w.n > cardinality(w.recent_ids)
        and coalesce(w.recent_at[cardinality(w.recent_at)] >= (select c.at from cut c), true)
    )
    select p.id, p.at,
      -- Records that hold k > 1 of the words were counted k times.
      (select sum(w.n) from w)::int - coalesce((
        select sum(m.k - 1) from (
          select (select count(*) from unnest(o.terms) t where t like v_like) as k
          from search_word_overlaps o
          where o.campaign_id || '' = p_campaign and o.list = any (v_lists)
            and o.shared @> array(select distinct substr(p_word, i, 3) from generate_series(1, length(p_word) - 2) i)) m
        where m.k > 1), 0)::int
    from (select e.id, max(e.at) as at
          from (select t.id, t.at from top t union all select r.record_id collate "C", r.created_at from rest r) e
          group by 1) p
    order by p.at desc, p.id desc limit p_size offset p_offset;
end $$;

-- 0041's pairs: the vocabulary words starting with each query word, read to 65, now one per word
-- (a word has a row per slot): read to 8 × 65 rows, and a word's rows counted once. A range with
-- more rows than that gives up (null: the caller's text index), as one with more than 64 words did.
create or replace function search_word_pairs_query(p_campaign text, p_lists text[], p_words text[], p_ends text[])
returns tsquery language plpgsql stable set plan_cache_mode = force_generic_plan set enable_seqscan = off set enable_bitmapscan = off set jit = off as $$
declare
  a text[];
  a_word text;
  b text;
begin
  if p_words is null or cardinality(p_words) < 2 then return null; end if;
  -- The two query words that start the fewest vocabulary words, with the first one's words (null
  -- for a word whose range reached the cap: more than 64 words, or counted as such).
  select w.terms, w.word, w.next into a, a_word, b
  from (select u.terms, u.word, lead(u.word) over (order by coalesce(cardinality(u.terms), 65), u.i) as next,
               row_number() over (order by coalesce(cardinality(u.terms), 65), u.i) as r
        from (select w.word, w.i, (
                select case when count(*) < 520 then array(select distinct x from unnest(array_agg(r.term)) x order by x) end
                from (select v.term::text as term from search_vocabulary v
                      where v.campaign_id = p_campaign and v.list = any (p_lists) and v.term >= w.word collate "C" and v.term < w.high collate "C"
                      limit 520) r) as terms
              from unnest(p_words, p_ends) with ordinality w(word, high, i)) u) w
  where w.r = 1;
  if a is null or cardinality(a) > 64 or starts_with(a_word, b) or starts_with(b, a_word) then return null; end if;
  return (array_to_string(array(select '''' || replace(replace(t || ' ' || b, '\', '\\'), '''', '''''') || ''':*' from unnest(a) t), ' | ')
    || case when cardinality(a) > 0 then ' | ' else '' end || ''' +''')::tsquery;
end $$;
