// Every campaign-scoped use case goes through here, so no query reaches data the caller may not see.
import { accessLevelOf, deniedDetail, grants, type AccessLevel } from "../domain/access.ts";
import type { Campaign } from "../domain/campaign.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { journalPermission, type JournalEntry, type PermissionLevel } from "../domain/journals.ts";
import type { Repositories } from "../ports/records.ts";
import type { AuthenticatedCaller } from "./auth.ts";
import type { Deps } from "./deps.ts";

export interface CampaignAccess {
  campaign: Campaign;
  level: AccessLevel;
  roles: string[];
}

export const campaignNotFound = () => fail("not_found", "Campaign not found");

export async function campaignAccess(
  deps: Pick<Deps, "records">,
  caller: Caller,
  campaignId: string,
  needed: AccessLevel,
): Promise<Result<CampaignAccess>> {
  const prefetched = (caller as AuthenticatedCaller).prefetched;
  const found = prefetched?.campaignId === campaignId ? prefetched.found : await deps.records.campaigns.getWithStanding(campaignId, caller.userId);
  if (!found) return campaignNotFound();
  const level = accessLevelOf({
    isOwner: found.campaign.owner_id === caller.userId,
    roles: found.roles,
    campaignIsPublic: found.campaign.public,
  });
  if (!grants(level, needed)) return fail("forbidden", deniedDetail(needed));
  return ok({ campaign: found.campaign, level, roles: found.roles });
}

export const FIRST_PARTY_SCOPE = "product_write";

export const requireFirstParty = (caller: Caller): Result<true> =>
  caller.scopes.includes(FIRST_PARTY_SCOPE)
    ? ok(true)
    : fail("forbidden", "This route needs a first-party key with the product_write scope");

/** Access to a record through its campaign: 404 when it does not exist, the campaign's rule otherwise. */
export async function recordAccess<T extends { campaign_id: string }>(
  deps: Pick<Deps, "records">,
  caller: Caller,
  record: T | null,
  notFoundDetail: string,
  needed: AccessLevel,
): Promise<Result<{ record: T; access: CampaignAccess }>> {
  if (!record) return fail("not_found", notFoundDetail);
  const access = await campaignAccess(deps, caller, record.campaign_id, needed);
  return access.ok ? ok({ record, access: access.value }) : access;
}

/** What a user may do with a journal entry, or null when they may not see it (the domain rule on stored shares). */
export async function journalEntryPermission(repos: Pick<Repositories, "journals">, entry: JournalEntry, userId: string): Promise<PermissionLevel | null> {
  const shares = await repos.journals.shares(entry.id);
  return journalPermission({ authorId: entry.author_id, isPublic: entry.is_public, shares: new Map(shares.map((s) => [s.user_id, s.level])) }, userId);
}
