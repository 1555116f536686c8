// Campaign memberships: the first-party (product_write) surface that adds, re-roles and removes members.
import { MEMBER_ROLES, primaryRole, type MemberRole } from "../domain/access.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { campaignNotFound, requireFirstParty } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

export interface MemberView {
  campaign_id: string;
  user_id: string;
  role: MemberRole;
  roles: string[];
  created_at: string;
}

/** The owner's membership always carries `owner`, whatever other role it is given; no other one does. */
const rolesFor = (role: MemberRole, isOwner: boolean): string[] =>
  isOwner ? [...new Set(["owner", role])] : [role === "owner" ? "admin" : role];
const withoutOwner = (roles: readonly string[]): string[] => roles.filter((role) => role !== "owner");

/**
 * Adds (or re-roles) a member. Role `owner` hands the campaign over; the previous owner stays as
 * admin. One locked read-modify-write of the campaign row, so concurrent hand-overs queue up and
 * every one of them sees the owner the previous one left.
 */
export async function addMember(
  deps: Deps,
  caller: Caller,
  input: { campaign_id: string; user_id: string; role: MemberRole },
): Promise<Result<MemberView>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!MEMBER_ROLES.includes(input.role)) return fail("invalid", `Role must be one of ${MEMBER_ROLES.join(", ")}`);
  const at = nowIso(deps);
  return deps.records.withTransaction(async (tx): Promise<Result<MemberView>> => {
    const campaign = await tx.campaigns.get(input.campaign_id, { lock: true });
    if (!campaign) return campaignNotFound();
    if (!(await tx.users.get(input.user_id))) return fail("not_found", "User not found");
    const handOver = input.role === "owner" && campaign.owner_id !== input.user_id;
    if (handOver) {
      // The previous owner loses `owner` before the new one gains it (one owner row per campaign, in the database too).
      const previous = await tx.members.get(campaign.id, campaign.owner_id);
      const previousRoles = [...new Set([...withoutOwner(previous?.roles ?? []), "admin"])];
      await tx.members.upsert({ campaign_id: campaign.id, user_id: campaign.owner_id, roles: previousRoles, created_at: previous?.created_at ?? at });
      await tx.campaigns.transferOwnership(campaign.id, input.user_id, at);
    }
    const isOwner = handOver || campaign.owner_id === input.user_id;
    const member = await tx.members.upsert({ campaign_id: campaign.id, user_id: input.user_id, roles: rolesFor(input.role, isOwner), created_at: at });
    return ok({ ...member, role: primaryRole(isOwner, member.roles) ?? input.role });
  });
}

export async function removeMember(deps: Deps, caller: Caller, campaignId: string, userId: string): Promise<Result<null>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  return deps.records.withTransaction(async (tx): Promise<Result<null>> => {
    // Locked like a hand-over, so the member removed cannot be the one just made owner.
    const campaign = await tx.campaigns.get(campaignId, { lock: true });
    if (!campaign) return campaignNotFound();
    if (campaign.owner_id === userId)
      return fail("bad_request", "The campaign owner cannot be removed; make another member the owner first");
    const removed = await tx.members.remove(campaignId, userId);
    return removed ? ok(null) : fail("not_found", "Member not found");
  });
}
