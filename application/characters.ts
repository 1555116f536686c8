// Characters: PCs, NPCs and others, with aliases, a linked speaker (the player) and two wikilink texts.
import { mergeAliases, normalizeAlias } from "../domain/aliases.ts";
import { nameClashesWithSpeaker, type Character, type CharacterType } from "../domain/characters.ts";
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import { stripOrKeep, stripWikilinks } from "../domain/wikilinks.ts";
import type { Speaker } from "../domain/speakers.ts";
import type { Repositories } from "../ports/records.ts";
import { inCampaign, type CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";
import { createWith, deleteWith, updateWith, type Applied, type Writes } from "./writes.ts";

export interface PlayerView {
  id: string;
  name: string | null;
  handle: string | null;
  roles: string[];
  campaign_id: string;
  created_at: string;
}

export interface CharacterView extends Omit<Character, "approved"> {
  character_alias: string | null;
  player: PlayerView | null;
  approved: boolean;
}

export interface CharacterCard {
  id: string;
  character_name: string;
  type: CharacterType;
  image: string | null;
}

export const characterCard = (c: Character): CharacterCard => ({ id: c.id, character_name: c.character_name, type: c.type, image: c.image });

function characterView(c: Character, speaker: Speaker | null, withLinks: boolean): CharacterView {
  return {
    ...c,
    character_alias: c.character_aliases[0] ?? null,
    player_name: speaker?.name ?? c.player_name,
    player_handle: c.player_handle ?? speaker?.handle ?? null,
    player: speaker
      ? { id: speaker.id, name: speaker.name, handle: speaker.handle, roles: speaker.roles, campaign_id: speaker.campaign_id, created_at: speaker.created_at }
      : null,
    description: stripOrKeep(c.description, withLinks),
    backstory: stripOrKeep(c.backstory, withLinks),
  };
}

/** What a client may set on a character: the record's own fields, and the older spellings clients still send. */
export type CharacterFields = Partial<
  Pick<Character, "character_name" | "character_aliases" | "player_name" | "player_handle" | "speaker_id" | "description" | "backstory" | "type" | "image" | "tcg_image">
> & {
  characterAliases?: string[];
  character_alias?: string | null;
  speakerId?: string | null;
};

const nameMissing = (input: unknown) => ({ ok: false as const, error: invalidField(["body", "character_name"], "Character name cannot be empty", input, "string_too_short") });

async function speakerFor(repos: Repositories, campaignId: string, speakerId: string | null): Promise<Result<Speaker | null>> {
  if (!speakerId) return ok(null);
  const speaker = await repos.speakers.get(speakerId);
  if (!speaker || speaker.campaign_id !== campaignId)
    return { ok: false, error: invalidField(["body", "speaker_id"], "Speaker must belong to the same campaign", speakerId) };
  return ok(speaker);
}

/** Applies the fields a caller sent to a character (new or existing), checking the cross-field rules. */
async function applyFields(repos: Repositories, base: Character, fields: CharacterFields): Promise<Result<Applied<Character, Speaker | null>>> {
  const next: Character = { ...base };
  if (fields.character_name !== undefined) next.character_name = normalizeAlias(fields.character_name);
  if (!next.character_name) return nameMissing(fields.character_name);
  const aliases = fields.character_aliases ?? fields.characterAliases;
  if (aliases !== undefined || fields.character_alias) next.character_aliases = mergeAliases(aliases ?? base.character_aliases, fields.character_alias);
  for (const key of ["player_name", "player_handle", "description", "backstory", "image", "tcg_image"] as const) {
    if (fields[key] !== undefined) next[key] = fields[key] ?? null;
  }
  if (fields.type !== undefined) next.type = fields.type;
  const speakerId = fields.speaker_id !== undefined ? fields.speaker_id : fields.speakerId;
  if (speakerId !== undefined) next.speaker_id = speakerId || null;
  const speaker = await speakerFor(repos, next.campaign_id, next.speaker_id);
  if (!speaker.ok) return speaker;
  if (nameClashesWithSpeaker(next.character_name, speaker.value?.name))
    return fail("bad_request", "Character name cannot be the same as the linked player's (speaker's) name");
  return ok({ record: next, found: speaker.value });
}

/** Indexing and link sync, in the same transaction as the write. */
export async function afterWrite(tx: Repositories, deps: Deps, character: Character, previous: Character | null) {
  const source = { campaignId: character.campaign_id, id: character.id };
  if (!previous || previous.description !== character.description) await syncWikilinks(tx, deps, { ...source, type: "Character" }, character.description);
  if (!previous || previous.backstory !== character.backstory) await syncWikilinks(tx, deps, { ...source, type: "Backstory" }, character.backstory);
  await tx.search.upsert(
    {
      campaign_id: character.campaign_id,
      doc_type: "characters",
      doc_id: character.id,
      title: character.character_name,
      body: [character.character_aliases.join(", "), character.player_name, character.type, stripWikilinks(character.description ?? ""), stripWikilinks(character.backstory ?? "")]
        .filter(Boolean)
        .join("\n"),
      facets: { type: character.type },
    },
    nowIso(deps),
  );
}

const NOT_FOUND = "Character not found";
/** A write also answers the linked speaker, which `apply` reads to check it. */
const WRITES: Writes<Character, CharacterFields, Speaker | null> = { repository: (tx) => tx.characters, apply: applyFields, afterWrite };

export async function createCharacter(deps: Deps, caller: Caller, access: CampaignAccess, fields: CharacterFields & { character_name: string }): Promise<Result<CharacterView>> {
  const campaignId = access.campaign.id;
  const blank: Character = {
    id: deps.ids.next(),
    campaign_id: campaignId,
    character_name: "",
    character_aliases: [],
    player_name: null,
    player_handle: null,
    speaker_id: null,
    description: null,
    backstory: null,
    type: "NPC",
    image: null,
    tcg_image: null,
    approved: true,
    merge: false,
    created_at: nowIso(deps),
    updated_at: null,
  };
  const created = await createWith(deps, WRITES, blank, fields);
  return created.ok ? ok(characterView(created.value.record, created.value.found, false)) : created;
}

export async function getCharacter(deps: Deps, caller: Caller, access: CampaignAccess, id: string, withLinks: boolean): Promise<Result<CharacterView>> {
  const found = inCampaign(access, await deps.records.characters.get(id), NOT_FOUND);
  if (!found.ok) return found;
  const character = found.value;
  const speaker = character.speaker_id ? await deps.records.speakers.get(character.speaker_id) : null;
  return ok(characterView(character, speaker, withLinks));
}

export async function updateCharacter(deps: Deps, caller: Caller, access: CampaignAccess, id: string, fields: CharacterFields): Promise<Result<CharacterView>> {
  const updated = await updateWith(deps, access, WRITES, id, fields, NOT_FOUND);
  return updated.ok ? ok(characterView(updated.value.record, updated.value.found, false)) : updated;
}

export function deleteCharacter(deps: Deps, caller: Caller, access: CampaignAccess, id: string): Promise<Result<null>> {
  return deleteWith(deps, access, (tx) => tx.characters, id, NOT_FOUND, async (tx) => {
    await tx.links.deleteTouching(id);
    await tx.search.remove("characters", id);
  });
}

export interface CharacterListQuery extends PageRequest {
  search?: string;
  character_type?: CharacterType;
  approved_only: boolean;
  with_links: boolean;
  fields?: "card";
}

export async function listCharacters(deps: Deps, caller: Caller, access: CampaignAccess, query: CharacterListQuery): Promise<Result<Page<CharacterView | CharacterCard>>> {
  const campaignId = access.campaign.id;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.characters.list(
    campaignId,
    { search: query.search?.trim() || undefined, type: query.character_type, approvedOnly: query.approved_only },
    page,
  );
  if (query.fields === "card") return ok(toPage(rows.map(characterCard), total, page));
  // A campaign has few speakers: one read for the page, none when no listed character has one.
  const speakers = new Map(rows.some((c) => c.speaker_id) ? (await deps.records.speakers.list(campaignId)).map((speaker) => [speaker.id, speaker]) : []);
  return ok(toPage(rows.map((c) => characterView(c, c.speaker_id ? (speakers.get(c.speaker_id) ?? null) : null, query.with_links)), total, page));
}
