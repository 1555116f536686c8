// The calls the parity test makes, per MCP tool: records it needs exist (see `Fixture`), so every
// tool is called with real ids and answers from real data, not only with errors.

export type Args = Record<string, unknown>;

export interface Case {
  label: string;
  /** The REST status this call must answer with; MCP must answer the same (an error carries it). */
  status: number;
  args: Args;
  /** Other arguments for the MCP call, when one call changes what the other would see (deletes, unique names). */
  mcpArgs?: Args;
  /** Fields that necessarily differ between two calls that each create or change a record. */
  differ?: string[];
}

export interface Fixture {
  campaign: string;
  character: string;
  faction: string;
  location: string;
  item: string;
  link: string;
  quest: string;
  folder: string;
  journal: string;
  session: string;
  beat: string;
  moment: string;
  award: string;
  quote: string;
  spotlight: string;
  /** Creates a record over REST and answers its id (for deletes, which need one record per transport). */
  make(path: string, body: Args): Promise<string>;
  /** Starts an image upload for a character of the campaign and puts the bytes; answers the object key. */
  upload(characterId: string): Promise<string>;
}

const CREATED = ["id", "created_at", "updated_at"];
const UPDATED = ["updated_at"];

/** Reads: the same call twice, nothing may differ. */
const read = (args: Args): Case[] => [{ label: "read", status: 200, args }];
const created = (args: Args, mcpArgs?: Args, differ: string[] = []): Case[] => [{ label: "create", status: 201, args, mcpArgs, differ: [...CREATED, ...differ] }];
const updated = (args: Args, differ: string[] = []): Case[] => [{ label: "update (the same change on the same record)", status: 200, args, differ: [...UPDATED, ...differ] }];
/** Deletes: each transport deletes its own record, made the same way. */
const deleted = async (make: () => Promise<Args>, status = 204, differ: string[] = []): Promise<Case[]> => [
  { label: "delete (each its own record)", status, args: await make(), mcpArgs: await make(), differ: [...CREATED, ...differ] },
];

