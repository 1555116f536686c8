-- Several writers into one campaign (issue 15, helper writecontention): 8 clients POSTing moments
-- into one campaign ran no faster than one. Every write locked the campaign's change_counters row
-- (0011) in a row trigger, right after its insert, and held it through the statement triggers, the
-- service's later statements and the commit: the campaign's writers ran one at a time. The next rows
-- every write of a kind updates are record_counts' ('moments', 'moments:kind:legacy', …).
--
-- 1. The change feed is written at commit: its row triggers are deferred, so the campaign's counter
--    row is taken when the transaction commits. The lock still orders the campaign's commits, so seq
--    stays gap-free and a reader never sees n+1 before n, but it is held from the commit's start to
--    its end instead of from the first write.
-- 2. record_counts is spread over 8 slots per (campaign, kind), as search_head_counts (0052): a
--    writer adds to a slot no other writer of the campaign holds (counter_slot: an advisory lock).
--    record_counts becomes a view summing a key's slots: every reader (list totals, 0032's probe
--    quota, …) is unchanged and reads one index range of at most 8 rows.

-- 1. The change feed. The triggers of 0011 that record a change (cms_record_change, every table but
-- the journal's) become deferred constraint triggers: the same function, run at commit for each row
-- event in the order the events happened, with the row as the event left it. cms_append_change is
-- unchanged: the counter row is taken by the first of them, at commit. Journal entries and shares
-- keep their immediate triggers: their audience is read when the change happens (a deleted entry's
-- shares are gone by commit). In a transaction that writes both, the journal's changes come first.
do $$
declare
  t record;
begin
  for t in
    select c.tgname, c.tgrelid::regclass::text as rel, pg_get_triggerdef(c.oid) as def
    from pg_trigger c join pg_proc p on p.oid = c.tgfoid
    where p.proname = 'cms_record_change' and not c.tgisinternal
  loop
    execute format('drop trigger %I on %s', t.tgname, t.rel);
    execute replace(replace(t.def, 'CREATE TRIGGER', 'CREATE CONSTRAINT TRIGGER'), ' FOR EACH ROW ', ' DEFERRABLE INITIALLY DEFERRED FOR EACH ROW ');
  end loop;
end $$;

-- 2. record_counts in slots.
alter table record_counts rename to record_count_slots;
alter table record_count_slots rename constraint record_counts_campaign_id_fkey to record_count_slots_campaign_id_fkey;
alter table record_count_slots add column slot int not null default 0;
alter table record_count_slots alter column slot drop default;
alter table record_count_slots drop constraint record_counts_pkey;
alter table record_count_slots add primary key (campaign_id, kind, slot);
-- Every write of a kind rewrites its rows: room on each page keeps the updates HOT (as 0045).
alter table record_count_slots set (fillfactor = 70);

-- A key's count: the sum of its slots (a slot may be negative: a record counted on one connection,
-- deleted on another). Readers filter on campaign_id and kind, which the view's grouping passes
-- down to the primary key's range.
create view record_counts as
  select campaign_id, kind, sum(n)::bigint as n from record_count_slots group by campaign_id, kind;

-- The counter slot of a transaction writing a campaign: the lowest that no other transaction writing
-- it holds, claimed with a transaction-scoped advisory lock on (campaign, slot). 0052's
-- pg_backend_pid() % 8 put 2 of 8 pooled connections on one slot, and their writers queued on its
-- rows until commit; and a campaign written by one client at a time keeps one row a key (slot 0),
-- so its totals read one row. A transaction asking again gets the slot it holds (its own advisory
-- locks do not refuse it); with all 8 held it takes pid % 8 and may wait, as before. Any slot gives
-- exact sums: this only decides who waits.
create function counter_slot(p_campaign text) returns int language plpgsql as $$
begin
  for i in 0 .. 7 loop
    if pg_try_advisory_xact_lock(hashtext(coalesce(p_campaign, '')), i) then
      return i;
    end if;
  end loop;
  return pg_backend_pid() % 8;
end $$;

-- Each trigger adds its statement's net (campaign, kind) deltas to the transaction's slot in one
-- upsert, in key order (writers sharing a slot lock in the same order). A decrement may have to
-- create its slot's row; not for a campaign being deleted (its counters go with it and must not be
-- re-created: the foreign key would refuse them). (One statement each: the same work through arrays
-- and a helper function cost a link insert ~0.3 ms more.)
create or replace function record_counts_track() returns trigger language plpgsql as $$
declare
  s int;
begin
  -- (Each branch names only the transition tables its event has.)
  if TG_OP = 'INSERT' then
    s := counter_slot((select min(campaign_id) from new_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select t.campaign_id, k, s, count(*) from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
    group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  elsif TG_OP = 'DELETE' then
    s := counter_slot((select min(campaign_id) from old_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select t.campaign_id, k, s, -count(*) from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
    where exists (select 1 from campaigns where id = t.campaign_id)
    group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  else
    -- An update moves a record between subsets only when the column they depend on changed; the
    -- usual update nets to nothing and writes no counter.
    with d as (
      select campaign_id, kind, sum(x.s) as n from (
        select t.campaign_id, k as kind, 1 as s from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
        union all
        select t.campaign_id, k, -1 from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
      ) x group by 1, 2 having sum(x.s) <> 0
    )
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select d.campaign_id, d.kind, (select counter_slot(min(campaign_id)) from new_rows), d.n from d
    where exists (select 1 from campaigns where id = d.campaign_id)
    order by 1, 2
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  end if;
  return null;
end $$;

create or replace function record_counts_awards() returns trigger language plpgsql as $$
declare
  s int;
begin
  if TG_OP = 'INSERT' then
    s := counter_slot((select min(campaign_id) from new_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select campaign_id, 'hero_awards', s, count(*) from new_rows group by 1 order by 1
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  else
    s := counter_slot((select min(campaign_id) from old_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select t.campaign_id, 'hero_awards', s, -count(*) from old_rows t
    where exists (select 1 from campaigns where id = t.campaign_id)
    group by 1 order by 1
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  end if;
  return null;
end $$;

create or replace function record_counts_entries() returns trigger language plpgsql as $$
declare
  s int;
begin
  if TG_OP = 'INSERT' then
    s := counter_slot((select min(campaign_id) from new_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select campaign_id, entry_type || 's', s, count(*) from new_rows group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  else
    s := counter_slot((select min(campaign_id) from old_rows));
    insert into record_count_slots as c (campaign_id, kind, slot, n)
    select t.campaign_id, t.entry_type || 's', s, -count(*) from old_rows t
    where exists (select 1 from campaigns where id = t.campaign_id)
    group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
  end if;
  return null;
end $$;

-- 0052's slotted heads counters (moments, quests since 0055, recap cards 0053) take their slot the
-- same way; the rest of the function is 0052's as it stands.
create or replace function search_head_counts_add(p_kind text, p_campaign text[], p_word text[], p_head text[], p_delta int[]) returns void language plpgsql as $$
declare
  s int := counter_slot(p_campaign[1]);
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
