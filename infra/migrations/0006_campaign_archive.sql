-- Campaign archive: a campaign is archived when archived_at is set (`archived` is derived from it,
-- so the two can never disagree).
alter table campaigns add column archived_at timestamptz;
