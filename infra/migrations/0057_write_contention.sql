-- Several writers into one campaign (issue 15, helper writecontention): 8 clients POSTing moments
-- into one campaign ran no faster than one. Every write locked the campaign's change_counters row
-- (0011) in a row trigger, right after its insert, and held it through the statement triggers, the
-- service's later statements and the commit: the campaign's writers ran one at a time. The next rows
-- every write of a kind updates are record_counts' ('moments', 'moments:kind:legacy', …).
--
-- 1. The change feed is numbered at commit. A write stages its changes (change_pending, in event
--    order); a deferred trigger, run when the transaction commits, takes the campaign's counter row
--    and moves them into changes with the next seqs. The lock still orders the campaign's commits,
--    so seq stays gap-free and a reader never sees n+1 before n, but it is held from the commit's
--    start to its end instead of from the first write.
-- 2. record_counts is spread over 8 slots per (campaign, kind), as search_head_counts (0052): a
--    writer adds to its connection's slot (pg_backend_pid() % 8, the same for a whole transaction).
--    record_counts becomes a view summing a key's slots: every reader (list totals, 0032's probe
--    quota, …) is unchanged and reads one index range of at most 8 rows.

-- 1. The change feed.
create sequence change_pending_order;

-- A transaction's changes until it commits. Rows are visible to their own transaction only (every
-- committed transaction has moved its own), so "the pending rows" are always this transaction's.
create table change_pending (
  campaign_id text not null,
  ord bigint not null,
  kind text not null,
  record_id text not null,
  op text not null,
  at timestamptz not null,
  actor_id text,
  audience jsonb,
  primary key (campaign_id, ord)
);

create or replace function cms_append_change(cid text, k text, rid text, o text, aud jsonb) returns void language plpgsql as $$
begin
  -- A campaign being deleted takes its feed with it: nothing to record for its cascaded rows.
  if cid is null or not exists (select 1 from campaigns where id = cid) then
    return;
  end if;
  insert into change_pending (campaign_id, ord, kind, record_id, op, at, actor_id, audience)
  values (cid, nextval('change_pending_order'), k, rid, o, now(), nullif(current_setting('cms.actor_id', true), ''), aud);
end $$;

-- At commit (deferred, once per staged change; the first call moves them all): each campaign's
-- changes get the next seqs in the order they were made, campaigns in key order (two transactions
-- writing the same two campaigns take their counters in the same order). A campaign deleted later
-- in the transaction has no feed left to append to.
create function cms_number_changes() returns trigger language plpgsql as $$
declare
  c text;
  cnt bigint;
  base bigint;
begin
  for c in select distinct p.campaign_id from change_pending p order by 1 loop
    if exists (select 1 from campaigns where id = c) then
      select count(*) into cnt from change_pending p where p.campaign_id = c;
      insert into change_counters as k (campaign_id, last_seq) values (c, cnt)
        on conflict (campaign_id) do update set last_seq = k.last_seq + excluded.last_seq
        returning k.last_seq - cnt into base;
      with moved as (delete from change_pending p where p.campaign_id = c returning p.*)
      insert into changes (campaign_id, seq, kind, record_id, op, at, actor_id, audience)
      select campaign_id, base + row_number() over (order by ord), kind, record_id, op, at, actor_id, audience from moved order by ord;
    else
      delete from change_pending p where p.campaign_id = c;
    end if;
  end loop;
  return null;
end $$;

create constraint trigger change_pending_number after insert on change_pending
  deferrable initially deferred for each row execute function cms_number_changes();

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

