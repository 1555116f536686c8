import { normalizeAlias } from "../domain/aliases.ts";
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import type { Speaker } from "../domain/speakers.ts";
import { campaignNotFound, requireFirstParty } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

/** First-party: a campaign speaker (a voice in transcripts; a player a character can be linked to). */
export async function createSpeaker(
  deps: Deps,
  caller: Caller,
  campaignId: string,
  input: { name: string; handle?: string | null; user_id?: string | null; roles?: string[] },
): Promise<Result<Speaker>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!(await deps.records.campaigns.get(campaignId))) return campaignNotFound();
  const name = normalizeAlias(input.name);
  if (!name) return fail("invalid", "Name cannot be empty", [{ type: "string_too_short", loc: ["body", "name"], msg: "Name cannot be empty", input: input.name }]);
  if (input.user_id && !(await deps.records.users.get(input.user_id))) return fail("not_found", "User not found");
  const speaker = await deps.records.speakers.insert({
    id: deps.ids.next(),
    campaign_id: campaignId,
    name,
    handle: input.handle ?? null,
    user_id: input.user_id ?? null,
    roles: [...new Set(input.roles ?? [])],
    created_at: nowIso(deps),
  });
  return speaker ? ok(speaker) : fail("conflict", "This campaign already has a speaker with that name");
}
