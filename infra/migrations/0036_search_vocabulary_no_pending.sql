-- The substring step's two GIN lookups without a pending list (issue 15): search_vocabulary_trgm
-- (the words that hold the query) and search_word_overlaps_shared (records counted twice). Both
-- had 0027's 64 kB list, which every lookup reads in full until a VACUUM merges it, and neither
-- table is vacuumed by the worker. Their entries come from new words, new records with overlapping
-- words, and every update of a word's row that does not stay on its page (its counter and newest
-- records are rewritten by every write since 0031: 16 % of 14,052 such updates at 100k per kind
-- moved). Measured at 100k after 2,000 characters created one by one (docs/benchmarks.md): the
-- store's substring search 1.03–1.35 ms of PostgreSQL CPU per call with the lists (4 and 3 pages),
-- 0.81–0.90 once merged; with fastupdate off 0.60–0.64 after the same writes, VACUUM or not. The
-- inserts pay it instead: 1,000 single-row creates 3.0–3.2 s with the lists, 3.1–3.5 s without.
alter index search_vocabulary_trgm set (fastupdate = off);
alter index search_word_overlaps_shared set (fastupdate = off);
-- Turning it off keeps what is already pending until a VACUUM: merged now.
select gin_clean_pending_list(i::regclass) from unnest(array['search_vocabulary_trgm', 'search_word_overlaps_shared']) as i;
