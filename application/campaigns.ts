import {
  archiveChange,
  CREATOR_ROLES,
  DEFAULT_CHARACTER_ARC,
  DEFAULT_FIELD_DEFINITIONS,
  DEFAULT_GM_SPEAKER,
  DEFAULT_LANGUAGE,
  normalizeTitle,
  type ArchiveRequest,
  type Campaign,
  type CampaignChanges,
  type CampaignDraft,
  type CampaignStats,
} from "../domain/campaign.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import type { CampaignFilters, Repositories } from "../ports/records.ts";
import { stripOrKeep } from "../domain/wikilinks.ts";
import { type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";

/** Reads show the summary without wikilink markup unless asked for it. */
const campaignView = (campaign: Campaign, withLinks: boolean): Campaign => ({ ...campaign, summary: stripOrKeep(campaign.summary, withLinks) });

export async function listCampaigns(
  deps: Deps,
  caller: Caller,
  input: PageRequest & CampaignFilters & { withLinks?: boolean },
): Promise<Result<Page<Campaign>>> {
  const { page, size, withLinks = false, ...filters } = input;
  const { rows, total } = await deps.records.campaigns.listVisibleTo(caller.userId, filters, { page, size });
  return ok(toPage(rows.map((campaign) => campaignView(campaign, withLinks)), total, { page, size }));
}

export async function getCampaign(deps: Deps, caller: Caller, access: CampaignAccess, withLinks = false): Promise<Result<Campaign>> {
  return ok(campaignView(access.campaign, withLinks));
}

const blankTitle = (input: unknown) =>
  ({ ok: false, error: invalidField(["body", "title"], "Title cannot be empty", input, "string_too_short") }) as const;

/** Creates a campaign with everything a new campaign starts with, in one transaction. */
export async function createCampaign(deps: Deps, caller: Caller, draft: CampaignDraft): Promise<Result<Campaign>> {
  const title = normalizeTitle(draft.title);
  if (!title) return blankTitle(draft.title);
  const at = nowIso(deps);
  const campaign: Campaign = {
    id: deps.ids.next(),
    title,
    description: draft.description ?? null,
    system: draft.system ?? null,
    summary: draft.summary ?? null,
    language: draft.language ?? DEFAULT_LANGUAGE,
    image: draft.image ?? null,
    public: false,
    mature: draft.mature ?? false,
    owner_id: caller.userId,
    archived: false,
    archived_at: null,
    created_at: at,
    updated_at: null,
  };
  await deps.records.withTransaction((tx) => seedCampaign(tx, deps, campaign, at));
  return ok(campaignView(campaign, false));
}

/** Writes a new campaign with what every campaign starts with (owner membership, GM speaker, defaults), inside the caller's transaction. */
export async function seedCampaign(tx: Repositories, deps: Pick<Deps, "ids" | "clock">, campaign: Campaign, at: string): Promise<void> {
  await tx.campaigns.insert(campaign);
  await tx.members.upsert({ campaign_id: campaign.id, user_id: campaign.owner_id, roles: [...CREATOR_ROLES], created_at: at });
  await tx.speakers.insert({
    id: deps.ids.next(),
    campaign_id: campaign.id,
    name: DEFAULT_GM_SPEAKER.name,
    handle: DEFAULT_GM_SPEAKER.handle,
    user_id: campaign.owner_id,
    roles: [...DEFAULT_GM_SPEAKER.roles],
    created_at: at,
  });
  await tx.settings.putCharacterArc(campaign.id, DEFAULT_CHARACTER_ARC, at);
  await tx.settings.insertFieldDefinitions(
    DEFAULT_FIELD_DEFINITIONS.map((definition) => ({
      ...definition,
      options: [...definition.options],
      id: deps.ids.next(),
      campaign_id: campaign.id,
      created_at: at,
    })),
  );
  await syncWikilinks(tx, deps, { campaignId: campaign.id, type: "World", id: campaign.id }, campaign.summary);
}

export async function updateCampaign(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  changes: CampaignChanges & ArchiveRequest,
): Promise<Result<Campaign>> {
  const campaignId = access.campaign.id;
  const { archived, archived_at, ...rest } = changes;
  const cleaned: CampaignChanges = rest;
  if (cleaned.title !== undefined) {
    cleaned.title = normalizeTitle(cleaned.title);
    if (!cleaned.title) return blankTitle(changes.title);
  }
  const now = nowIso(deps);
  const archive = archiveChange(access.campaign.archived_at, { archived, archived_at }, now);
  if (!archive.ok) return archive;
  if (archive.value !== undefined) cleaned.archived_at = archive.value;
  if (Object.keys(cleaned).length === 0) return ok(campaignView(access.campaign, false));
  return deps.records.withTransaction(async (tx): Promise<Result<Campaign>> => {
    const updated = await tx.campaigns.update(campaignId, cleaned, now);
    if (!updated) return fail("not_found", "Campaign not found");
    if (cleaned.summary !== undefined) await syncWikilinks(tx, deps, { campaignId, type: "World", id: campaignId }, updated.summary);
    return ok(campaignView(updated, false));
  });
}

export async function deleteCampaign(deps: Deps, caller: Caller, access: CampaignAccess): Promise<Result<null>> {
  const campaignId = access.campaign.id;
  await deps.records.campaigns.delete(campaignId);
  return ok(null);
}

export async function campaignStats(deps: Deps, caller: Caller, access: CampaignAccess): Promise<Result<CampaignStats>> {
  const campaignId = access.campaign.id;
  const { campaign } = access;
  const counts = await deps.records.campaigns.counts(campaignId);
  return ok({ campaign_id: campaign.id, title: campaign.title, public: campaign.public, created_at: campaign.created_at, ...counts });
}
