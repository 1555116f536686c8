// One record of each kind in a campaign, keyed by the path parameter that names it: the ids the
// access matrix and the two fuzz suites fill routes with.

/** A JSON call that must succeed, as one caller: its parsed body. */
export type Must = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * A maker per id name, each creating one fresh record of that kind in `ids.campaign_id` as `owner`
 * (sessions through the admin's first-party route; awards, quotes and spotlights in `ids.session_id`;
 * a link from `ids.character_id` to a new item). Read from `ids` when called, so set those first.
 */
export function recordMakers(owner: Must, admin: Must, ids: Record<string, string>): Record<string, () => Promise<string>> {
  const id = async (reply: Promise<any>) => (await reply).id as string;
  const makers: Record<string, () => Promise<string>> = {
    character_id: () => id(owner("POST", "/v1/characters", { campaign_id: ids.campaign_id, character_name: `Target ${crypto.randomUUID()}` })),
    faction_id: () => id(owner("POST", "/v1/factions", { campaign_id: ids.campaign_id, name: "A faction" })),
    location_id: () => id(owner("POST", "/v1/locations", { campaign_id: ids.campaign_id, name: "A location" })),
    item_id: () => id(owner("POST", "/v1/items", { campaign_id: ids.campaign_id, name: "An item" })),
    session_id: () => id(admin("POST", "/internal/v1/sessions", { campaign_id: ids.campaign_id, type: "chatVoice", title: "S", session_date: "2026-01-01T00:00:00Z" })),
    beat_id: () => id(owner("POST", "/v1/beats", { campaign_id: ids.campaign_id, label: "B", type: "major" })),
    moment_id: () => id(owner("POST", "/v1/moments", { campaign_id: ids.campaign_id, label: "M" })),
    award_id: () => id(owner("POST", "/v1/hero-awards", { session_id: ids.session_id, title: "T", description: "D" })),
    quote_id: () => id(owner("POST", "/v1/quotes", { session_id: ids.session_id, text: "Q" })),
    spotlight_id: () => id(owner("POST", "/v1/spotlights", { session_id: ids.session_id, title: "S" })),
    quest_id: () => id(owner("POST", "/v1/quests", { campaign_id: ids.campaign_id, quest_name: "Q" })),
    entry_id: () => id(owner("POST", "/v1/journals", { world_id: ids.campaign_id, title: "J", content: "Private notes" })),
    folder_id: () => id(owner("POST", "/v1/journal-folders", { world_id: ids.campaign_id, name: "F", path: `f-${crypto.randomUUID()}` })),
    link_id: async () => id(owner("POST", `/v1/campaigns/${ids.campaign_id}/links`, { from_id: ids.character_id, from_type: "Character", to_id: await makers.item_id!(), to_type: "Item" })),
  };
  return makers;
}

/**
 * Fills `ids` (with `campaign_id` already set) with one record of each kind, in the order the makers
 * need (a character and a session before what hangs from them), the names some routes use for the
 * same records (`world_id`, `parent_id`) and a link-maintenance `task_id`.
 * Answers the makers, for a suite that needs fresh records later.
 */
export async function seedOneOfEach(owner: Must, admin: Must, ids: Record<string, string>): Promise<Record<string, () => Promise<string>>> {
  const makers = recordMakers(owner, admin, ids);
  for (const [name, make] of Object.entries(makers)) ids[name] = await make();
  ids.world_id = ids.campaign_id!;
  ids.parent_id = ids.beat_id!;
  ids.task_id = (await owner("POST", "/v1/characters/links/maintenance", { operation: "add", campaign_id: ids.campaign_id, target_id: ids.character_id, target_type: "Character", alias: "Target" })).task_id;
  return makers;
}
