-- Lists whose cost does not grow with the campaign (issue 15): exact per-campaign counters for the
-- totals of unfiltered lists, kept by statement-level triggers in the writing transaction (a
-- count(*) of the campaign per request read every row of it), and indexes whose order is the
-- lists' ORDER BY, so a first page is a short index scan.

create table record_counts (
  campaign_id text not null references campaigns(id) on delete cascade,
  -- a table's kind ('characters', 'locations', …) or a counted subset ('characters:approved',
  -- 'links:journal', 'journals:public')
  kind text not null,
  n bigint not null default 0,
  primary key (campaign_id, kind)
);

-- The counters one record falls in. Every row counts in its kind; some also in a subset a default
-- list filters on.
create function record_count_kinds(tbl text, r jsonb) returns text[] language sql immutable as $$
  select case tbl
    when 'characters' then case when (r->>'approved')::boolean then array['characters', 'characters:approved'] else array['characters'] end
    when 'entities' then array[(r->>'kind') || 's']
    when 'links' then case when r->>'from_type' = 'Journal' or r->>'to_type' = 'Journal' then array['links', 'links:journal'] else array['links'] end
    when 'journal_entries' then case when (r->>'is_public')::boolean then array['journals', 'journals:public'] else array['journals'] end
    else array[tbl]
  end
$$;

-- One statement, one counter write per (campaign, kind) it changed, in key order (so two writers
-- lock counters in the same order). Deletes only decrement: during a campaign's deletion the
-- counters may already be gone with it, and must not be re-created.
create function record_counts_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into record_counts (campaign_id, kind, n)
    select t.campaign_id, k, count(*) from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k group by 1, 2 order by 1, 2
    on conflict (campaign_id, kind) do update set n = record_counts.n + excluded.n;
  elsif TG_OP = 'DELETE' then
    update record_counts c set n = c.n - d.n
    from (select t.campaign_id, k as kind, count(*) as n from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k group by 1, 2 order by 1, 2) d
    where c.campaign_id = d.campaign_id and c.kind = d.kind;
  else
    -- An update moves a record between subsets only when the column they depend on changed; the
    -- usual update nets to nothing and writes no counter.
    with d as (
      select campaign_id, kind, sum(s) as n from (
        select t.campaign_id, k as kind, 1 as s from new_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
        union all
        select t.campaign_id, k, -1 from old_rows t, unnest(record_count_kinds(TG_TABLE_NAME, to_jsonb(t))) k
      ) x group by 1, 2 having sum(s) <> 0
    ), down as (
      update record_counts c set n = c.n + d.n from d where d.n < 0 and c.campaign_id = d.campaign_id and c.kind = d.kind
    )
    insert into record_counts (campaign_id, kind, n) select campaign_id, kind, n from d where n > 0 order by 1, 2
    on conflict (campaign_id, kind) do update set n = record_counts.n + excluded.n;
  end if;
  return null;
end $$;

-- (Transition tables allow one event per trigger.) Updates are tracked only where a subset's column can change.
create trigger record_counts_insert after insert on characters referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on characters referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_update after update on characters referencing old table as old_rows new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on entities referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on entities referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on links referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on links referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_update after update on links referencing old table as old_rows new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on beats referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on beats referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on moments referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on moments referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on quests referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on quests referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on sessions referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on sessions referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_insert after insert on journal_entries referencing new table as new_rows for each statement execute function record_counts_track();
create trigger record_counts_delete after delete on journal_entries referencing old table as old_rows for each statement execute function record_counts_track();
create trigger record_counts_update after update on journal_entries referencing old table as old_rows new table as new_rows for each statement execute function record_counts_track();

-- Backfill what exists.
insert into record_counts (campaign_id, kind, n)
select campaign_id, k, count(*) from (
  select t.campaign_id, unnest(record_count_kinds('characters', to_jsonb(t))) k from characters t
  union all select t.campaign_id, unnest(record_count_kinds('entities', to_jsonb(t))) from entities t
  union all select t.campaign_id, unnest(record_count_kinds('links', to_jsonb(t))) from links t
  union all select t.campaign_id, 'beats' from beats t
  union all select t.campaign_id, 'moments' from moments t
  union all select t.campaign_id, 'quests' from quests t
  union all select t.campaign_id, 'sessions' from sessions t
  union all select t.campaign_id, unnest(record_count_kinds('journal_entries', to_jsonb(t))) from journal_entries t
) x group by 1, 2;

-- Indexes in each list's order (filter and order together; the id breaks ties as the ORDER BY does).
drop index beats_by_campaign;
create index beats_by_campaign on beats (campaign_id, index, created_at, id);
drop index quests_by_campaign;
create index quests_by_campaign on quests (campaign_id, order_index, created_at, id);
create index characters_approved_by_campaign on characters (campaign_id, created_at desc, id desc) where approved;
create index journal_entries_listed on journal_entries (campaign_id, is_pinned desc, (coalesce(updated_at, created_at)) desc, id desc);
-- The few entries and links a viewer's total is corrected by: private entries, links to or from an entry.
create index journal_entries_private on journal_entries (author_id, campaign_id) where not is_public;
create index links_journal_ends on links (campaign_id) where from_type = 'Journal' or to_type = 'Journal';
