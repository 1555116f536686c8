-- List search whose total does not cost a heap page per match (issue 15). A GIN index cannot count
-- without visiting every match's row (PostgreSQL 15 has no bitmap skip-fetch: 1,176 prefix matches,
-- 1,064 pages), so a search list's exact total grew with its matches. search_terms is the same
-- words in a btree: one row per (record, distinct lexeme of its search_vector), so a prefix is a
-- range and the matches are counted from the index alone. `list` is the subset a list searches:
-- a character's approval ('characters' / 'characters:unapproved', approved_only is the default)
-- or an entity's kind. created_at rides along so a substring page (newest first) is read from the
-- index too.
create table search_terms (
  campaign_id text not null,
  list text not null,
  term text collate "C" not null,
  record_id text not null,
  created_at timestamptz not null,
  primary key (campaign_id, list, term, record_id) include (created_at)
);

-- Every word a campaign's list has held (never pruned: a word no record holds any more finds no
-- search_terms rows). Substring search looks words up here by trigram, then their records above.
create table search_vocabulary (
  campaign_id text not null,
  list text not null,
  term text collate "C" not null,
  primary key (campaign_id, list, term)
);
create index search_vocabulary_trgm on search_vocabulary using gin (term gin_trgm_ops) with (gin_pending_list_limit = 64);

create function search_list(tbl text, r jsonb) returns text language sql immutable as $$
  select case tbl when 'characters' then case when (r->>'approved')::boolean then 'characters' else 'characters:unapproved' end
                  else r->>'kind' end
$$;

-- A statement's records with their list and words (transition tables: one insert or delete per
-- statement). An update rewrites a record's words only when its words, its list or its campaign
-- changed; the usual update writes nothing. Vocabulary rows are added in key order, so two writers
-- wait for each other in the same order.
create function search_terms_track() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    delete from search_terms s
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.search_vector from old_rows t) o, unnest(o.search_vector) w
    where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id;
  elsif TG_OP = 'INSERT' then
    with added as (
      select n.campaign_id, n.list, w.lexeme as term, n.id as record_id, n.created_at
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.created_at, t.search_vector from new_rows t) n, unnest(n.search_vector) w
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select campaign_id, list, term, record_id, created_at from added on conflict do nothing
    )
    insert into search_vocabulary (campaign_id, list, term)
    select distinct campaign_id, list, term from added order by 1, 2, 3 on conflict do nothing;
  else
    -- Two statements: within one, an insert would not see the delete's work.
    delete from search_terms s
    using (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.search_vector from old_rows t) o
          join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.search_vector from new_rows t) n
            on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
          unnest(o.search_vector) w
    where s.campaign_id = o.campaign_id and s.list = o.list and s.term = w.lexeme and s.record_id = o.id;
    with added as (
      select n.campaign_id, n.list, w.lexeme as term, n.id as record_id, n.created_at
      from (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.search_vector from old_rows t) o
           join (select t.campaign_id, search_list(TG_TABLE_NAME, to_jsonb(t)) as list, t.id, t.created_at, t.search_vector from new_rows t) n
             on n.id = o.id and (o.campaign_id <> n.campaign_id or o.list <> n.list or o.search_vector <> n.search_vector),
           unnest(n.search_vector) w
    ), terms as (
      insert into search_terms (campaign_id, list, term, record_id, created_at)
      select campaign_id, list, term, record_id, created_at from added on conflict do nothing
    )
    insert into search_vocabulary (campaign_id, list, term)
    select distinct campaign_id, list, term from added order by 1, 2, 3 on conflict do nothing;
  end if;
  return null;
end $$;

create trigger search_terms_insert after insert on characters referencing new table as new_rows for each statement execute function search_terms_track();
create trigger search_terms_delete after delete on characters referencing old table as old_rows for each statement execute function search_terms_track();
create trigger search_terms_update after update on characters referencing old table as old_rows new table as new_rows for each statement execute function search_terms_track();
create trigger search_terms_insert after insert on entities referencing new table as new_rows for each statement execute function search_terms_track();
create trigger search_terms_delete after delete on entities referencing old table as old_rows for each statement execute function search_terms_track();
create trigger search_terms_update after update on entities referencing old table as old_rows new table as new_rows for each statement execute function search_terms_track();

-- The records already there.
insert into search_terms (campaign_id, list, term, record_id, created_at)
select c.campaign_id, case when c.approved then 'characters' else 'characters:unapproved' end, w.lexeme, c.id, c.created_at
from characters c, unnest(c.search_vector) w;
insert into search_terms (campaign_id, list, term, record_id, created_at)
select e.campaign_id, e.kind, w.lexeme, e.id, e.created_at from entities e, unnest(e.search_vector) w;
insert into search_vocabulary (campaign_id, list, term) select distinct campaign_id, list, term from search_terms;
