-- Ask retrieval latency (issue 11). Two costs of every question went: BM25's collection statistics
-- (passage count, mean length) counted over all the campaign's passages (17 ms of a 48 ms query on
-- the 39-episode bench, loaded), and each word's document frequency counted over all its postings
-- ("laura": 7,671). Both are now kept as running counts. The counts are insert-only deltas (a row per
-- writing statement, summed on read): no row is updated, so concurrent imports into one campaign take
-- no lock on a shared counter and cannot deadlock on it. ask_counts_compact folds them (the import
-- calls it). Term '' holds the campaign's passage count and total length; a word holds its df.
create table ask_counts (
  campaign_id text not null,
  term text not null,
  n bigint not null,
  len double precision not null default 0
);
create index ask_counts_lookup on ask_counts (campaign_id, term) include (n, len);
insert into ask_counts (campaign_id, term, n, len)
select campaign_id, '', count(*), sum(len::float8) from ask_passages group by campaign_id;
insert into ask_counts (campaign_id, term, n) select campaign_id, term, count(*) from ask_terms group by campaign_id, term;

-- The rare words' postings name the candidates; the common words are looked up per candidate by key.
create index ask_terms_probe on ask_terms (campaign_id, term, passage_id) include (tf, len);
drop index ask_terms_lookup;

create function ask_terms_counted() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into ask_counts (campaign_id, term, n) select campaign_id, term, count(*) from changed group by campaign_id, term;
  else
    insert into ask_counts (campaign_id, term, n) select campaign_id, term, -count(*) from changed group by campaign_id, term;
  end if;
  return null;
end $$;
create trigger ask_terms_added after insert on ask_terms referencing new table as changed for each statement execute function ask_terms_counted();
create trigger ask_terms_removed after delete on ask_terms referencing old table as changed for each statement execute function ask_terms_counted();

create function ask_passages_counted() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into ask_counts (campaign_id, term, n, len) select campaign_id, '', count(*), sum(len::float8) from changed group by campaign_id;
  else
    insert into ask_counts (campaign_id, term, n, len) select campaign_id, '', -count(*), -sum(len::float8) from changed group by campaign_id;
  end if;
  return null;
end $$;
create trigger ask_passages_added after insert on ask_passages referencing new table as changed for each statement execute function ask_passages_counted();
create trigger ask_passages_removed after delete on ask_passages referencing old table as changed for each statement execute function ask_passages_counted();

-- Rewritten words change a passage's length (embedding writes do not: no row then).
create function ask_passages_recounted() returns trigger language plpgsql as $$
begin
  insert into ask_counts (campaign_id, term, n, len)
  select campaign_id, '', 0, sum(l) from (select campaign_id, len::float8 as l from new_rows union all select campaign_id, -len::float8 from old_rows) x
  group by campaign_id having sum(l) <> 0;
  return null;
end $$;
create trigger ask_passages_recounted after update on ask_passages referencing old table as old_rows new table as new_rows
  for each statement execute function ask_passages_recounted();

-- Folds a campaign's deltas into one row a word. Rows a concurrent fold already took are not
-- returned to this one, so two folds never count a delta twice.
create function ask_counts_compact(cid text) returns void language sql as $$
  with gone as (delete from ask_counts where campaign_id = cid returning term, n, len)
  insert into ask_counts (campaign_id, term, n, len)
  select cid, term, sum(n), sum(len) from gone group by term having sum(n) <> 0 or sum(len) <> 0
$$;
