-- A deleted campaign's list vocabulary goes with it (its title vocabulary does since
-- 0030_search_title_vocabulary_campaign): search_terms rows leave with their records, but
-- search_vocabulary is never pruned, and it kept a deleted campaign's names forever. Neither a
-- foreign key nor a statement trigger on campaigns: the records' delete triggers (0031) upsert their
-- words' counts during the cascade, after the campaign's own triggers have run (measured: a statement
-- trigger's cleanup was followed by the words re-inserted with n = -1). A constraint trigger
-- deferred to the commit runs after all of them.
delete from search_vocabulary v where not exists (select from campaigns c where c.id = v.campaign_id);

create function search_vocabulary_forget() returns trigger language plpgsql as $$
begin
  delete from search_vocabulary where campaign_id = old.id;
  return null;
end $$;

create constraint trigger campaigns_forget_search_vocabulary after delete on campaigns
  deferrable initially deferred for each row execute function search_vocabulary_forget();