-- Adds each (campaign, kind) delta, keys in order, to a slot no other writer holds: this
-- connection's (pg_backend_pid() % 8) if free, else another existing one (skip locked: never a wait;
-- pid % 8 alone put 2 of 8 pooled connections on one slot, and they queued), else a slot number the
-- key has no row for yet; only with all 8 held does it wait for its own. A transaction finds the
-- rows it already locked (skip locked skips only other transactions' locks). A decrement may have to
-- create a row; not for a campaign being deleted (its counters go with it and must not be
-- re-created: the foreign key would refuse them).
create function record_counts_add(p_campaign text[], p_kind text[], p_delta bigint[]) returns void language plpgsql as $$
declare
  s int := pg_backend_pid() % 8;
  r record;
  free int;
begin
  for r in
    select d.campaign_id, d.kind, sum(d.delta)::bigint as n
    from unnest(p_campaign, p_kind, p_delta) d(campaign_id, kind, delta)
    where exists (select 1 from campaigns where id = d.campaign_id)
    group by 1, 2 having sum(d.delta) <> 0 order by 1, 2
  loop
    update record_count_slots c set n = c.n + r.n
    where c.campaign_id = r.campaign_id and c.kind = r.kind and c.slot = (
      select o.slot from record_count_slots o where o.campaign_id = r.campaign_id and o.kind = r.kind
      order by (o.slot - s + 8) % 8 limit 1 for update skip locked);
    if not found then
      select (s + i) % 8 into free from generate_series(0, 7) i
      where not exists (select 1 from record_count_slots o where o.campaign_id = r.campaign_id and o.kind = r.kind and o.slot = (s + i) % 8)
      order by i limit 1;
      insert into record_count_slots as c (campaign_id, kind, slot, n) values (r.campaign_id, r.kind, coalesce(free, s), r.n)
      on conflict (campaign_id, kind, slot) do update set n = c.n + excluded.n;
    end if;
  end loop;
end $$;

create or replace function record_counts_track() returns trigger language plpgsql as $$
declare
  a_campaign text[];
  a_kind text[];
  a_delta bigint[];
begin
  -- (Each branch names only the transition tables its event has.)
  if TG_OP = 'INSERT' then
    select array_agg(campaign_id), array_agg(kind), array_agg(n) into a_campaign, a_kind, a_delta
    from (select t.campaign_id, k as kind, count(*) as n from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k group by 1, 2) d;
  elsif TG_OP = 'DELETE' then
    select array_agg(campaign_id), array_agg(kind), array_agg(-n) into a_campaign, a_kind, a_delta
    from (select t.campaign_id, k as kind, count(*) as n from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k group by 1, 2) d;
  else
    -- An update moves a record between subsets only when the column they depend on changed; the
    -- usual update nets to nothing and writes no counter.
    select array_agg(campaign_id), array_agg(kind), array_agg(n) into a_campaign, a_kind, a_delta
    from (
      select campaign_id, kind, sum(s) as n from (
        select t.campaign_id, k as kind, 1 as s from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
        union all
        select t.campaign_id, k, -1 from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
      ) x group by 1, 2 having sum(s) <> 0
    ) d;
  end if;
  if a_kind is not null then
    perform record_counts_add(a_campaign, a_kind, a_delta);
  end if;
  return null;
end $$;

create or replace function record_counts_awards() returns trigger language plpgsql as $$
declare
  a_campaign text[];
  a_delta bigint[];
begin
  if TG_OP = 'INSERT' then
    select array_agg(campaign_id), array_agg(n) into a_campaign, a_delta from (select campaign_id, count(*) as n from new_rows group by 1) d;
  else
    select array_agg(campaign_id), array_agg(-n) into a_campaign, a_delta from (select campaign_id, count(*) as n from old_rows group by 1) d;
  end if;
  if a_campaign is not null then
    perform record_counts_add(a_campaign, array_fill('hero_awards'::text, array[cardinality(a_campaign)]), a_delta);
  end if;
  return null;
end $$;

create or replace function record_counts_entries() returns trigger language plpgsql as $$
declare
  a_campaign text[];
  a_kind text[];
  a_delta bigint[];
begin
  if TG_OP = 'INSERT' then
    select array_agg(campaign_id), array_agg(kind), array_agg(n) into a_campaign, a_kind, a_delta
    from (select campaign_id, entry_type || 's' as kind, count(*) as n from new_rows group by 1, 2) d;
  else
    select array_agg(campaign_id), array_agg(kind), array_agg(-n) into a_campaign, a_kind, a_delta
    from (select campaign_id, entry_type || 's' as kind, count(*) as n from old_rows group by 1, 2) d;
  end if;
  if a_kind is not null then
    perform record_counts_add(a_campaign, a_kind, a_delta);
  end if;
  return null;
end $$;
