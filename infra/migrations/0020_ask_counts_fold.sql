-- Ask's running counts on the embedded database (issue 11, PGlite import memory). PGlite has no
-- autovacuum, so every row a fold rewrites stays behind as a dead tuple, and the fold after each
-- import rewrote all of a campaign's words (tens of thousands after a few episodes) — read and
-- written again each time, the file-system traffic growing with the campaign. A fold now takes
-- only the words that have more than one row (the words written since the last fold); the rest
-- are already folded. Safe beside concurrent writers as before: a delta committed after the fold's
-- snapshot is neither deleted nor counted, and a row another fold deleted first is skipped.
create or replace function ask_counts_compact(cid text) returns void language sql as $$
  with split as (select term from ask_counts where campaign_id = cid group by term having count(*) > 1),
       gone as (delete from ask_counts a using split s where a.campaign_id = cid and a.term = s.term returning a.term, a.n, a.len)
  insert into ask_counts (campaign_id, term, n, len)
  select cid, term, sum(n), sum(len) from gone group by term having sum(n) <> 0 or sum(len) <> 0
$$;

-- A transcript's term rows go into the index in key order: ~100,000 rows an import land on
-- neighbouring leaf pages of ask_terms_probe instead of one random page each (with PGlite's small
-- buffer cache, a read and a write of a page per row once the index outgrows it).
create or replace function ask_passages_terms_inserted() returns trigger language plpgsql as $$
begin
  -- Term counts weigh where the word stands: title 4, names 2, body 1 (as ask_passage_terms).
  insert into ask_terms (campaign_id, term, passage_id, tf, len)
  select n.campaign_id, u.lexeme, n.id,
         (select sum(case w when 'A' then 4 when 'B' then 2 when 'C' then 1 else 0.5 end) from unnest(u.weights) w),
         n.len
  from new_passages n, unnest(n.search_vector) u
  order by n.campaign_id, u.lexeme, n.id;
  return null;
end $$;
