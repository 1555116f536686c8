-- Cross-type search ranks a bounded candidate set (issue 15): a document whose title matches must be
-- found without reading every document whose body does, so titles get a full-text index of their own.
-- (A first version of this migration put the campaign into the text indexes with btree_gin; measured,
-- those scans were 6 to 20 times slower than the single-column indexes: 0015_search_single undoes it
-- where it ran.)
create index search_documents_title_fts on search_documents using gin (to_tsvector('simple', title));
