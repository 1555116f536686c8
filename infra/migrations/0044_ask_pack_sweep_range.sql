-- ask_pack_sweep (0040) joined the deleted rows to a window over the retired build's first words;
-- with ask_packed's statistics from before that build existed (a retired build is always newer
-- than the last ANALYZE on a server without autovacuum), the planner expected one row and ran the
-- window once per row: 77 s for one batch of 2,000 words out of 16,198 (PostgreSQL, a campaign
-- seeded through the API), every worker pass, with the rows never gone. Now the last word within
-- the budget is found first and the batch deleted as a range of the primary key: the same rows.
-- It also took "nothing deleted" for "the build is swept": when another instance's sweep had
-- deleted the same words meanwhile, the build was forgotten with words left that no later pass
-- deleted. Now a build is forgotten only once none of its rows is left.
create or replace function ask_pack_sweep(budget bigint) returns integer language plpgsql as $$
declare
  r ask_packed_retired;
  upto text;
  deleted integer;
begin
  for r in select * from ask_packed_retired order by campaign_id, build_id loop
    select coalesce(max(term) filter (where running <= budget), min(term)) into upto
    from (select term, sum(n) over (order by term) as running from ask_packed
          where campaign_id = r.campaign_id and build_id = r.build_id order by term limit 2000) w;
    if upto is not null then
      delete from ask_packed where campaign_id = r.campaign_id and build_id = r.build_id and term <= upto;
      get diagnostics deleted = row_count;
      if deleted > 0 then return deleted; end if;
      -- Another sweep took this batch: the caller asks again for the rest.
      if exists (select 1 from ask_packed where campaign_id = r.campaign_id and build_id = r.build_id) then return 1; end if;
    end if;
    delete from ask_packed_retired where campaign_id = r.campaign_id and build_id = r.build_id;
  end loop;
  return 0;
end $$;
