-- ask_pack_batch (0040_ask_packed_staged) with the word range's upper bound as its own statement:
-- `(upto is null or term <= upto)` is an index condition only in a plan made for the call's values;
-- PL/pgSQL may switch to a generic plan, which would read every posting past the range's start and
-- drop the rest, each batch (the rest of a 10M-posting campaign, hundreds of times).
create or replace function ask_pack_batch(cid text, build bigint, budget bigint) returns integer language plpgsql as $$
declare
  s ask_packed_staging;
  upto text;
begin
  select * into s from ask_packed_staging where campaign_id = cid and build_id = build for update;
  if not found then return -1; end if;
  -- The last word within the budget (along ask_counts_lookup); null when no word is left, and then
  -- the last statement takes every word past next_term (one that has postings but no count too).
  select coalesce(max(term) filter (where running <= budget), min(term)) into upto
  from (select term, sum(sum(n)) over (order by term) as running from ask_counts
        where campaign_id = cid and term > s.next_term group by term order by term limit 2000) w;
  -- Along ask_terms_probe (campaign, term, passage): no sort but each list's own aggregate order.
  if upto is null then
    insert into ask_packed (campaign_id, build_id, term, n, base, ids, tfs, lens)
    select cid, build, term, count(*), min(passage_id),
           string_agg(int4send((passage_id - coalesce(prev, passage_id))::int), ''::bytea order by passage_id),
           string_agg(float4send(tf), ''::bytea order by passage_id),
           string_agg(float4send(len), ''::bytea order by passage_id)
    from (select term, passage_id, tf, len, lag(passage_id) over (partition by term order by passage_id) as prev
          from ask_terms where campaign_id = cid and term > s.next_term and passage_id <= s.max_passage_id) x
    group by term;
    update ask_packed_staging set touched_at = now() where campaign_id = cid;
    return 0;
  end if;
  insert into ask_packed (campaign_id, build_id, term, n, base, ids, tfs, lens)
  select cid, build, term, count(*), min(passage_id),
         string_agg(int4send((passage_id - coalesce(prev, passage_id))::int), ''::bytea order by passage_id),
         string_agg(float4send(tf), ''::bytea order by passage_id),
         string_agg(float4send(len), ''::bytea order by passage_id)
  from (select term, passage_id, tf, len, lag(passage_id) over (partition by term order by passage_id) as prev
        from ask_terms where campaign_id = cid and term > s.next_term and term <= upto and passage_id <= s.max_passage_id) x
  group by term;
  update ask_packed_staging set next_term = upto, touched_at = now() where campaign_id = cid;
  return 1;
end $$;

