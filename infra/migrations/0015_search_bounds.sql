-- Search bounded by its hits, not by the campaign (issue 15). Every search is within one campaign
-- (and one kind); with the campaign outside the text indexes, the planner intersected the text
-- index's few hits with a bitmap of the whole campaign from its btree (100,000 entries read for
-- 20 rows at 100k). btree_gin puts the campaign (and the kind) into the same GIN index, so one index
-- scan finds the campaign's matches. The single-column indexes they replace go.
create extension if not exists btree_gin;

drop index characters_fts;
drop index characters_trgm;
create index characters_fts on characters using gin (campaign_id, search_vector);
create index characters_trgm on characters using gin (campaign_id, search_text gin_trgm_ops);

drop index entities_fts;
drop index entities_trgm;
create index entities_fts on entities using gin (campaign_id, kind, search_vector);
create index entities_trgm on entities using gin (campaign_id, kind, search_text gin_trgm_ops);

drop index quests_trgm;
create index quests_trgm on quests using gin (campaign_id, search_text gin_trgm_ops);

drop index search_documents_fts;
drop index search_documents_title_trgm;
create index search_documents_fts on search_documents using gin (campaign_id, doc_type, search_vector);
create index search_documents_title_trgm on search_documents using gin (campaign_id, doc_type, title gin_trgm_ops);
-- Cross-type search ranks a bounded candidate set: a document whose title matches must be found
-- without reading every document whose body does, so titles get a full-text index of their own.
create index search_documents_title_fts on search_documents using gin (campaign_id, doc_type, to_tsvector('simple', title));
