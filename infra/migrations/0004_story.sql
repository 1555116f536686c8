-- Transcripts, cast analyses, handouts, beats, moments and recap cards (hero awards, quotes, spotlights).
create table transcripts (
  session_id text primary key references sessions(id) on delete cascade,
  campaign_id text not null references campaigns(id) on delete cascade,
  version integer not null,
  source_type text not null,
  speakers jsonb not null,
  utterance_count integer not null,
  char_count integer not null,
  tokens integer not null,
  created_at timestamptz not null
);

create table transcript_utterances (
  session_id text not null references sessions(id) on delete cascade,
  position integer not null,
  speaker_label text not null,
  text text not null,
  start_s double precision not null,
  end_s double precision not null,
  primary key (session_id, position)
);

create table cast_analyses (
  id text primary key,
  session_id text not null unique references sessions(id) on delete cascade,
  campaign_id text not null references campaigns(id) on delete cascade,
  analysis jsonb not null,
  source text not null default 'computed',
  pdf_saved_at timestamptz,
  pdf_page_count integer,
  created_at timestamptz not null,
  updated_at timestamptz
);

create table session_handouts (
  session_id text primary key references sessions(id) on delete cascade,
  campaign_id text not null references campaigns(id) on delete cascade,
  handout jsonb not null,
  source text not null,
  pdf_saved_at timestamptz,
  pdf_page_count integer,
  created_at timestamptz not null,
  updated_at timestamptz
);

create table beats (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  label text not null,
  type text not null,
  description text,
  index integer not null default 0,
  parent_id text references beats(id) on delete set null,
  metadata jsonb,
  game_session_ids jsonb not null default '[]',
  created_at timestamptz not null,
  updated_at timestamptz
);
create index beats_by_campaign on beats (campaign_id, index, created_at);
create index beats_by_parent on beats (parent_id);
create index beats_by_session on beats using gin (game_session_ids);

create table moments (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  session_id text references sessions(id) on delete set null,
  label text,
  content text,
  image text,
  index integer,
  categories jsonb not null default '[]',
  kind text not null default 'legacy',
  metadata jsonb,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index moments_by_campaign on moments (campaign_id, created_at desc, id desc);
create index moments_by_session on moments (session_id);
create index moments_categories on moments using gin (categories);

-- One recap pipeline per session and source; cards hang off it.
create table recap_pipelines (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  session_id text not null references sessions(id) on delete cascade,
  source text not null,
  recap_set_id text not null,
  created_at timestamptz not null,
  unique (session_id, source)
);

create table hero_awards (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  session_id text not null references sessions(id) on delete cascade,
  title text not null,
  description text not null,
  character_name text not null default '',
  player_name text,
  tone_mode text not null default 'default',
  award_mode text not null default 'moment',
  style text not null default 'verdant',
  variant text not null default 'square',
  custom_theme jsonb,
  order_index integer not null default 0,
  card_png bytea,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index hero_awards_by_campaign on hero_awards (campaign_id, session_id, order_index);

-- Quotes and spotlights: recap entries told apart by entry_type.
create table recap_entries (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  session_id text not null references sessions(id) on delete cascade,
  entry_type text not null,
  pipeline_id text references recap_pipelines(id) on delete set null,
  recap_set_id text,
  text text,
  speaker text,
  character_name text,
  context text,
  title text,
  description text,
  player_name text,
  style text,
  custom_theme jsonb,
  order_index integer not null default 0,
  source_moment_id text references moments(id) on delete set null,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index recap_entries_by_campaign on recap_entries (campaign_id, entry_type, session_id, order_index);
