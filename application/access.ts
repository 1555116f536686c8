// Every campaign-scoped use case goes through here, so no query reaches data the caller may not see.
import { accessLevelOf, deniedDetail, grants, type AccessLevel } from "../domain/access.ts";
import type { Campaign } from "../domain/campaign.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { journalPermission, type JournalEntry, type PermissionLevel } from "../domain/journals.ts";
import type { CampaignWithStanding, Repositories } from "../ports/records.ts";
import type { Deps } from "./deps.ts";

export interface CampaignAccess {
  campaign: Campaign;
  level: AccessLevel;
  roles: string[];
}

export const campaignNotFound = () => fail("not_found", "Campaign not found");

/** The access a caller's standing grants, if it reaches `needed`: 404 for a campaign that does not exist. */
export function standingAccess(caller: Caller, found: CampaignWithStanding | null, needed: AccessLevel): Result<CampaignAccess> {
  if (!found) return campaignNotFound();
  const level = accessLevelOf({
    isOwner: found.campaign.owner_id === caller.userId,
    roles: found.roles,
    campaignIsPublic: found.campaign.public,
  });
  if (!grants(level, needed)) return fail("forbidden", deniedDetail(needed));
  return ok({ campaign: found.campaign, level, roles: found.roles });
}

/**
 * For a use case's own second check (a campaign other than the operation's, e.g. a task's); the
 * operation's own level is enforced by `invoke()` from the table's declaration.
 */
export async function campaignAccess(deps: Pick<Deps, "records">, caller: Caller, campaignId: string, needed: AccessLevel): Promise<Result<CampaignAccess>> {
  return standingAccess(caller, await deps.records.campaigns.getWithStanding(campaignId, caller.userId), needed);
}

export const FIRST_PARTY_SCOPE = "product_write";

export const requireFirstParty = (caller: Caller): Result<true> =>
  caller.scopes.includes(FIRST_PARTY_SCOPE)
    ? ok(true)
    : fail("forbidden", "This route needs a first-party key with the product_write scope");

/**
 * A record of the campaign the caller was granted: 404 when it does not exist, or (should a table
 * row locate the wrong campaign) belongs to another campaign.
 */
export function inCampaign<T extends { campaign_id: string }>(access: CampaignAccess, record: T | null, notFoundDetail: string): Result<T> {
  return record && record.campaign_id === access.campaign.id ? ok(record) : fail("not_found", notFoundDetail);
}

/** What a user may do with a journal entry, or null when they may not see it (the domain rule on stored shares). */
export async function journalEntryPermission(repos: Pick<Repositories, "journals">, entry: JournalEntry, userId: string): Promise<PermissionLevel | null> {
  const shares = await repos.journals.shares(entry.id);
  return journalPermission({ authorId: entry.author_id, isPublic: entry.is_public, shares: new Map(shares.map((s) => [s.user_id, s.level])) }, userId);
}
