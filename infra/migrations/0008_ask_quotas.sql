-- Ask's token budgets: tokens (prompt + answer) a user used per calendar window, UTC. One row per
-- user, window kind and window start; every instance adds to the same rows.
create table ask_token_usage (
  user_id text not null references users(id) on delete cascade,
  window_kind text not null check (window_kind in ('month', 'hour')),
  window_start timestamptz not null,
  tokens bigint not null default 0 check (tokens >= 0),
  primary key (user_id, window_kind, window_start)
);
