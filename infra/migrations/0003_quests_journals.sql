-- Sessions (the part quests refer to; transcripts and the rest come later), quests, journals.
create table sessions (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  type text not null,
  title text not null,
  summary text,
  notes text,
  session_date timestamptz not null,
  image text,
  public boolean not null default false,
  pbp_start_msg_url text,
  pbp_end_msg_url text,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index sessions_by_campaign_date on sessions (campaign_id, session_date, created_at, id);

create table quests (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  order_index integer not null,
  quest_name text not null,
  quest_giver text,
  quest_giver_id text,
  quest_category text not null,
  status text not null,
  success_definition text,
  failure_conditions text,
  next_action text,
  resolution text,
  objectives jsonb not null default '[]',
  progress_log_entries jsonb not null default '[]',
  related_entity_refs jsonb not null default '[]',
  search_text text not null default '',
  created_at timestamptz not null,
  updated_at timestamptz
);
create index quests_by_campaign on quests (campaign_id, order_index, created_at);
create index quests_trgm on quests using gin (search_text gin_trgm_ops);

create table journal_folders (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  parent_id text references journal_folders(id) on delete set null,
  name text not null,
  path text not null,
  description text,
  position integer not null default 0,
  metadata jsonb,
  created_at timestamptz not null,
  updated_at timestamptz,
  unique (campaign_id, path)
);
create index journal_folders_by_parent on journal_folders (parent_id);

create table journal_entries (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  title text not null,
  summary text,
  content text not null default '',
  content_rich jsonb,
  content_metadata jsonb,
  tags jsonb not null default '[]',
  token_count integer not null default 0,
  cover_image text,
  is_pinned boolean not null default false,
  is_public boolean not null default false,
  status text not null default 'draft',
  published_at timestamptz,
  archived_at timestamptz,
  folder_id text references journal_folders(id) on delete set null,
  author_id text not null references users(id),
  last_edited_by_id text references users(id),
  created_at timestamptz not null,
  updated_at timestamptz
);
create index journal_entries_by_campaign on journal_entries (campaign_id, is_pinned desc, updated_at desc, id);
create index journal_entries_by_author on journal_entries (author_id);
create index journal_entries_by_folder on journal_entries (folder_id);

create table journal_shares (
  entry_id text not null references journal_entries(id) on delete cascade,
  user_id text not null references users(id) on delete cascade,
  level text not null,
  created_at timestamptz not null,
  primary key (entry_id, user_id)
);
create index journal_shares_by_user on journal_shares (user_id);

-- Chunks feed search and Ask; embeddings arrive with an embedder.
create table journal_chunks (
  entry_id text not null references journal_entries(id) on delete cascade,
  campaign_id text not null references campaigns(id) on delete cascade,
  position integer not null,
  text text not null,
  token_count integer not null,
  embedding jsonb,
  primary key (entry_id, position)
);
