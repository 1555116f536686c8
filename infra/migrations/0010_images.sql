-- Managed images: one row per object the service handed out a key for (an upload, pending until
-- completed, or a generated image). No foreign key to the campaign on purpose: when a campaign or
-- a record goes, its rows stay until the sweep has deleted their objects from the blob store.
create table images (
  object_key text primary key,
  campaign_id text not null,
  entity_type text not null check (entity_type in ('campaign', 'character', 'faction', 'location', 'item', 'moment', 'session')),
  entity_id text not null,
  origin text not null check (origin in ('upload', 'generated')),
  status text not null check (status in ('pending', 'ready')),
  content_type text not null,
  url text not null,
  attached boolean not null default false,
  created_by text,
  expires_at timestamptz,
  created_at timestamptz not null,
  completed_at timestamptz
);
create index images_by_campaign on images (campaign_id);
create index images_by_entity on images (entity_type, entity_id);
create index images_pending on images (expires_at) where status = 'pending';

-- Image generations per owner account and billing cycle (calendar month, UTC).
create table image_generation_usage (
  owner_id text not null,
  cycle_start timestamptz not null,
  used integer not null default 0 check (used >= 0),
  primary key (owner_id, cycle_start)
);
