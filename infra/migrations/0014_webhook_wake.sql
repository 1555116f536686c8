-- Wakes the webhook dispatchers when a change commits in a campaign that has an enabled webhook,
-- instead of waiting for their next poll. NOTIFY is delivered at commit (never for a rollback) and
-- folded to one per transaction; campaigns without webhooks send nothing, so their commits never
-- queue on the notification lock.
create function cms_webhook_wake() returns trigger language plpgsql as $$
begin
  if exists (select 1 from added a join webhook_endpoints w on w.campaign_id = a.campaign_id and w.enabled) then
    perform pg_notify('cms_webhooks', '');
  end if;
  return null;
end $$;
create trigger cms_webhook_wake after insert on changes referencing new table as added for each statement execute function cms_webhook_wake();
