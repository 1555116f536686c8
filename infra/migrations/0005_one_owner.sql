-- Exactly one owner per campaign. Ownership is campaigns.owner_id; the owner's membership carries
-- the role 'owner' as a mirror of it, and no other membership may. Before this migration a second
-- hand-over left the former owner with the role (and owner rights), so existing rows are repaired
-- first: former owners keep their other roles and become admins, and every owner's membership
-- carries 'owner' (made if missing).
update campaign_members m
set roles = (
  select coalesce(jsonb_agg(kept.role order by kept.first), '[]'::jsonb)
  from (
    select role, min(position) as first
    from jsonb_array_elements_text(m.roles || '["admin"]'::jsonb) with ordinality as e(role, position)
    where role <> 'owner'
    group by role
  ) kept
)
from campaigns c
where c.id = m.campaign_id and m.user_id <> c.owner_id and m.roles ? 'owner';

insert into campaign_members (campaign_id, user_id, roles, created_at)
select c.id, c.owner_id, '["owner"]'::jsonb, c.created_at from campaigns c
on conflict (campaign_id, user_id) do update
set roles = '["owner"]'::jsonb || campaign_members.roles
where not campaign_members.roles ? 'owner';

-- The database refuses a second owner row whatever code writes it.
create unique index campaign_members_one_owner on campaign_members (campaign_id) where roles ? 'owner';