/** Per tool, the successful calls; the error calls are derived from these (see the test). */
export function scenarios(fx: Fixture): Record<string, () => Promise<Case[]>> {
  const c = fx.campaign;
  const compendium = (kind: "faction" | "location" | "item", id: string) => ({
    [`list_${kind}s`]: async () => read({ campaign_id: c }),
    [`get_${kind}`]: async () => read({ [`${kind}_id`]: id }),
    [`create_${kind}`]: async () => created({ campaign_id: c, name: `New ${kind}`, description: "Made by the parity test." }),
    [`update_${kind}`]: async () => updated({ [`${kind}_id`]: id, description: `A changed ${kind}.` }),
    [`delete_${kind}`]: () => deleted(async () => ({ [`${kind}_id`]: await fx.make(`/v1/${kind}s`, { campaign_id: c, name: `Doomed ${kind} ${crypto.randomUUID().slice(0, 6)}` }) })),
  });
  const recap = (kind: "hero_award" | "quote" | "spotlight", route: string, idName: string, id: string, body: Args, change: Args) => ({
    [`list_${kind}s`]: async () => read({ campaign_id: c, session_id: fx.session }),
    [`get_${kind}`]: async () => read({ [idName]: id }),
    [`create_${kind}`]: async () => created({ session_id: fx.session, ...body }),
    [`update_${kind}`]: async () => updated({ [idName]: id, ...change }),
    [`delete_${kind}`]: () => deleted(async () => ({ [idName]: await fx.make(route, { session_id: fx.session, ...body }) })),
  });
  return {
    list_campaigns: async () => read({}),
    get_campaign: async () => read({ campaign_id: c }),
    get_campaign_stats: async () => read({ campaign_id: c }),
    // Each answer uses tokens: the counters it reports differ between the two calls.
    ask_campaign: async () => [{ label: "ask", status: 200, args: { campaign_id: c, messages: [{ role: "user", content: "Who looks for the bow in Emon?" }] }, differ: ["monthlyTokensRemaining", "hourlyTokensRemaining"] }],
    create_campaign: async () => created({ title: "Parity twin", system: "D&D 5e" }),
    update_campaign: async () => updated({ campaign_id: c, description: "Kept in step on both transports." }),

    list_characters: async () => read({ campaign_id: c }),
    get_character: async () => read({ character_id: fx.character }),
    create_character: async () => created({ campaign_id: c, character_name: "Twin", player_name: "Sam" }),
    update_character: async () => updated({ character_id: fx.character, backstory: "Raised in Westruun." }),
    delete_character: () => deleted(async () => ({ character_id: await fx.make("/v1/characters", { campaign_id: c, character_name: `Doomed ${crypto.randomUUID().slice(0, 6)}` }) })),
    ...compendium("faction", fx.faction),
    ...compendium("location", fx.location),
    ...compendium("item", fx.item),

    // A bulk change runs as a task: each call starts its own.
    bulk_link_maintenance: async () => [
      { label: "start a task", status: 202, args: { operation: "add", campaign_id: c, target_id: fx.faction, target_type: "Faction" }, differ: ["task_id", "id", "created_at", "status_url"] },
    ],
    list_links: async () => read({ campaign_id: c }),
    // A second link between the same two records is refused, so each transport links another item.
    create_link: async () => {
      const [a, b] = [await fx.make("/v1/items", { campaign_id: c, name: "Twin item A" }), await fx.make("/v1/items", { campaign_id: c, name: "Twin item B" })];
      return created({ campaign_id: c, from_id: fx.character, from_type: "Character", to_id: a, to_type: "Item", alias: "carries" }, { campaign_id: c, from_id: fx.character, from_type: "Character", to_id: b, to_type: "Item", alias: "carries" }, ["to_id"]);
    },
    update_link: async () => updated({ campaign_id: c, link_id: fx.link, alias: "wields" }),
    delete_link: () =>
      deleted(async () => ({
        campaign_id: c,
        link_id: await fx.make(`/v1/campaigns/${c}/links`, { from_id: fx.character, from_type: "Character", to_id: await fx.make("/v1/items", { campaign_id: c, name: `Lost ${crypto.randomUUID().slice(0, 6)}` }), to_type: "Item" }),
      })),

    list_quests: async () => read({ campaign_id: c }),
    get_quest: async () => read({ quest_id: fx.quest }),
    // A new quest goes last in the campaign's order: the second one made is one further down.
    create_quest: async () => created({ campaign_id: c, quest_name: "Find the bow", status: "planned", objectives: [{ text: "Reach Whitestone" }] }, undefined, ["order_index"]),
    update_quest: async () => updated({ quest_id: fx.quest, next_action: "Ask the smith." }),
    delete_quest: () => deleted(async () => ({ quest_id: await fx.make("/v1/quests", { campaign_id: c, quest_name: "Doomed quest" }) })),

    list_journals: async () => read({ campaign_id: c }),
    get_journal: async () => read({ entry_id: fx.journal }),
    create_journal: async () => created({ world_id: c, title: "Twin entry", content: "Dear diary." }),
    update_journal: async () => updated({ id: fx.journal, summary: "Summarised." }),
    delete_journal: () => deleted(async () => ({ id: await fx.make("/v1/journals", { world_id: c, title: "Doomed entry" }) }), 200),
    list_journal_folders: async () => read({ campaign_id: c }),
    get_journal_folder: async () => read({ folder_id: fx.folder }),
    // Folder paths are unique in a campaign: each transport makes its own.
    create_journal_folder: async () => created({ world_id: c, name: "Twin", path: "Twins/Rest" }, { world_id: c, name: "Twin", path: "Twins/Mcp" }, ["path"]),
    update_journal_folder: async () => updated({ id: fx.folder, description: "Everything about the lore." }),
    delete_journal_folder: () => {
      let n = 0;
      return deleted(async () => ({ id: await fx.make("/v1/journal-folders", { world_id: c, name: "Doomed", path: `Doomed/${++n}` }) }), 200);
    },

    list_sessions: async () => read({ campaign_id: c }),
    get_session: async () => read({ session_id: fx.session, include_beats: true, include_moments: true }),
    patch_session: async () => updated({ session_id: fx.session, summary: "They reached Emon." }),
    get_session_transcript: async () => read({ session_id: fx.session }),
    get_session_cast_analysis: async () => read({ session_id: fx.session }),
    get_session_handout: async () => read({ session_id: fx.session }),

    list_beats: async () => read({ campaign_id: c }),
    get_beat: async () => read({ beat_id: fx.beat }),
    create_beat: async () => created({ campaign_id: c, label: "Twin beat", type: "minor", parent_id: fx.beat }),
    update_beat: async () => updated({ beat_id: fx.beat, description: "The gate falls." }),
    delete_beat: () => deleted(async () => ({ beat_id: await fx.make("/v1/beats", { campaign_id: c, label: "Doomed beat", type: "major" }) })),
    list_moments: async () => read({ campaign_id: c }),
    get_moment: async () => read({ moment_id: fx.moment }),
    create_moment: async () => created({ campaign_id: c, session_id: fx.session, label: "Twin moment", content: "A natural 20." }),
    update_moment: async () => updated({ moment_id: fx.moment, content: "A natural 1." }),
    delete_moment: () => deleted(async () => ({ moment_id: await fx.make("/v1/moments", { campaign_id: c, label: "Doomed moment" }) })),
    ...recap("hero_award", "/v1/hero-awards", "award_id", fx.award, { title: "Bravest", description: "Held the door." }, { description: "Held the door twice." }),
    ...recap("quote", "/v1/quotes", "quote_id", fx.quote, { text: "Is it a mimic?" }, { speaker: "Sam" }),
    ...recap("spotlight", "/v1/spotlights", "spotlight_id", fx.spotlight, { title: "Scanlan's song" }, { description: "Sung in the tavern." }),
    get_image_usage: async () => read({ campaign_id: c }),
    init_image_upload: async () => [
      {
        label: "init (each its own key)",
        status: 200,
        args: { campaign_id: c, entity_type: "character", entity_id: fx.character, file_name: "portrait.png", content_type: "image/png" },
        differ: ["object_key", "upload_url", "public_url"],
      },
    ],
    // REST completes the upload, MCP repeats it: complete is idempotent, so both answer the same.
    complete_image_upload: async () => {
      const pictured = await fx.make("/v1/characters", { campaign_id: c, character_name: `Pictured ${crypto.randomUUID().slice(0, 6)}` });
      return [{ label: "complete (then again)", status: 200, args: { campaign_id: c, object_key: await fx.upload(pictured), entity_type: "character", entity_id: pictured } }];
    },
    delete_entity_image: async () => [{ label: "delete when there is no image", status: 200, args: { campaign_id: c, entity_type: "character", entity_id: fx.character } }],
  };
}
