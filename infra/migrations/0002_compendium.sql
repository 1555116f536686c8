-- Characters, factions/locations/items, links, the search index and durable background tasks.
create extension if not exists pg_trgm;

alter table speakers add column updated_at timestamptz;
create unique index speakers_name_per_campaign on speakers (campaign_id, lower(name));

create table characters (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  character_name text not null,
  character_aliases jsonb not null default '[]',
  player_name text,
  player_handle text,
  speaker_id text references speakers(id) on delete set null,
  description text,
  backstory text,
  type text not null default 'NPC',
  image text,
  tcg_image text,
  approved boolean not null default true,
  merge boolean not null default false,
  -- name, aliases, player and type: what list search matches, kept by the application on write
  search_text text not null default '',
  search_vector tsvector generated always as (to_tsvector('simple', search_text)) stored,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index characters_by_campaign on characters (campaign_id, created_at desc, id desc);
create index characters_fts on characters using gin (search_vector);
create index characters_trgm on characters using gin (search_text gin_trgm_ops);

-- Factions, locations and items share one shape; `kind` tells them apart.
create table entities (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  kind text not null check (kind in ('faction', 'location', 'item')),
  name text not null,
  aliases jsonb not null default '[]',
  description text,
  type text,
  image text,
  tcg_image text,
  parent_id text references entities(id) on delete set null,
  merge boolean not null default false,
  search_text text not null default '',
  search_vector tsvector generated always as (to_tsvector('simple', search_text)) stored,
  created_at timestamptz not null,
  updated_at timestamptz
);
create index entities_by_campaign on entities (campaign_id, kind, created_at desc, id desc);
create index entities_by_parent on entities (parent_id) where parent_id is not null;
create index entities_fts on entities using gin (search_vector);
create index entities_trgm on entities using gin (search_text gin_trgm_ops);

create table links (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  from_type text not null,
  from_id text not null,
  to_type text not null,
  to_id text not null,
  alias text not null,
  alias_key text not null,
  origin text not null default 'api',
  created_at timestamptz not null,
  unique (from_type, from_id, alias_key)
);
create index links_by_campaign on links (campaign_id, created_at desc, id desc);
create index links_by_target on links (to_id);
create index links_by_source on links (from_id);

create table search_documents (
  campaign_id text not null references campaigns(id) on delete cascade,
  doc_type text not null,
  doc_id text not null,
  title text not null,
  body text not null default '',
  facets jsonb not null default '{}',
  -- Titles word by word, bodies with English stemming; titles weigh more.
  search_vector tsvector generated always as (setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('english', body), 'B')) stored,
  updated_at timestamptz not null,
  primary key (doc_type, doc_id)
);
create index search_documents_by_campaign on search_documents (campaign_id, doc_type);
create index search_documents_fts on search_documents using gin (search_vector);
create index search_documents_title_trgm on search_documents using gin (title gin_trgm_ops);

create table tasks (
  id text primary key,
  campaign_id text references campaigns(id) on delete cascade,
  kind text not null,
  status text not null default 'queued',
  payload jsonb not null,
  result jsonb,
  error text,
  attempts integer not null default 0,
  created_by text,
  created_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz,
  lease_until timestamptz
);
create index tasks_ready on tasks (created_at) where status in ('queued', 'running');
