-- Ask's packed posting lists built in stages (issue 15): 0037 packed a campaign in one statement,
-- which on PGlite's one connection held every request up (2.8 s at 9.5k passages, ~30 s at 105k).
-- Now a build's lists are written under its own build id, a few thousand postings a statement
-- (ask_pack_batch), while questions read the current build (ask_packed_builds.build_id); the switch
-- to the new build is one short statement (ask_pack_finish) and the old build's rows are deleted
-- afterwards, a batch at a time (ask_pack_sweep).

-- The packed rows carry their build: the existing ones are the campaign's current build's.
alter table ask_packed add column build_id bigint;
update ask_packed p set build_id = b.build_id from ask_packed_builds b where b.campaign_id = p.campaign_id;
delete from ask_packed where build_id is null;
alter table ask_packed alter column build_id set not null;
alter table ask_packed drop constraint ask_packed_pkey;
alter table ask_packed add primary key (campaign_id, build_id, term);
-- A staged build's rows exist before its build row: they belong to the campaign.
alter table ask_packed drop constraint ask_packed_campaign_id_fkey;
alter table ask_packed add foreign key (campaign_id) references campaigns(id) on delete cascade;

-- The build being written, one a campaign (also the lease: another instance leaves the campaign
-- alone while it is here and touched recently). Words up to next_term are written.
create table ask_packed_staging (
  campaign_id text primary key references campaigns(id) on delete cascade,
  build_id bigint not null,
  max_passage_id bigint not null,
  passages bigint not null,
  next_term text not null default '',
  touched_at timestamptz not null default now()
);

-- Builds whose rows are to be deleted: replaced, dropped as stale, or abandoned half written.
create table ask_packed_retired (
  campaign_id text not null,
  build_id bigint not null,
  primary key (campaign_id, build_id)
);

create function ask_packed_retire() returns trigger language plpgsql as $$
begin
  -- A staged build that became the current one (ask_pack_finish) stays.
  if tg_table_name = 'ask_packed_staging' and exists (select 1 from ask_packed_builds b where b.campaign_id = old.campaign_id and b.build_id = old.build_id) then
    return null;
  end if;
  if tg_op = 'DELETE' or old.build_id <> new.build_id then
    insert into ask_packed_retired (campaign_id, build_id) values (old.campaign_id, old.build_id) on conflict do nothing;
  end if;
  return null;
end $$;
create trigger ask_packed_builds_retire after update or delete on ask_packed_builds for each row execute function ask_packed_retire();
create trigger ask_packed_staging_retire after update or delete on ask_packed_staging for each row execute function ask_packed_retire();

-- A passage rewritten in place: the current build and the one being written go (their rows are retired).
create or replace function ask_packed_stale() returns trigger language plpgsql as $$
begin
  delete from ask_packed_builds where campaign_id = new.campaign_id;
  delete from ask_packed_staging where campaign_id = new.campaign_id;
  return null;
end $$;

-- Replaced by the staged functions below.
drop function ask_pack(text, bigint);

-- Starts a build of a campaign's passages up to the cutoff: its build id, or null while another
-- build of the campaign is being written (ask_pack_expire drops abandoned ones).
create function ask_pack_begin(cid text, cutoff bigint) returns bigint language plpgsql as $$
declare
  b bigint;
begin
  insert into ask_packed_staging (campaign_id, build_id, max_passage_id, passages)
  select cid, nextval('ask_packed_build_seq'), cutoff, count(*) from ask_passages where campaign_id = cid and id <= cutoff
  on conflict (campaign_id) do nothing
  returning build_id into b;
  return b;
end $$;

-- Writes the next words of a staged build, about `budget` postings (by the words' running counts;
-- at least one word). 1: more to write, 0: every word is written, -1: the build is gone (stale,
-- abandoned, campaign deleted).
create function ask_pack_batch(cid text, build bigint, budget bigint) returns integer language plpgsql as $$
declare
  s ask_packed_staging;
  upto text;
begin
  select * into s from ask_packed_staging where campaign_id = cid and build_id = build for update;
  if not found then return -1; end if;
  -- The last word within the budget (along ask_counts_lookup); null when no word is left, and then
  -- the statement below takes every word past next_term (one that has postings but no count too).
  select coalesce(max(term) filter (where running <= budget), min(term)) into upto
  from (select term, sum(sum(n)) over (order by term) as running from ask_counts
        where campaign_id = cid and term > s.next_term group by term order by term limit 2000) w;
  -- Along ask_terms_probe (campaign, term, passage): no sort but each list's own aggregate order.
  insert into ask_packed (campaign_id, build_id, term, n, base, ids, tfs, lens)
  select cid, build, term, count(*), min(passage_id),
         string_agg(int4send((passage_id - coalesce(prev, passage_id))::int), ''::bytea order by passage_id),
         string_agg(float4send(tf), ''::bytea order by passage_id),
         string_agg(float4send(len), ''::bytea order by passage_id)
  from (select term, passage_id, tf, len, lag(passage_id) over (partition by term order by passage_id) as prev
        from ask_terms where campaign_id = cid and term > s.next_term and (upto is null or term <= upto) and passage_id <= s.max_passage_id) x
  group by term;
  update ask_packed_staging set next_term = coalesce(upto, next_term), touched_at = now() where campaign_id = cid;
  return case when upto is null then 0 else 1 end;
end $$;

-- Makes a fully written staged build the campaign's current one (the one before it is retired).
create function ask_pack_finish(cid text, build bigint) returns boolean language plpgsql as $$
declare
  s ask_packed_staging;
begin
  select * into s from ask_packed_staging where campaign_id = cid and build_id = build for update;
  if not found then return false; end if;
  insert into ask_packed_builds (campaign_id, build_id, max_passage_id, passages) values (cid, build, s.max_passage_id, s.passages)
  on conflict (campaign_id) do update set build_id = excluded.build_id, max_passage_id = excluded.max_passage_id, passages = excluded.passages, built_at = now();
  delete from ask_packed_staging where campaign_id = cid;
  return true;
end $$;

-- Builds left half written (the process stopped) for longer than `idle` are abandoned (retired).
create function ask_pack_expire(idle interval) returns integer language plpgsql as $$
declare
  k integer;
begin
  delete from ask_packed_staging where touched_at < now() - idle;
  get diagnostics k = row_count;
  return k;
end $$;

-- Deletes rows of retired builds, about `budget` postings (at least one row): the rows deleted;
-- 0 once none is left.
create function ask_pack_sweep(budget bigint) returns integer language plpgsql as $$
declare
  r ask_packed_retired;
  deleted integer;
begin
  for r in select * from ask_packed_retired order by campaign_id, build_id loop
    delete from ask_packed p using (
      select term from (select term, sum(n) over (order by term) as running, row_number() over (order by term) as k
                        from (select term, n from ask_packed where campaign_id = r.campaign_id and build_id = r.build_id order by term limit 2000) l) w
      where running <= budget or k = 1) d
    where p.campaign_id = r.campaign_id and p.build_id = r.build_id and p.term = d.term;
    get diagnostics deleted = row_count;
    if deleted > 0 then return deleted; end if;
    delete from ask_packed_retired where campaign_id = r.campaign_id and build_id = r.build_id;
  end loop;
  return 0;
end $$;
