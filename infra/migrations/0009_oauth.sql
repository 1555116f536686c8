-- OAuth 2.1 for MCP clients (issue 12): registered clients, grants, codes, tokens, consent-page
-- sign-ins, first-party sign-in links, and the shared rate-limit buckets. Every secret is stored
-- as a SHA-256 digest only.
create table oauth_clients (
  id text primary key,
  client_name text not null,
  redirect_uris jsonb not null,
  scope text,
  metadata jsonb not null,
  created_at timestamptz not null
);

-- One grant per approved authorization: what a user let one client do. Revoking it stops every
-- token issued under it.
create table oauth_grants (
  id text primary key,
  user_id text not null references users(id) on delete cascade,
  client_id text not null references oauth_clients(id) on delete cascade,
  scopes jsonb not null,
  resource text not null,
  created_at timestamptz not null,
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index oauth_grants_by_user on oauth_grants (user_id, created_at desc);

create table oauth_codes (
  code_hash text primary key,
  client_id text not null references oauth_clients(id) on delete cascade,
  user_id text not null references users(id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  scopes jsonb not null,
  resource text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  -- Set when the code is exchanged: a second exchange revokes this grant.
  grant_id text references oauth_grants(id) on delete cascade
);

create table oauth_tokens (
  token_hash text primary key,
  grant_id text not null references oauth_grants(id) on delete cascade,
  kind text not null check (kind in ('access', 'refresh')),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- Refresh tokens: set when rotated; presenting it again revokes the grant.
  used_at timestamptz,
  revoked_at timestamptz
);
create index oauth_tokens_by_grant on oauth_tokens (grant_id);

-- A browser signed in on the consent page (the cookie holds the secret).
create table oauth_signins (
  id_hash text primary key,
  user_id text not null references users(id) on delete cascade,
  expires_at timestamptz not null
);

-- One-time sign-in links made by the operator CLI (`cms login-link`).
create table oauth_login_links (
  id_hash text primary key,
  user_id text not null references users(id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz
);

-- Token buckets per API key / token / client address, shared by every instance.
create table rate_limit_buckets (
  subject text primary key,
  tokens double precision not null,
  updated_at timestamptz not null
);
create index rate_limit_buckets_by_age on rate_limit_buckets (updated_at);
