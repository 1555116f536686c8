-- Search GIN indexes keep a short pending list (issue 15, records created one by one through the API).
-- With fastupdate (the default) a GIN index puts new entries in a pending list of up to
-- gin_pending_list_limit (4 MB) that every search scans in full and that only VACUUM (or an insert that
-- overflows it) merges. A campaign written through the API and read before any vacuum (autovacuum off
-- or behind; PGlite has none) so paid up to 4 MB per lookup: 449 buffers and 37 ms for 40 hits of
-- characters_fts at 60,000 characters, 3 buffers after the merge. The planner charges those pages too
-- (cost 1,800 instead of 17), so it left the text index for the campaign's btree (every row of the
-- campaign read and tested). 64 kB is the smallest limit: a scan reads at most 8 pending pages, and
-- inserts still go through the list (10,000 single-row inserts: 2.7 s as with 4 MB; fastupdate off
-- took 5.4–8.1 s). The lists already there are merged now.
alter index characters_fts set (gin_pending_list_limit = 64);
alter index characters_trgm set (gin_pending_list_limit = 64);
alter index entities_fts set (gin_pending_list_limit = 64);
alter index entities_trgm set (gin_pending_list_limit = 64);
alter index quests_trgm set (gin_pending_list_limit = 64);
alter index search_documents_fts set (gin_pending_list_limit = 64);
alter index search_documents_title_fts set (gin_pending_list_limit = 64);
alter index search_documents_title_trgm set (gin_pending_list_limit = 64);
alter index ask_passages_fts set (gin_pending_list_limit = 64);
alter index ask_passages_title_trgm set (gin_pending_list_limit = 64);
select gin_clean_pending_list(i::regclass)
from unnest(array['characters_fts', 'characters_trgm', 'entities_fts', 'entities_trgm', 'quests_trgm', 'search_documents_fts',
  'search_documents_title_fts', 'search_documents_title_trgm', 'ask_passages_fts', 'ask_passages_title_trgm']) as i;
