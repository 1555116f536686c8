-- Issue 15, lead, tenth session: a build's passage count from the campaign's counter, not a count of
-- its passages. ask_pack_begin (0040) counted the campaign's passages up to the cutoff, a read of
-- every one of them (no index serves campaign and id together): on PGlite at 100k per kind, 1,000,000
-- passages, 280–380 ms in one statement on its one connection, which every request waited behind
-- while the worker began a build. The count only decides when to pack again (pack(): newer or
-- deleted passages past a tenth of the build). Now: the campaign's passage counter (ask_counts'
-- '' key, 0018: kept exact by the passages' triggers, as pack's own query of due campaigns reads
-- it) less the passages newer than the cutoff, a short range of the primary key. The same number in
-- the same snapshot. Planned for its values: a generic plan of `id > $2` guesses a third of the table.
create or replace function ask_pack_begin(cid text, cutoff bigint) returns bigint
language plpgsql set plan_cache_mode = force_custom_plan as $$
declare
  b bigint;
begin
  insert into ask_packed_staging (campaign_id, build_id, max_passage_id, passages)
  select cid, nextval('ask_packed_build_seq'), cutoff,
         coalesce((select sum(a.n) from ask_counts a where a.campaign_id = cid and a.term = ''), 0)
           - (select count(*) from ask_passages p where p.id > cutoff and p.campaign_id = cid)
  on conflict (campaign_id) do nothing
  returning build_id into b;
  return b;
end $$;
