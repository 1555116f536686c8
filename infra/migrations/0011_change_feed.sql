-- Issue 14: the change feed. Every write to a campaign's records appends {seq, kind, id, op, at,
-- actor_id} here in the same transaction, from triggers (so no code path can forget it).
-- seq is per campaign and gap-free: it is taken from a counter row, whose lock orders the
-- campaign's writers, so a reader never sees seq n+1 committed while n is still in flight.
create table change_counters (
  campaign_id text primary key references campaigns(id) on delete cascade,
  last_seq bigint not null default 0,
  -- Changes up to here were removed by retention; a cursor before it has expired.
  pruned_through bigint not null default 0
);

create table changes (
  campaign_id text not null references campaigns(id) on delete cascade,
  seq bigint not null,
  kind text not null,
  record_id text not null,
  op text not null check (op in ('create', 'update', 'delete')),
  at timestamptz not null,
  actor_id text,
  -- null: every reader of the campaign; otherwise the user ids that may read the record (private journal entries).
  audience jsonb,
  primary key (campaign_id, seq)
);
create index changes_by_time on changes (at);

-- The acting user is set per transaction by the service (set_config('cms.actor_id', id, true)).
create function cms_append_change(cid text, k text, rid text, o text, aud jsonb) returns void language plpgsql as $$
declare
  n bigint;
begin
  -- A campaign being deleted takes its feed with it: nothing to record for its cascaded rows.
  if cid is null or not exists (select 1 from campaigns where id = cid) then
    return;
  end if;
  insert into change_counters as c (campaign_id, last_seq) values (cid, 1)
    on conflict (campaign_id) do update set last_seq = c.last_seq + 1
    returning last_seq into n;
  insert into changes (campaign_id, seq, kind, record_id, op, at, actor_id, audience)
  values (cid, n, k, rid, o, now(), nullif(current_setting('cms.actor_id', true), ''), aud);
end $$;

-- TG_ARGV[0]: the kind ('entity' and 'recap' take it from the row); TG_ARGV[1]: the id column.
create function cms_record_change() returns trigger language plpgsql as $$
declare
  k text := TG_ARGV[0];
  id_col text := coalesce(TG_ARGV[1], 'id');
  o text;
  r record;
  rid text;
  cid text;
begin
  if TG_OP = 'UPDATE' and NEW is not distinct from OLD then
    return null;
  end if;
  if TG_OP = 'DELETE' then r := OLD; o := 'delete'; elsif TG_OP = 'INSERT' then r := NEW; o := 'create'; else r := NEW; o := 'update'; end if;
  -- Each branch names only columns its tables have (PL/pgSQL plans a statement when it first runs).
  if id_col = 'user_id' then rid := r.user_id;
  elsif id_col = 'session_id' then rid := r.session_id;
  else rid := r.id;
  end if;
  if k = 'campaign' then
    if o = 'delete' then return null; end if;
    cid := r.id;
  else
    cid := r.campaign_id;
  end if;
  if k = 'entity' then k := r.kind;
  elsif k = 'recap' then k := r.entry_type;
  end if;
  perform cms_append_change(cid, k, rid, o, null);
  return null;
end $$;

-- Journal entries: who may read a private one is recorded with the change (before a delete, while its shares still exist).
create function cms_audience_of_entry(entry_id text, author text, is_public boolean) returns jsonb language sql stable as $$
  select case when is_public then null
    else jsonb_build_array(author) || coalesce((select jsonb_agg(s.user_id order by s.user_id) from journal_shares s where s.entry_id = cms_audience_of_entry.entry_id and s.user_id <> author), '[]'::jsonb)
  end
$$;

create function cms_journal_entry_change() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    perform cms_append_change(OLD.campaign_id, 'journal_entry', OLD.id, 'delete', cms_audience_of_entry(OLD.id, OLD.author_id, OLD.is_public));
    return OLD;
  end if;
  if TG_OP = 'UPDATE' and NEW is not distinct from OLD then
    return null;
  end if;
  perform cms_append_change(NEW.campaign_id, 'journal_entry', NEW.id, case when TG_OP = 'INSERT' then 'create' else 'update' end,
    cms_audience_of_entry(NEW.id, NEW.author_id, NEW.is_public));
  return null;
