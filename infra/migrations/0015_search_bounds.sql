-- Cross-type search ranks a bounded candidate set (issue 15): a document whose title matches must be
-- found without reading every document whose body does, so titles get a full-text index of their own.
create index search_documents_title_fts on search_documents using gin (to_tsvector('simple', title));
