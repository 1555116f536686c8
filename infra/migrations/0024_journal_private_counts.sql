-- The journals list's total counted the viewer's own private entries on every request (issue 15:
-- 10,000 of them at the 100k bench, first page p99 36.6 ms against 13.9 ms at 10k). Each author's
-- private entries now have a counter of their own, kept by the same statement triggers.
create or replace function record_count_kinds(tbl text, r jsonb) returns text[] language sql immutable as $$
  select case tbl
    when 'characters' then case when (r->>'approved')::boolean then array['characters', 'characters:approved'] else array['characters'] end
    when 'entities' then array[(r->>'kind') || 's']
    when 'links' then case when r->>'from_type' = 'Journal' or r->>'to_type' = 'Journal' then array['links', 'links:journal'] else array['links'] end
    when 'journal_entries' then case when (r->>'is_public')::boolean then array['journals', 'journals:public'] else array['journals', 'journals:private:' || (r->>'author_id')] end
    else array[tbl]
  end
$$;

insert into record_counts (campaign_id, kind, n)
select campaign_id, 'journals:private:' || author_id, count(*) from journal_entries where not is_public group by 1, 2 order by 1, 2
on conflict (campaign_id, kind) do update set n = excluded.n;
