-- Each session's number in its campaign, kept (issue 15). A session's number is its rank among the
-- campaign's sessions, oldest first (session_date, created_at, id). A list filtered by type or
-- public only numbered its page by reading the campaign's sessions from the page's oldest row on
-- (0029): for a rare type whose sessions are old, most of the campaign for 20 rows. Quests' and
-- beats' session references and a session's own page numbered every session of the campaign.
-- The numbers now live in their own table, written by statement triggers in the writing
-- transaction: a session appended after the others is numbered alone; one inserted, deleted or
-- moved (its date changed) among them renumbers the sessions after it (rows whose number did not
-- change are not written). Their own table, not a column: an update of `sessions` rows would run
-- the change feed's and Ask's row triggers for every renumbered session.
create table if not exists session_numbers (
  session_id text primary key,
  number integer not null
);

-- Renumbers campaign `c`'s sessions from the key (d, ca, i) on: the first one's number follows its
-- predecessor's, which nothing before the key changed. A transaction-scoped lock per campaign, taken
-- before the sessions are read, makes a concurrent writer of the same campaign wait for this
-- transaction and then read its rows (each statement here reads anew).
create or replace function session_numbers_from(c text, d timestamptz, ca timestamptz, i text) returns void language plpgsql as $$
declare
  base integer;
begin
  perform pg_advisory_xact_lock(hashtext('session_numbers'), hashtext(c));
  select n.number into base from sessions s join session_numbers n on n.session_id = s.id
  where s.campaign_id = c and (s.session_date, s.created_at, s.id) < (d, ca, i)
  order by s.session_date desc, s.created_at desc, s.id desc limit 1;
  insert into session_numbers (session_id, number)
  select id, coalesce(base, 0) + row_number() over (order by session_date, created_at, id) from sessions
  where campaign_id = c and (session_date, created_at, id) >= (d, ca, i)
  on conflict (session_id) do update set number = excluded.number where session_numbers.number <> excluded.number;
end $$;

-- One renumbering per campaign the statement changed, from the oldest key it touched (for a moved
-- session, the older of its two places). An update that leaves every date alone renumbers nothing.
create or replace function session_numbers_track() returns trigger language plpgsql as $$
declare
  f record;
begin
  if TG_OP = 'INSERT' then
    for f in select distinct on (campaign_id) campaign_id, session_date, created_at, id from new_rows order by campaign_id, session_date, created_at, id loop
      perform session_numbers_from(f.campaign_id, f.session_date, f.created_at, f.id);
    end loop;
  elsif TG_OP = 'DELETE' then
    delete from session_numbers where session_id in (select id from old_rows);
    for f in select distinct on (campaign_id) campaign_id, session_date, created_at, id from old_rows order by campaign_id, session_date, created_at, id loop
      perform session_numbers_from(f.campaign_id, f.session_date, f.created_at, f.id);
    end loop;
  else
    for f in
      select distinct on (k.campaign_id) k.* from old_rows o join new_rows n on n.id = o.id,
        lateral (values (o.campaign_id, o.session_date, o.created_at, o.id), (n.campaign_id, n.session_date, n.created_at, n.id)) k (campaign_id, session_date, created_at, id)
      where (o.campaign_id, o.session_date, o.created_at) is distinct from (n.campaign_id, n.session_date, n.created_at)
      order by k.campaign_id, k.session_date, k.created_at, k.id
    loop
      perform session_numbers_from(f.campaign_id, f.session_date, f.created_at, f.id);
    end loop;
  end if;
  return null;
end $$;

drop trigger if exists session_numbers_insert on sessions;
drop trigger if exists session_numbers_delete on sessions;
drop trigger if exists session_numbers_update on sessions;
create trigger session_numbers_insert after insert on sessions referencing new table as new_rows for each statement execute function session_numbers_track();
create trigger session_numbers_delete after delete on sessions referencing old table as old_rows for each statement execute function session_numbers_track();
create trigger session_numbers_update after update on sessions referencing old table as old_rows new table as new_rows for each statement execute function session_numbers_track();

-- The sessions that exist (an existing number is rewritten: the migration may run again).
insert into session_numbers (session_id, number)
select id, row_number() over (partition by campaign_id order by session_date, created_at, id) from sessions
on conflict (session_id) do update set number = excluded.number;
