// Links between records, and the wikilink sync that keeps them in step with text.
import { aliasKey, normalizeAlias } from "../domain/aliases.ts";
import { linkAlias, linkAliasKey, RESOLUTION_ORDER, type Link, type LinkFromType, type LinkToType } from "../domain/links.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { atLeast } from "../domain/journals.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { wikilinkTargets } from "../domain/wikilinks.ts";
import type { LinkFilters, RecordRef, Repositories } from "../ports/records.ts";
import { journalEntryPermission, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

type IdsAndClock = Pick<Deps, "ids" | "clock">;

/** The record each alias key names, preferring characters, then factions, locations, items; oldest first. */
export function resolveTargets(refs: readonly RecordRef[], keys: readonly string[]): Map<string, RecordRef> {
  const ordered = [...refs].sort((a, b) => RESOLUTION_ORDER.indexOf(a.type as LinkToType) - RESOLUTION_ORDER.indexOf(b.type as LinkToType));
  const resolved = new Map<string, RecordRef>();
  for (const key of keys) {
    const match = ordered.find((ref) => aliasKey(ref.name) === key || (ref.aliases ?? []).some((alias) => aliasKey(alias) === key));
    if (match) resolved.set(key, match);
  }
  return resolved;
}

/**
 * Makes a source's wikilink-made links match its text: a link for every [[target]] that names a
 * record of the campaign, none for markup that is gone. Runs inside the caller's transaction.
 */
export async function syncWikilinks(
  tx: Repositories,
  deps: IdsAndClock,
  source: { campaignId: string; type: LinkFromType; id: string },
  text: string | null | undefined,
): Promise<void> {
  const targets = wikilinkTargets(text);
  const keys = targets.map(aliasKey);
  // Obsidian's [[Note#Heading]] and [[Note^block]] name the note: the whole target is tried first (a name may hold "#").
  const notes = targets.map((target) => aliasKey(target.split(/[#^]/)[0]!));
  const asked = [...new Set([...keys, ...notes.filter(Boolean)])];
  const resolved = asked.length ? resolveTargets(await tx.lookup.resolveNames(source.campaignId, asked), asked) : new Map<string, RecordRef>();
  const kept: string[] = [];
  const at = nowIso(deps);
  for (const [index, key] of keys.entries()) {
    const target = resolved.get(key) ?? (notes[index] ? resolved.get(notes[index]!) : undefined);
    if (!target || target.id === source.id) continue;
    kept.push(key);
    await tx.links.upsert({
      id: deps.ids.next(),
      campaign_id: source.campaignId,
      from_type: source.type,
      from_id: source.id,
      to_type: target.type as LinkToType,
      to_id: target.id,
      alias: normalizeAlias(targets[index]!),
      alias_key: key,
      origin: "wikilink",
      created_at: at,
    });
  }
  await tx.links.pruneWikilinks(source.type, source.id, kept);
}

export async function listLinks(deps: Deps, caller: Caller, access: CampaignAccess, filters: LinkFilters, page: PageRequest): Promise<Result<Page<Link>>> {
  const campaignId = access.campaign.id;
  const { rows, total } = await deps.records.links.list(campaignId, filters, page, caller.userId);
  return ok(toPage(rows, total, page));
}

export interface LinkDraft {
  from_id: string;
  from_type: LinkFromType;
  to_id: string;
  to_type: LinkToType;
  alias?: string | null;
}

/** Creates a link, or replaces the one from the same source with the same (normalized) alias. */
export async function createLink(deps: Deps, caller: Caller, access: CampaignAccess, draft: LinkDraft): Promise<Result<Link>> {
  const campaignId = access.campaign.id;
  const [from, to] = await Promise.all([deps.records.lookup.findRecord(draft.from_type, draft.from_id), deps.records.lookup.findRecord(draft.to_type, draft.to_id)]);
  // Each end in turn, missing or invisible alike, so an answer never tells an unseen entry from no entry.
  for (const [end, ref, type, id] of [["source", from, draft.from_type, draft.from_id], ["target", to, draft.to_type, draft.to_id]] as const) {
    const notFound = `Link ${end} ${type} ${id} not found`;
    if (!ref) return fail("not_found", notFound);
    const allowed = await journalEndWritable(deps, caller, type, id, notFound);
    if (!allowed.ok) return allowed;
  }
  if (!from || !to) return fail("not_found", "Link source or target not found"); // (checked above; narrows the types)
  for (const [end, ref] of [["from_id", from], ["to_id", to]] as const) {
    if (ref.campaign_id !== campaignId)
      return { ok: false, error: invalidField(["body", end], "Link source and target must both belong to this campaign", end === "from_id" ? draft.from_id : draft.to_id) };
  }
  const alias = linkAlias(draft.alias, to.name);
  if (!alias) return { ok: false, error: invalidField(["body", "alias"], "The target has no name, so the link needs an alias", draft.alias ?? null, "missing") };
  const link = await deps.records.links.upsert({
    id: deps.ids.next(),
    campaign_id: campaignId,
    from_id: draft.from_id,
    from_type: draft.from_type,
    to_id: draft.to_id,
    to_type: draft.to_type,
    alias,
    alias_key: linkAliasKey(alias),
    origin: "api",
    created_at: nowIso(deps),
  });
  return ok(link);
}

/**
 * A link end that is a journal entry follows the entry's permissions: writing the link needs edit
 * on the entry (the link is part of what the entry says); an entry the caller cannot see answers
 * `notFound`, exactly as a missing one, so its existence does not leak.
 */
async function journalEndWritable(deps: Deps, caller: Caller, type: string, id: string, notFound: string): Promise<Result<true>> {
  if (type !== "Journal") return ok(true);
  const entry = await deps.records.journals.get(id);
  const level = entry ? await journalEntryPermission(deps.records, entry, caller.userId) : null;
  if (!level) return fail("not_found", notFound);
  return atLeast(level, "edit") ? ok(true) : fail("forbidden", `This needs edit permission on the journal entry; you have ${level}`);
}

async function campaignLink(deps: Deps, caller: Caller, access: CampaignAccess, linkId: string): Promise<Result<Link>> {
  const campaignId = access.campaign.id;
  const link = await deps.records.links.get(linkId);
  if (!link || link.campaign_id !== campaignId) return fail("not_found", "Link not found");
  for (const [type, id] of [[link.from_type, link.from_id], [link.to_type, link.to_id]] as const) {
    const allowed = await journalEndWritable(deps, caller, type, id, "Link not found");
    if (!allowed.ok) return allowed;
  }
  return ok(link);
}

export async function updateLink(deps: Deps, caller: Caller, access: CampaignAccess, linkId: string, alias: string): Promise<Result<Link>> {
  const normal = normalizeAlias(alias);
  if (!normal) return { ok: false, error: invalidField(["body", "alias"], "Alias cannot be empty", alias, "string_too_short") };
  const found = await campaignLink(deps, caller, access, linkId);
  if (!found.ok) return found;
  const updated = await deps.records.links.updateAlias(linkId, normal, linkAliasKey(normal));
  if (updated === "conflict") return fail("conflict", "Another link from the same record already uses this alias");
  return updated ? ok(updated) : fail("not_found", "Link not found");
}

export async function deleteLink(deps: Deps, caller: Caller, access: CampaignAccess, linkId: string): Promise<Result<null>> {
  const found = await campaignLink(deps, caller, access, linkId);
  if (!found.ok) return found;
  await deps.records.links.delete(linkId);
  return ok(null);
}
