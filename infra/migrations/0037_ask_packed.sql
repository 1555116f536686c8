-- Ask retrieval at 100k+ passages (issue 15, item 4): a big campaign's posting lists packed, one row
-- a word, so a question reads each of its words' lists as one value and the application scores BM25
-- over them (adapters/sql/retrieval.ts), instead of the SQL executor reading, grouping and sorting
-- 100k+ posting rows one at a time. Built by the worker for campaigns above a size; the postings of
-- passages newer than the build (id > max_passage_id) are read from ask_terms as before, and passages
-- deleted since the build are dropped when the best candidates are joined to ask_passages.
create table ask_packed_builds (
  campaign_id text primary key references campaigns(id) on delete cascade,
  build_id bigint not null,
  -- Every passage id at or below this was committed (or rolled back) before the build read ask_terms;
  -- every later one is above it.
  max_passage_id bigint not null,
  -- Live passages the build saw (the worker rebuilds once enough were added or deleted since).
  passages bigint not null,
  built_at timestamptz not null default now()
);
create sequence ask_packed_build_seq;

-- One word's postings of one build, in passage id order: ids as 4-byte big-endian gaps from the
-- previous id (the first from `base`), tf and len as float4 (float4send: the stored values exactly).
create table ask_packed (
  campaign_id text not null references ask_packed_builds(campaign_id) on delete cascade,
  term text not null,
  n integer not null,
  base bigint not null,
  ids bytea not null,
  tfs bytea not null,
  lens bytea not null,
  primary key (campaign_id, term)
);
-- Read whole on every question: stored uncompressed (no pglz on the way out).
alter table ask_packed alter column ids set storage external;
alter table ask_packed alter column tfs set storage external;
alter table ask_packed alter column lens set storage external;

-- A passage's words rewritten in place (no write path does it today: a changed record is a new
-- passage) would leave its old postings in the build: the campaign's build goes, the next is made anew.
create function ask_packed_stale() returns trigger language plpgsql as $$
begin
  delete from ask_packed_builds where campaign_id = new.campaign_id;
  return null;
end $$;
create trigger ask_packed_stale after update of title, names, body, search_vector, len on ask_passages
  for each row execute function ask_packed_stale();

-- The build's cutoff: the highest passage id once every transaction writing passages has ended. A
-- writer holds row exclusive on ask_passages from before it draws an id, so the share lock waits
-- for them all; later writers draw higher ids. The lock ends with the calling statement.
create function ask_packed_cutoff() returns bigint language plpgsql as $$
begin
  perform set_config('lock_timeout', '2s', true);
  lock table ask_passages in share mode;
  return coalesce((select max(id) from ask_passages), 0);
end $$;

-- Packs a campaign's postings of passages up to the cutoff, replacing its build in one transaction
-- (questions read the old build or the new one whole). False when another instance is packing it.
create function ask_pack(cid text, cutoff bigint) returns boolean language plpgsql as $$
begin
  if not pg_try_advisory_xact_lock(hashtext('ask_packed ' || cid)) then return false; end if;
  delete from ask_packed_builds where campaign_id = cid;
  insert into ask_packed_builds (campaign_id, build_id, max_passage_id, passages)
  select cid, nextval('ask_packed_build_seq'), cutoff, count(*) from ask_passages where campaign_id = cid and id <= cutoff;
  -- Along ask_terms_probe (campaign, term, passage): no sort but each list's own aggregate order.
  insert into ask_packed (campaign_id, term, n, base, ids, tfs, lens)
  select cid, term, count(*), min(passage_id),
         string_agg(int4send((passage_id - coalesce(prev, passage_id))::int), ''::bytea order by passage_id),
         string_agg(float4send(tf), ''::bytea order by passage_id),
         string_agg(float4send(len), ''::bytea order by passage_id)
  from (select term, passage_id, tf, len, lag(passage_id) over (partition by term order by passage_id) as prev
        from ask_terms where campaign_id = cid and passage_id <= cutoff) x
  group by term;
  return true;
end $$;
