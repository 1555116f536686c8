// Recap cards of a session: hero awards (rendered by the service), quotes and spotlights.
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { keysOf, withFields } from "../domain/metadata.ts";
import { HERO_AWARD_DEFAULTS, type HeroAward, type HeroAwardSettings, type RecapEntry } from "../domain/recaps.ts";
import type { RecapFilters, Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

export const API_PIPELINE_SOURCE = "api";

/** The session a card is created for, in the campaign granted (the table locates it through the session). */
async function sessionFor(deps: Deps, access: CampaignAccess, sessionId: string): Promise<Result<{ campaignId: string }>> {
  const session = inCampaign(access, await deps.records.sessions.get(sessionId), "Session not found");
  return session.ok ? ok({ campaignId: session.value.campaign_id }) : session;
}

/**
 * What a list looks in: the campaign granted (campaign_id's, or else session_id's), narrowed to the
 * session when one is named; a session of another campaign matches nothing.
 */
async function listScope(deps: Deps, access: CampaignAccess, query: { session_id?: string }): Promise<Result<RecapFilters>> {
  const campaignId = access.campaign.id;
  if (!query.session_id) return ok({ campaignId });
  const session = await deps.records.sessions.get(query.session_id);
  if (!session) return fail("not_found", "Session not found");
  return ok({ campaignId, sessionId: session.campaign_id === campaignId ? query.session_id : "none" });
}

// Hero awards -------------------------------------------------------------------------------------------

const AWARD_KEYS: readonly (keyof AwardFields)[] = ["title", "description", ...keysOf(HERO_AWARD_DEFAULTS)];

/** What a client may set on a hero award: the record's own fields, typed from it. */
export type AwardFields = Partial<Pick<HeroAward, "title" | "description" | keyof HeroAwardSettings>>;

const applyAward = (award: HeroAward, fields: AwardFields): HeroAward =>
  withFields(award, { ...fields, title: fields.title?.trim(), description: fields.description?.trim() }, AWARD_KEYS);

const blankAward = (message: string, field: string, input: unknown) => ({ ok: false as const, error: invalidField(["body", field], message, input, "string_too_short") });

export async function createHeroAward(deps: Deps, caller: Caller, access: CampaignAccess, fields: AwardFields & { session_id: string; title: string; description: string }): Promise<Result<HeroAward>> {
  const scope = await sessionFor(deps, access, fields.session_id);
  if (!scope.ok) return scope;
  const award = applyAward(
    {
      id: deps.ids.next(),
      campaign_id: scope.value.campaignId,
      session_id: fields.session_id,
      title: "",
      description: "",
      ...HERO_AWARD_DEFAULTS,
      created_at: nowIso(deps),
      updated_at: null,
    },
    fields,
  );
  if (!award.title) return blankAward("Title cannot be empty", "title", fields.title);
  if (!award.description) return blankAward("Description cannot be empty", "description", fields.description);
  await deps.records.recaps.insertAward(award, await deps.cards.heroAward(award));
  return ok(award);
}

export async function getHeroAward(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<HeroAward>> {
  const found = inCampaign(access, await deps.records.recaps.getAward(id), "Hero award not found");
  return found.ok ? ok(found.value) : found;
}

export async function heroAwardCard(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<Uint8Array>> {
  const found = inCampaign(access, await deps.records.recaps.getAward(id), "Hero award not found");
  if (!found.ok) return found;
  // Cards made before rendering existed (or lost) are drawn again on demand.
  const card = (await deps.records.recaps.awardCard(id)) ?? (await deps.cards.heroAward(found.value));
  return ok(card);
}

/** Any change redraws the card. */
export async function updateHeroAward(deps: Deps, caller: Caller, access: CampaignAccess, id: string, fields: AwardFields): Promise<Result<HeroAward>> {
  const found = inCampaign(access, await deps.records.recaps.getAward(id), "Hero award not found");
  if (!found.ok) return found;
  return deps.records.withTransaction(async (tx): Promise<Result<HeroAward>> => {
    const current = await tx.recaps.getAward(id, { lock: true });
    if (!current) return fail("not_found", "Hero award not found");
    const award = { ...applyAward(current, fields), updated_at: nowIso(deps) };
    if (!award.title) return blankAward("Title cannot be empty", "title", fields.title);
    if (!award.description) return blankAward("Description cannot be empty", "description", fields.description);
    // The card is drawn from the locked row, so it always shows what is stored.
    await tx.recaps.replaceAward(award, await deps.cards.heroAward(award));
    return ok(award);
  });
}

export async function deleteHeroAward(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<null>> {
  const found = inCampaign(access, await deps.records.recaps.getAward(id), "Hero award not found");
  if (!found.ok) return found;
  return (await deps.records.recaps.deleteAward(id)) ? ok(null) : fail("not_found", "Hero award not found");
}

export async function listHeroAwards(deps: Deps, caller: Caller, access: CampaignAccess, query: PageRequest & { campaign_id?: string; session_id?: string; search?: string }): Promise<Result<Page<HeroAward>>> {
  const scope = await listScope(deps, access, query);
  if (!scope.ok) return scope;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.recaps.listAwards({ ...scope.value, search: query.search?.trim() || undefined }, page);
  return ok(toPage(rows, total, page));
}

// Quotes and spotlights -------------------------------------------------------------------------------

export type EntryType = RecapEntry["entry_type"];
export type EntryFields = Partial<Pick<RecapEntry, "text" | "speaker" | "character_name" | "context" | "title" | "description" | "player_name" | "style" | "custom_theme" | "order_index" | "source_moment_id">>;
export type QuoteView = Omit<RecapEntry, "entry_type" | "title" | "description" | "player_name" | "source_moment_id">;
export type SpotlightView = Omit<RecapEntry, "text" | "speaker" | "context" | "entry_type"> & { entry_type: "spotlight" };

const NOUN: Record<EntryType, string> = { quote: "Quote", spotlight: "Spotlight" };
const REQUIRED: Record<EntryType, "text" | "title"> = { quote: "text", spotlight: "title" };
const ENTRY_KEYS = ["text", "speaker", "character_name", "context", "title", "description", "player_name", "style", "custom_theme", "order_index", "source_moment_id"] as const;

export function entryView(entry: RecapEntry): QuoteView | SpotlightView {
  if (entry.entry_type === "quote") {
    const { entry_type: _t, title: _ti, description: _d, player_name: _p, source_moment_id: _s, ...quote } = entry;
    return quote;
  }
  const { text: _x, speaker: _sp, context: _c, entry_type: _t, ...spotlight } = entry;
  return { ...spotlight, entry_type: "spotlight" };
}

async function checkMoment(repos: Repositories, entry: RecapEntry): Promise<Result<true>> {
  if (!entry.source_moment_id) return ok(true);
  const moment = await repos.moments.get(entry.source_moment_id);
  return moment && moment.campaign_id === entry.campaign_id ? ok(true) : { ok: false, error: invalidField(["body", "source_moment_id"], "Moment must belong to the same campaign", entry.source_moment_id) };
}

/** Creating a quote or spotlight finds or creates the session's recap pipeline (source api). */
export async function createEntry(deps: Deps, caller: Caller, access: CampaignAccess, type: EntryType, fields: EntryFields & { session_id: string }): Promise<Result<QuoteView | SpotlightView>> {
  const scope = await sessionFor(deps, access, fields.session_id);
  if (!scope.ok) return scope;
  const required = REQUIRED[type];
  const value = (fields[required] ?? "").trim();
  if (!value) return blankAward(`${required} cannot be empty`, required, fields[required]);
  return deps.records.withTransaction(async (tx): Promise<Result<QuoteView | SpotlightView>> => {
    const at = nowIso(deps);
    const pipeline = await tx.recaps.pipeline(scope.value.campaignId, fields.session_id, API_PIPELINE_SOURCE, () => ({
      id: deps.ids.next(),
      campaign_id: scope.value.campaignId,
      session_id: fields.session_id,
      source: API_PIPELINE_SOURCE,
      recap_set_id: deps.ids.next(),
      created_at: at,
    }));
    const blank: RecapEntry = {
      id: deps.ids.next(),
      campaign_id: scope.value.campaignId,
      session_id: fields.session_id,
      entry_type: type,
      pipeline_id: pipeline.id,
      recap_set_id: pipeline.recap_set_id,
      text: null,
      speaker: null,
      character_name: null,
      context: null,
      title: null,
      description: null,
      player_name: null,
      style: null,
      custom_theme: null,
      order_index: 0,
      source_moment_id: null,
      created_at: at,
      updated_at: null,
    };
    const entry = withFields(blank, fields, ENTRY_KEYS);
    entry[required] = value;
    const moment = await checkMoment(tx, entry);
    if (!moment.ok) return moment;
    await tx.recaps.insertEntry(entry);
    return ok(entryView(entry));
  });
}

async function entryFor(deps: Deps, access: CampaignAccess, type: EntryType, id: string) {
  const entry = await deps.records.recaps.getEntry(id);
  return inCampaign(access, entry && entry.entry_type === type ? entry : null, `${NOUN[type]} not found`);
}

export async function getEntry(deps: Deps, caller: Caller, access: CampaignAccess, type: EntryType, id: string): Promise<Result<QuoteView | SpotlightView>> {
  const found = await entryFor(deps, access, type, id);
  return found.ok ? ok(entryView(found.value)) : found;
}

export async function updateEntry(deps: Deps, caller: Caller, access: CampaignAccess, type: EntryType, id: string, fields: EntryFields): Promise<Result<QuoteView | SpotlightView>> {
  const found = await entryFor(deps, access, type, id);
  if (!found.ok) return found;
  return deps.records.withTransaction(async (tx): Promise<Result<QuoteView | SpotlightView>> => {
    const current = await tx.recaps.getEntry(id, { lock: true });
    if (!current || current.entry_type !== type) return fail("not_found", `${NOUN[type]} not found`);
    const entry = withFields({ ...current, updated_at: nowIso(deps) }, fields, ENTRY_KEYS);
    const required = REQUIRED[type];
    if (!entry[required]?.trim()) return blankAward(`${required} cannot be empty`, required, fields[required]);
    const moment = await checkMoment(tx, entry);
    if (!moment.ok) return moment;
    await tx.recaps.replaceEntry(entry);
    return ok(entryView(entry));
  });
}

export async function deleteEntry(deps: Deps, caller: Caller, access: CampaignAccess, type: EntryType, id: string): Promise<Result<null>> {
  const found = await entryFor(deps, access, type, id);
  if (!found.ok) return found;
  return (await deps.records.recaps.deleteEntry(id)) ? ok(null) : fail("not_found", `${NOUN[type]} not found`);
}

export async function listEntries(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  type: EntryType,
  query: PageRequest & { campaign_id?: string; session_id?: string; search?: string },
): Promise<Result<Page<QuoteView | SpotlightView>>> {
  const scope = await listScope(deps, access, query);
  if (!scope.ok) return scope;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.recaps.listEntries(type, { ...scope.value, search: query.search?.trim() || undefined }, page);
  return ok(toPage(rows.map(entryView), total, page));
}
