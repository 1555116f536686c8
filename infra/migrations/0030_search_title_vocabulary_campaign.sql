-- A deleted campaign's title words go with it (issue 15, 0030_search_similar_titles): its documents'
-- rows in search_title_terms are removed by their delete trigger, but the vocabulary is never
-- pruned, and without this it kept the words of a deleted campaign's titles (names) forever.
delete from search_title_vocabulary v where not exists (select from campaigns c where c.id = v.campaign_id);
alter table search_title_vocabulary add constraint search_title_vocabulary_campaign
  foreign key (campaign_id) references campaigns (id) on delete cascade;
