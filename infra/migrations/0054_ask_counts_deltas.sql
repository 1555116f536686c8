-- Ask's running counts (0018) are insert-only deltas that the worker folds once a campaign has
-- enough of them. Which campaigns were due, and which words a fold takes (0020: the words with more
-- than one row), were both found by reading every row: the due check all of ask_counts, the fold
-- all of its campaign's rows. At 300k characters (308,000 rows) the check took 1.4 s on PostgreSQL
-- and stalled PGlite's one connection for seconds, every minute a campaign was written (issue 15).
-- A row now says whether it is a fold's result: the deltas written since are the rows of a partial
-- index, so the check and the fold read those and the rows of their words only.
--
-- Rows already there count as folded (a constant default: no rewrite), but for the words that hold
-- more than one row, which are deltas still to fold.
alter table ask_counts add column folded boolean not null default true;
alter table ask_counts alter column folded set default false;
update ask_counts a set folded = false
where exists (select 1 from ask_counts b where b.campaign_id = a.campaign_id and b.term = a.term and b.ctid <> a.ctid);
create index ask_counts_deltas on ask_counts (campaign_id, term) where not folded;

-- Folds a campaign's deltas into one row a word: every row of each word that has a delta, looked up
-- by key (an array, so no estimate of the deltas can turn it into a read of the whole table). As
-- before, rows a concurrent fold already took are not returned to this one, and a delta committed
-- after this statement's snapshot stays for the next fold.
create or replace function ask_counts_compact(cid text) returns void language sql as $$
  with gone as (
    delete from ask_counts a
    where a.campaign_id = cid and a.term = any (array(select distinct term from ask_counts where campaign_id = cid and not folded))
    returning a.term, a.n, a.len)
  insert into ask_counts (campaign_id, term, n, len, folded)
  select cid, term, sum(n), sum(len), true from gone group by term having sum(n) <> 0 or sum(len) <> 0
$$;
