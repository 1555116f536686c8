-- Filtered lists served by an index in the list's own order (issue 15). A list filtered by an
-- enumerated column read the campaign's index in list order and dropped the rows that did not
-- match: a value few records have read most of the campaign for its first page, and a value none
-- has read all of it (characters of type "Other" at 10k: a sequential scan of the table, 12 ms;
-- links to an "Item" at 500,000 links: every link). One index per filter, campaign and value
-- first, then the list's order, reads the page's matches and nothing else.
create index characters_by_type on characters (campaign_id, type, created_at desc, id desc);
create index characters_approved_by_type on characters (campaign_id, type, created_at desc, id desc) where approved;
create index links_by_from_type on links (campaign_id, from_type, created_at desc, id desc);
create index links_by_to_type on links (campaign_id, to_type, created_at desc, id desc);
create index links_by_alias on links (campaign_id, alias_key, created_at desc, id desc);
create index moments_by_kind on moments (campaign_id, kind, created_at desc, id desc);
create index quests_by_status on quests (campaign_id, status, order_index, created_at, id);
create index quests_by_category on quests (campaign_id, quest_category, order_index, created_at, id);
create index sessions_by_type on sessions (campaign_id, type, session_date, created_at, id);
create index sessions_public on sessions (campaign_id, session_date, created_at, id) where public;

-- Quests by category, alone or with a status, count by counters too (0029 had status alone):
-- 'quests:category:<c>' and 'quests:status:<s>:category:<c>'. Both columns are not null.
create or replace function record_count_kinds(tbl text, r jsonb) returns text[] language sql immutable as $$
  select case tbl
    when 'characters' then case when (r->>'approved')::boolean
      then array['characters', 'characters:approved', 'characters:type:' || (r->>'type'), 'characters:approved:type:' || (r->>'type')]
      else array['characters', 'characters:type:' || (r->>'type')] end
    when 'entities' then array[(r->>'kind') || 's']
    when 'links' then case when r->>'from_type' = 'Journal' or r->>'to_type' = 'Journal'
      then array['links', 'links:journal', 'links:from:' || (r->>'from_type'), 'links:to:' || (r->>'to_type')]
      else array['links', 'links:from:' || (r->>'from_type'), 'links:to:' || (r->>'to_type')] end
    when 'journal_entries' then case when (r->>'is_public')::boolean then array['journals', 'journals:public'] else array['journals', 'journals:private:' || (r->>'author_id')] end
    when 'quests' then array['quests', 'quests:status:' || (r->>'status'), 'quests:category:' || (r->>'quest_category'),
                             'quests:status:' || (r->>'status') || ':category:' || (r->>'quest_category')]
    when 'moments' then array['moments', 'moments:kind:' || (r->>'kind')]
    when 'sessions' then case when (r->>'public')::boolean
      then array['sessions', 'sessions:type:' || (r->>'type'), 'sessions:public', 'sessions:public:type:' || (r->>'type')]
      else array['sessions', 'sessions:type:' || (r->>'type')] end
    else array[tbl]
  end
$$;

insert into record_counts (campaign_id, kind, n)
select campaign_id, k, count(*) from (
  select campaign_id, 'quests:category:' || quest_category k from quests
  union all select campaign_id, 'quests:status:' || status || ':category:' || quest_category from quests
) x group by 1, 2 order by 1, 2
on conflict (campaign_id, kind) do update set n = excluded.n;
