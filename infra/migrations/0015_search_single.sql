-- The text indexes stay single-column (issue 15). Where the first 0015_search_bounds ran, they
-- carried the campaign (btree_gin); measured at 100k, a GIN scan that must also walk the
-- campaign's posting list took 1.2 ms where the plain index took 0.06 ms (trigram: 18 ms against
-- 0.7 ms). Where it did not run, this finds the plain indexes and leaves them.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'btree_gin') then
    drop index if exists characters_fts, characters_trgm, entities_fts, entities_trgm, quests_trgm,
      search_documents_fts, search_documents_title_trgm, search_documents_title_fts;
    create index characters_fts on characters using gin (search_vector);
    create index characters_trgm on characters using gin (search_text gin_trgm_ops);
    create index entities_fts on entities using gin (search_vector);
    create index entities_trgm on entities using gin (search_text gin_trgm_ops);
    create index quests_trgm on quests using gin (search_text gin_trgm_ops);
    create index search_documents_fts on search_documents using gin (search_vector);
    create index search_documents_title_trgm on search_documents using gin (title gin_trgm_ops);
    create index search_documents_title_fts on search_documents using gin (to_tsvector('simple', title));
    drop extension btree_gin;
  end if;
end $$;