end $$;

-- A share given or taken is an update of its entry (skipped when the entry itself is going away).
create function cms_journal_share_change() returns trigger language plpgsql as $$
declare
  e record;
  eid text;
begin
  if TG_OP = 'DELETE' then eid := OLD.entry_id; else eid := NEW.entry_id; end if;
  select id, campaign_id, author_id, is_public into e from journal_entries where id = eid;
  if e.id is null then
    return null;
  end if;
  perform cms_append_change(e.campaign_id, 'journal_entry', e.id, 'update', cms_audience_of_entry(e.id, e.author_id, e.is_public));
  return null;
end $$;

create trigger cms_changes_campaigns after insert or update on campaigns for each row execute function cms_record_change('campaign');
create trigger cms_changes_members after insert or update or delete on campaign_members for each row execute function cms_record_change('member', 'user_id');
create trigger cms_changes_speakers after insert or update or delete on speakers for each row execute function cms_record_change('speaker');
create trigger cms_changes_characters after insert or update or delete on characters for each row execute function cms_record_change('character');
create trigger cms_changes_entities after insert or update or delete on entities for each row execute function cms_record_change('entity');
create trigger cms_changes_links after insert or update or delete on links for each row execute function cms_record_change('link');
create trigger cms_changes_sessions after insert or update or delete on sessions for each row execute function cms_record_change('session');
create trigger cms_changes_transcripts after insert or update or delete on transcripts for each row execute function cms_record_change('transcript', 'session_id');
create trigger cms_changes_cast_analyses after insert or update or delete on cast_analyses for each row execute function cms_record_change('cast_analysis', 'session_id');
create trigger cms_changes_handouts after insert or update or delete on session_handouts for each row execute function cms_record_change('handout', 'session_id');
create trigger cms_changes_beats after insert or update or delete on beats for each row execute function cms_record_change('beat');
create trigger cms_changes_moments after insert or update or delete on moments for each row execute function cms_record_change('moment');
create trigger cms_changes_hero_awards after insert or update or delete on hero_awards for each row execute function cms_record_change('hero_award');
create trigger cms_changes_recap_entries after insert or update or delete on recap_entries for each row execute function cms_record_change('recap');
create trigger cms_changes_quests after insert or update or delete on quests for each row execute function cms_record_change('quest');
create trigger cms_changes_journal_folders after insert or update or delete on journal_folders for each row execute function cms_record_change('journal_folder');
create trigger cms_changes_journal_entries after insert or update on journal_entries for each row execute function cms_journal_entry_change();
create trigger cms_changes_journal_entries_delete before delete on journal_entries for each row execute function cms_journal_entry_change();
create trigger cms_changes_journal_shares after insert or update or delete on journal_shares for each row execute function cms_journal_share_change();

-- Webhooks: an endpoint is its own durable delivery task. It delivers the campaign's changes after
-- `cursor`, in order; any instance may claim it (lease_until), a failure pushes next_attempt_at back
-- exponentially, and enough failures in a row disable it with the reason kept.
create table webhook_endpoints (
  id text primary key,
  campaign_id text not null references campaigns(id) on delete cascade,
  url text not null,
  events jsonb,
  -- The signing key must be read back to sign, so it cannot be stored as a digest.
  secret text not null,
  created_by text,
  created_at timestamptz not null,
  cursor bigint not null,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  failures integer not null default 0,
  next_attempt_at timestamptz not null,
  lease_until timestamptz
);
create index webhook_endpoints_by_campaign on webhook_endpoints (campaign_id, created_at);
create index webhook_endpoints_due on webhook_endpoints (next_attempt_at) where enabled;

create table webhook_deliveries (
  id text primary key,
  endpoint_id text not null references webhook_endpoints(id) on delete cascade,
  message_id text not null,
  seq bigint not null,
  attempt integer not null,
  ok boolean not null,
  status_code integer,
  error text,
  duration_ms integer,
  at timestamptz not null
);
create index webhook_deliveries_by_endpoint on webhook_deliveries (endpoint_id, at desc, id desc);
