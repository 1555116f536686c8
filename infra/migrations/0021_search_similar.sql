-- Cross-type search's fallback (issue 15): titles that contain the query or are similar to it
-- (word_similarity over pg_trgm.word_similarity_threshold), asked when full text finds nothing.
-- PostgreSQL answers it from the title trigram index (a BitmapOr of `ilike` and `<%`); PGlite
-- costed the same plan above a sequential scan and tested word_similarity on every document (80 ms
-- at 20,000 documents, linear in the campaign). Sequential scans are off inside, as in
-- search_candidates, and campaign and type are fenced (`|| ''`) so that no btree over the whole
-- campaign stands in for the table scan: the trigram index is the only way in, on both engines.
create function search_similar(p_campaign text, p_types text, p_query text, p_like text, p_viewer text)
returns table (doc_type text, doc_id text, title text, body text)
language sql stable set enable_seqscan = off as $$
  select d.doc_type, d.doc_id, d.title, d.body from search_documents d
  where d.campaign_id || '' = p_campaign and d.doc_type || '' = any (string_to_array(p_types, ','))
    and (d.title ilike p_like or p_query <% d.title) and search_visible(d.facets, p_viewer)
$$;
