-- The first stage of cross-type search (issue 15): per document type, at most `p_n` visible
-- documents whose title matches (title words by prefix) and `p_n` whose text matches (stemmed
-- words); ts_rank then ranks only those. Read at 100k: a plan that asks the GIN index builds a
-- bitmap of every match first (25,000 for a word in a quarter of the documents, 20+ ms; a prefix
-- over all text, a bitmap of every word it starts), and with a LIMIT the planner rather read the
-- table in order until enough matches turned up (the whole table for a type without any). So the
-- text stage first probes the type's documents in index order (4 × p_n rows): a common word fills
-- its quota there; only a rarer one, whose bitmap is small, asks the GIN index (migration
-- 0015_search_bounds). Sequential scans are off inside: no stage can become a table scan.
create function search_visible(facets jsonb, viewer text) returns boolean language sql immutable as $$
  -- The journal rule on a document's facets (adapters/sql/search.ts): public, the author, or shared.
  select not (facets ? 'visibility') or (facets->'visibility'->>'is_public')::boolean
         or facets->'visibility'->>'author_id' = viewer or facets->'visibility'->'shared_with' ? viewer
$$;

create function search_candidates(p_campaign text, p_types text, p_title tsquery, p_body tsquery, p_viewer text, p_n int)
returns table (doc_type text, doc_id text, title text, body text, search_vector tsvector)
language plpgsql stable set enable_seqscan = off as $$
declare
  kind text;
  got bigint;
begin
  foreach kind in array string_to_array(p_types, ',') loop
    -- Titles, words by prefix (few titles share a prefix; the title index holds titles only).
    return query select d.doc_type, d.doc_id, d.title, d.body, d.search_vector from search_documents d
      where d.campaign_id = p_campaign and d.doc_type = kind and to_tsvector('simple', d.title) @@ p_title and search_visible(d.facets, p_viewer) limit p_n;
    -- Any text, stemmed words: first a probe of the type's documents in index order, then the index.
    return query select d.doc_type, d.doc_id, d.title, d.body, d.search_vector
      from (select * from search_documents s where s.campaign_id = p_campaign and s.doc_type = kind limit 4 * p_n) d
      where d.search_vector @@ p_body and search_visible(d.facets, p_viewer) limit p_n;
    get diagnostics got = row_count;
    if got < p_n then
      return query select d.doc_type, d.doc_id, d.title, d.body, d.search_vector from search_documents d
        where d.campaign_id = p_campaign and d.doc_type = kind and d.search_vector @@ p_body and search_visible(d.facets, p_viewer) limit p_n;
    end if;
  end loop;
end $$;
