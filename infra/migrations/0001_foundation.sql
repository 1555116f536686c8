-- Users, API keys, campaigns and their members, speakers and per-campaign settings.
create table users (
  id text primary key,
  name text not null,
  email text not null unique,
  role text not null default 'user',
  created_at timestamptz not null
);

create table api_keys (
  id text primary key,
  user_id text not null references users(id) on delete cascade,
  prefix text not null,
  key_hash text not null unique,
  scopes jsonb not null default '[]',
  created_at timestamptz not null,
  revoked_at timestamptz
);
create index api_keys_by_user on api_keys (user_id, created_at desc);

create table campaigns (
  id text primary key,
  title text not null,
  description text,
  system text,
  summary text,
  language text not null default 'en',
  image text,
  public boolean not null default false,
  mature boolean not null default false,
  owner_id text not null references users(id),
  created_at timestamptz not null,
  updated_at timestamptz
);
create index campaigns_by_owner on campaigns (owner_id, created_at desc, id desc);
create index campaigns_public on campaigns (created_at desc, id desc) where public;

create table campaign_members (
  campaign_id text not null references campaigns(id) on delete cascade,
  user_id text not null references users(id) on delete cascade,
  roles jsonb not null,
  created_at timestamptz not null,
  primary key (campaign_id, user_id)
);
create index campaign_members_by_user on campaign_members (user_id);

create table speakers (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  name text not null,
  handle text,
  user_id text references users(id) on delete set null,
  roles jsonb not null default '[]',
  created_at timestamptz not null
);
create index speakers_by_campaign on speakers (campaign_id, created_at);

create table campaign_settings (
  campaign_id text primary key references campaigns(id) on delete cascade,
  character_arc jsonb not null,
  updated_at timestamptz not null
);

create table field_definitions (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  entity_type text not null,
  key text not null,
  label text not null,
  field_type text not null,
  options jsonb not null default '[]',
  position integer not null,
  created_at timestamptz not null,
  unique (campaign_id, entity_type, key)
);
