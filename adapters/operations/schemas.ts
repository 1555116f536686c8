// Wire schemas (TypeBox = JSON Schema). Shared by validation, OpenAPI and MCP tool listings.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { MEMBER_ROLES } from "../../domain/access.ts";
import { SCOPES } from "../../domain/identity.ts";
import { IMAGE_URL_PATTERN, MAX_IMAGE_URL_LENGTH } from "../../domain/text.ts";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../../domain/pagination.ts";

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Id = (description = "Opaque identifier") => Type.String({ minLength: 1, maxLength: 200, description });
export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601, UTC (on input, a date-time without a zone or a bare date is read as UTC)" });

/** `x-error` replaces the generic validator message with a sentence a user can act on. */
export const ImageUrl = Type.String({
  maxLength: MAX_IMAGE_URL_LENGTH,
  pattern: IMAGE_URL_PATTERN,
  description: "HTTPS URL, at most 2048 characters",
  "x-error": "Image must be an HTTPS URL of at most 2048 characters",
});

// Optional with a default: the default is filled before validation, and clients need not send it.
export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: "Page number, from 1" })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: "Items per page (1–100)" })),
};

export const PageOf = <T extends TSchema>(item: T, name: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      total: Type.Integer({ minimum: 0 }),
      page: Type.Integer({ minimum: 1 }),
      size: Type.Integer({ minimum: 1 }),
      pages: Type.Integer({ minimum: 0 }),
    },
    { title: name },
  );

export const CampaignIdPath = Type.Object({ campaign_id: Id("Campaign id (the legacy routes call it world_id)") });

export const Campaign = Type.Object(
  {
    id: Id(),
    title: Type.String(),
    description: Nullable(Type.String()),
    system: Nullable(Type.String({ description: "Game system label" })),
    summary: Nullable(Type.String()),
    language: Type.String(),
    image: Nullable(Type.String()),
    public: Type.Boolean({ description: "Read-only" }),
    mature: Type.Boolean(),
    owner_id: Id(),
    archived: Type.Boolean({ description: "Archived campaigns stay readable and writable; lists can filter on it" }),
    archived_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Campaign" },
);

const campaignFields = {
  description: Nullable(Type.String({ maxLength: 20_000 })),
  system: Nullable(Type.String({ maxLength: 200, description: "Game system label, e.g. D&D 5e" })),
  summary: Nullable(Type.String({ maxLength: 50_000 })),
  language: Type.String({ minLength: 2, maxLength: 35, description: "BCP 47 language tag, default en" }),
  image: Nullable(ImageUrl),
  mature: Type.Boolean(),
};

export const CampaignCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), ...Type.Partial(Type.Object(campaignFields)).properties },
  { title: "CampaignCreate" },
);

export type CampaignCreateBody = Static<typeof CampaignCreate>;

export const CampaignUpdate = Type.Partial(
  Type.Object({
    title: Type.String({ minLength: 1, maxLength: 200 }),
    ...campaignFields,
    archived: Type.Boolean({ description: "true archives the campaign now (an archived one keeps its archived_at); false unarchives it" }),
    archived_at: Nullable({ ...Timestamp, description: "Archive at this time; null unarchives. Must agree with archived when both are sent" }),
  }),
  { title: "CampaignUpdate" },
);

export const CampaignListQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of title or description" })),
  owner_id: Type.Optional(Id("Only campaigns owned by this user")),
  public_only: Type.Optional(Type.Boolean({ default: false, description: "List public campaigns instead of your own" })),
  archived: Type.Optional(Type.Boolean({ description: "true: only archived campaigns; false: only active ones; absent: both" })),
});

const count = Type.Integer({ minimum: 0 });
export const CampaignStats = Type.Object(
  {
    campaign_id: Id(),
    title: Type.String(),
    public: Type.Boolean(),
    created_at: Timestamp,
    characters: count,
    sessions: count,
    moments: count,
    beats: count,
    factions: count,
    locations: count,
    items: count,
  },
  { title: "CampaignStats" },
);

export const UserProfile = Type.Object(
  {
    id: Id(),
    name: Type.String(),
    email: Type.String(),
    role: Type.String({ description: "user or admin" }),
    created_at: Timestamp,
    scopes: Type.Array(Type.String()),
    api_profile: Type.Union([Type.Literal("developer"), Type.Literal("agent")]),
  },
  { title: "UserProfile" },
);

export const User = Type.Object(
  { id: Id(), name: Type.String(), email: Type.String(), created_at: Timestamp },
  { title: "User" },
);

export const UserCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 320 }),
});

export const KeyCreate = Type.Object({
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))), { maxItems: 10 })),
});

export const IssuedKey = Type.Object(
  {
    id: Id(),
    key: Type.String({ description: "The secret. Shown only in this response." }),
    prefix: Type.String(),
    user_id: Id(),
    scopes: Type.Array(Type.String()),
    created_at: Timestamp,
  },
  { title: "IssuedKey" },
);

export const KeyListing = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Id(),
      prefix: Type.String(),
      scopes: Type.Array(Type.String()),
      created_at: Timestamp,
      revoked_at: Nullable(Timestamp),
    }),
  ),
});

export const MemberRole = Type.Union(MEMBER_ROLES.map((role) => Type.Literal(role)));

export const MemberCreate = Type.Object({ user_id: Id(), role: MemberRole });

export const Member = Type.Object(
  { campaign_id: Id(), user_id: Id(), role: MemberRole, roles: Type.Array(Type.String()), created_at: Timestamp },
  { title: "Member" },
);

export const Health = Type.Object({
  status: Type.String(),
  service: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  port: Type.Integer(),
  timestamp: Timestamp,
});

export const DatabaseHealth = Type.Object({
  status: Type.String(),
  backend: Type.String(),
  latency_ms: Type.Number(),
  migrations: Type.Object({ applied: Type.Integer(), latest: Nullable(Type.String()) }),
});

export const RootInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  docs: Type.String(),
  openapi: Type.String(),
  mcp: Type.String(),
  health: Type.String(),
});

export const VersionInfo = Type.Object({ version: Type.String(), api: Type.String(), resources: Type.Array(Type.String()) });

export const ErrorBody = Type.Object({ detail: Type.String() }, { title: "Error" });
export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        type: Type.String(),
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        input: Type.Optional(Type.Unknown()),
      }),
    ),
  },
  { title: "ValidationError" },
);

// Compendium ---------------------------------------------------------------------------------------

export const WithLinks = Type.Boolean({ default: false, description: "Keep [[wikilink]] markup in text fields (read with this before editing such text)" });
export const WithLinksQuery = Type.Object({ with_links: Type.Optional(WithLinks) });
export const CampaignIdQuery = { campaign_id: Id("Campaign id") };

const Text = (maxLength: number, description?: string) => Nullable(Type.String({ maxLength, ...(description ? { description } : {}) }));
const Aliases = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: "Other names; normalized and deduplicated" });

export const CharacterType = Type.Union([Type.Literal("PC"), Type.Literal("NPC"), Type.Literal("Other")]);

export const Player = Type.Object({
  id: Id(),
  name: Nullable(Type.String()),
  handle: Nullable(Type.String()),
  roles: Type.Array(Type.String()),
  campaign_id: Id(),
  created_at: Timestamp,
});

export const Character = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    character_name: Type.String(),
    character_aliases: Type.Array(Type.String()),
    character_alias: Nullable(Type.String({ description: "Deprecated: the first alias" })),
    player_name: Nullable(Type.String({ description: "Deprecated: the linked speaker's name, or the legacy value" })),
    player_handle: Nullable(Type.String()),
    player: Nullable(Player),
    speaker_id: Nullable(Id()),
    description: Nullable(Type.String()),
    backstory: Nullable(Type.String()),
    type: CharacterType,
    image: Nullable(Type.String()),
    tcg_image: Nullable(Type.String()),
    approved: Type.Boolean(),
    merge: Type.Boolean({ description: "Read-only" }),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Character" },
);

export const CharacterCard = Type.Object(
  { id: Id(), character_name: Type.String(), type: CharacterType, image: Nullable(Type.String()) },
  { title: "CharacterCard" },
);

const characterFields = {
  character_aliases: Aliases,
  characterAliases: { ...Aliases, description: "camelCase form of character_aliases" },
  character_alias: Text(1000, "Deprecated: one alias, or several separated by commas; merged into character_aliases"),
  player_name: Text(200, "Deprecated legacy field"),
  player_handle: Text(200),
  speaker_id: Nullable(Id("A speaker (player) of the same campaign")),
  speakerId: Nullable(Id("camelCase form of speaker_id")),
  description: Text(50_000, "May hold [[wikilinks]]"),
  backstory: Text(100_000, "May hold [[wikilinks]]; its links are kept apart from the description's"),
  type: CharacterType,
  image: Nullable(ImageUrl),
  tcg_image: Nullable(ImageUrl),
};

export const CharacterCreate = Type.Object(
  {
    character_name: Type.String({ minLength: 1, maxLength: 200 }),
    campaign_id: Id("Campaign id"),
    ...Type.Partial(Type.Object(characterFields)).properties,
  },
  { title: "CharacterCreate" },
);

export const CharacterUpdate = Type.Partial(Type.Object({ character_name: Type.String({ minLength: 1, maxLength: 200 }), ...characterFields }), { title: "CharacterUpdate" });

export const Fields = Type.Optional(Type.Literal("card", { description: "card: only the fields a list or picker shows" }));

export const CharacterListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Full text over name, aliases, player and type, with substring and misspelling fallback" })),
  character_type: Type.Optional(CharacterType),
  approved_only: Type.Optional(Type.Boolean({ default: true })),
  with_links: Type.Optional(WithLinks),
  fields: Fields,
  ...PageQuery,
});

export const entitySchemas = (noun: "Faction" | "Location" | "Item") => {
  const hierarchical = noun === "Location";
  const parent: Record<string, TSchema> = hierarchical ? { parent_id: Nullable(Id("Parent location (same campaign); never the location itself or a descendant")) } : {};
  const output = Type.Object(
    {
      id: Id(),
      campaign_id: Id(),
      name: Type.String(),
      aliases: Type.Array(Type.String()),
      description: Nullable(Type.String()),
      type: Nullable(Type.String()),
      image: Nullable(Type.String()),
      tcg_image: Nullable(Type.String()),
      ...(hierarchical ? { parent_id: Nullable(Id()) } : {}),
      merge: Type.Boolean({ description: "Read-only" }),
      created_at: Timestamp,
      updated_at: Nullable(Timestamp),
    },
    { title: noun },
  );
  const fields: Record<string, TSchema> = {
    aliases: Aliases,
    description: Text(50_000, "May hold [[wikilinks]]"),
    type: Text(100, "Free label, e.g. guild, city, weapon"),
    image: Nullable(ImageUrl),
    tcg_image: Nullable(ImageUrl),
    ...parent,
  };
  return {
    output,
    create: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 200 }), campaign_id: Id("Campaign id"), ...Type.Partial(Type.Object(fields)).properties },
      { title: `${noun}Create` },
    ),
    update: Type.Partial(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), ...fields }), { title: `${noun}Update` }),
  };
};

export const EntityCard = Type.Object({ id: Id(), name: Type.String(), type: Nullable(Type.String()), image: Nullable(Type.String()) }, { title: "EntityCard" });

export const EntityListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Full text over name, aliases and type, with substring and misspelling fallback" })),
  with_links: Type.Optional(WithLinks),
  fields: Fields,
  ...PageQuery,
});

export const PickerQuery = Type.Object({
  ...CampaignIdQuery,
  type: Type.Union([Type.Literal("characters"), Type.Literal("factions"), Type.Literal("locations"), Type.Literal("items")]),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page (this route uses limit, not size)" })),
});

export const PickerPage = Type.Object(
  { results: Type.Array(EntityCard), hasMore: Type.Boolean(), page: Type.Integer(), pages: Type.Integer(), total: Type.Integer() },
  { title: "EntityPickerPage" },
);

// Links --------------------------------------------------------------------------------------------

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));
export const LinkFromType = literals(["Character", "Faction", "Location", "Item", "Moment", "GameSession", "Beat", "Backstory", "Journal", "World"] as const);
export const LinkToType = literals(["Character", "Faction", "Location", "Item", "Moment"] as const);

export const Link = Type.Object(
  { id: Id(), campaign_id: Id(), from_id: Id(), from_type: LinkFromType, to_id: Id(), to_type: LinkToType, alias: Type.String(), created_at: Timestamp },
  { title: "Link" },
);

export const LinkCreate = Type.Object(
  {
    from_id: Id(),
    from_type: LinkFromType,
    to_id: Id(),
    to_type: LinkToType,
    alias: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "Label; defaults to the target's name. One link per source and alias: a second create with the same alias replaces the first." }))),
  },
  { title: "LinkCreate" },
);

export const LinkUpdate = Type.Object({ alias: Type.String({ minLength: 1, maxLength: 200 }) }, { title: "LinkUpdate" });

export const LinkListQuery = Type.Object({
  to_id: Type.Optional(Id()),
  from_id: Type.Optional(Id()),
  to_type: Type.Optional(Type.String({ maxLength: 40 })),
  from_type: Type.Optional(Type.String({ maxLength: 40 })),
  alias: Type.Optional(Type.String({ maxLength: 200 })),
  ...PageQuery,
});

export const LinkPath = Type.Object({ campaign_id: Id("Campaign id (the legacy routes call it world_id)"), link_id: Id("Link id") });

export const MaintenanceRequest = Type.Object(
  {
    operation: literals(["add", "remove", "update"] as const),
    campaign_id: Type.Optional(Id("Campaign id (or worldId)")),
    worldId: Type.Optional(Id("Legacy name of campaign_id")),
    target_id: Type.Optional(Id("The record the links point at")),
    targetId: Type.Optional(Id()),
    target_type: Type.Optional(LinkToType),
    targetType: Type.Optional(LinkToType),
    alias: Type.Optional(Type.String({ maxLength: 200, description: "add: the plain text to turn into links (default: the target's name); remove: only links with this text" })),
    new_alias: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    newAlias: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    new_target_id: Type.Optional(Id()),
    newTargetId: Type.Optional(Id()),
  },
  { title: "LinkMaintenanceRequest" },
);

export const Accepted = Type.Object({ success: Type.Literal(true), task_id: Id() }, { title: "TaskAccepted" });

export const TaskView = Type.Object(
  {
    id: Id(),
    kind: Type.String(),
    status: literals(["queued", "running", "succeeded", "failed"] as const),
    campaign_id: Nullable(Id()),
    result: Nullable(Type.Record(Type.String(), Type.Unknown())),
    error: Nullable(Type.String()),
    attempts: Type.Integer(),
    created_at: Timestamp,
    started_at: Nullable(Timestamp),
    finished_at: Nullable(Timestamp),
  },
  { title: "Task" },
);

export const SearchQuery = Type.Object({
  q: Type.String({ maxLength: 200, description: "What to look for; misspellings are tolerated" }),
  types: Type.Optional(Type.String({ maxLength: 200, description: "Comma list of buckets: characters, factions, locations, items, sessions, beats, moments, quests, journals" })),
});

const SearchHit = Type.Object({ id: Id(), type: Type.String(), name: Type.String(), snippet: Type.String({ description: "HTML: up to 24 words around the first match, matching words wrapped in <mark>, the record's own text escaped" }), score: Type.Number() });
export const SearchResult = Type.Object(
  Object.fromEntries(
    ["characters", "factions", "locations", "items", "sessions", "beats", "moments", "quests", "journals"].map((bucket) => [bucket, Type.Optional(Type.Array(SearchHit, { maxItems: 10 }))]),
  ),
  { title: "SearchResult" },
);

export const SpeakerCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  handle: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  user_id: Type.Optional(Nullable(Id())),
  roles: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 })),
});

export const Speaker = Type.Object(
  { id: Id(), campaign_id: Id(), name: Type.String(), handle: Nullable(Type.String()), user_id: Nullable(Id()), roles: Type.Array(Type.String()), created_at: Timestamp },
  { title: "Speaker" },
);

// Quests -------------------------------------------------------------------------------------------

const QuestCategory = literals(["main", "side", "faction", "personal", "n/a"] as const);
const QuestStatus = literals(["planned", "in-progress", "blocked", "failed", "done", "n/a"] as const);
const ObjectiveStatus = literals(["pending", "in-progress", "completed", "failed", "blocked"] as const);
const QuestEntityType = literals(["character", "faction", "location", "item"] as const);
const Narrative = (description: string) => Nullable(Type.String({ maxLength: 20_000, description }));
const LabelList = (what: string) => Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200, description: `Labels of related ${what}; replaces only this bucket` });

const SessionCite = Nullable(Type.Object({ id: Id(), number: Type.Integer(), title: Type.String(), session_date: Timestamp }));

const questScalars = {
  id: Id(),
  campaign_id: Id(),
  order_index: Type.Integer(),
  quest_name: Type.String(),
  quest_giver: Nullable(Type.String()),
  quest_giver_id: Nullable(Id()),
  quest_category: QuestCategory,
  status: QuestStatus,
  success_definition: Nullable(Type.String()),
  failure_conditions: Nullable(Type.String()),
  next_action: Nullable(Type.String()),
  resolution: Nullable(Type.String()),
  objective_count: Type.Integer(),
  completed_objective_count: Type.Integer(),
  progress_entry_count: Type.Integer(),
  related_entity_count: Type.Integer(),
  first_session: SessionCite,
  last_session: SessionCite,
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const QuestSummary = Type.Object(questScalars, { title: "QuestSummary" });

export const Quest = Type.Object(
  {
    ...questScalars,
    objectives: Type.Array(Type.Object({ id: Id(), text: Type.String(), status: ObjectiveStatus, order: Type.Integer() })),
    progress_log: Type.Array(Type.String()),
    progress_log_entries: Type.Array(
      Type.Object({
        id: Id(),
        text: Type.String(),
        order: Type.Integer(),
        session_id: Nullable(Id()),
        session_number: Nullable(Type.Integer()),
        session_title: Nullable(Type.String()),
        session_date: Nullable(Timestamp),
      }),
    ),
    related_characters: Type.Array(Type.String()),
    related_factions: Type.Array(Type.String()),
    related_locations: Type.Array(Type.String()),
    related_items: Type.Array(Type.String()),
    related_entity_refs: Type.Array(
      Type.Object({
        id: Id(),
        entity_type: QuestEntityType,
        entity_id: Nullable(Id()),
        entity_name_snapshot: Nullable(Type.String()),
        label: Nullable(Type.String()),
        order: Type.Integer(),
      }),
    ),
  },
  { title: "Quest" },
);

const questInputFields = {
  quest_giver: Nullable(Type.String({ maxLength: 200, description: "Must name an approved character or faction of the campaign" })),
  quest_category: QuestCategory,
  status: { ...QuestStatus, description: "Ignored when objectives are sent: the status is then derived from them" },
  success_definition: Narrative("What success looks like"),
  failure_conditions: Narrative("What failure looks like"),
  next_action: Narrative("The party's next step"),
  resolution: Narrative("How it ended"),
  objectives: Type.Array(Type.Union([Type.String({ maxLength: 2000 }), Type.Object({ text: Type.String({ maxLength: 2000 }), status: Type.Optional(ObjectiveStatus) })]), {
    maxItems: 200,
    description: "Replaces the whole list and recomputes the status",
  }),
  progress_log: Type.Array(Type.Union([Type.String({ maxLength: 5000 }), Type.Object({ text: Type.String({ maxLength: 5000 }), session_id: Type.Optional(Nullable(Id())) })]), {
    maxItems: 500,
    description: "Replaces the progress list; an entry may cite a session of the campaign",
  }),
  related_characters: LabelList("characters"),
  related_factions: LabelList("factions"),
  related_locations: LabelList("locations"),
  related_items: LabelList("items"),
  related_entity_refs: Type.Array(
    Type.Object({
      entity_type: QuestEntityType,
      entity_id: Type.Optional(Nullable(Id("Must exist in the campaign"))),
      entity_name_snapshot: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
      label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    }),
    { maxItems: 200, description: "Replaces the whole related-entity set" },
  ),
};

export const QuestCreate = Type.Object(
  { campaign_id: Id("Campaign id"), quest_name: Type.String({ maxLength: 300 }), ...Type.Partial(Type.Object(questInputFields)).properties },
  { title: "QuestCreate" },
);
export const QuestUpdate = Type.Partial(Type.Object({ quest_name: Type.String({ maxLength: 300 }), ...questInputFields }), { title: "QuestUpdate" });

export const QuestListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of name, giver or narrative fields" })),
  status: Type.Optional(QuestStatus),
  quest_category: Type.Optional(QuestCategory),
  ...PageQuery,
});

// Journals -----------------------------------------------------------------------------------------

const PermissionLevel = literals(["view", "comment", "edit", "manage"] as const);
const JournalStatus = literals(["draft", "published", "archived"] as const);

const journalListFields = {
  id: Id(),
  campaign_id: Id(),
  title: Type.String(),
  summary: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  token_count: Type.Integer(),
  cover_image: Nullable(Type.String()),
  is_pinned: Type.Boolean(),
  is_public: Type.Boolean(),
  status: JournalStatus,
  published_at: Nullable(Timestamp),
  archived_at: Nullable(Timestamp),
  folder_id: Nullable(Id()),
  author_id: Id(),
  last_edited_by_id: Nullable(Id()),
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const JournalListItem = Type.Object(journalListFields, { title: "JournalEntrySummary" });
export const JournalCard = Type.Object(
  { id: Id(), title: Type.String(), summary: Nullable(Type.String()), updated_at: Nullable(Timestamp), folder_id: Nullable(Id()) },
  { title: "JournalCard" },
);
export const JournalDetail = Type.Object(
  {
    ...journalListFields,
    content: Type.String({ description: "Plain text (derived from content_rich when that is set)" }),
    content_rich: Type.Unknown({ description: "Rich-text (Lexical) editor state" }),
    content_metadata: Type.Unknown(),
    permission_level: PermissionLevel,
  },
  { title: "JournalEntry" },
);

const journalInputFields = {
  summary: Nullable(Type.String({ maxLength: 5000 })),
  content: Nullable(Type.String({ description: "Plain text; ignored when content_rich is sent. May hold [[wikilinks]]." })),
  content_rich: Type.Unknown({ description: "Lexical editor state JSON; canonical when sent" }),
  content_metadata: Type.Unknown(),
  tags: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
  cover_image: Nullable(ImageUrl),
  is_pinned: Type.Boolean(),
  is_public: Type.Boolean({ description: "Visible to everyone in the campaign" }),
  status: JournalStatus,
  published_at: Nullable(Timestamp),
  archived_at: Nullable(Timestamp),
  folder_id: Nullable(Id("A journal folder of the same campaign")),
};

export const JournalCreate = Type.Object(
  { world_id: Id("Campaign id"), title: Type.String({ minLength: 1, maxLength: 300 }), ...Type.Partial(Type.Object(journalInputFields)).properties },
  { title: "JournalCreate" },
);

export const JournalUpdate = Type.Object(
  {
    id: Id("Journal entry id"),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    ...Type.Partial(Type.Object(journalInputFields)).properties,
    author_id: Type.Optional(Id("Hands the entry to another member of the campaign (needs manage)")),
    permissions: Type.Optional(
      Type.Object(
        {
          add: Type.Optional(Type.Array(Type.Object({ user_id: Id(), level: PermissionLevel }), { maxItems: 100 })),
          remove: Type.Optional(Type.Array(Type.Object({ user_id: Id() }), { maxItems: 100 })),
        },
        { description: "Share changes (needs manage); the author cannot be removed" },
      ),
    ),
  },
  { title: "JournalUpdate" },
);

export const JournalListQuery = Type.Object({
  campaign_id: Id("Campaign id (world id)"),
  folder_id: Type.Optional(Id("Only entries in this folder")),
  fields: Fields,
  with_links: Type.Optional(WithLinks),
  ...PageQuery,
});

export const Success = Type.Object({ success: Type.Literal(true) }, { title: "Success" });
export const SuccessId = Type.Object({ success: Type.Literal(true), id: Id() }, { title: "SuccessWithId" });

export const Folder = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    parent_id: Nullable(Id()),
    name: Type.String(),
    path: Type.String(),
    description: Nullable(Type.String()),
    position: Type.Integer(),
    metadata: Type.Unknown(),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "JournalFolder" },
);

const folderFields = {
  parent_id: Nullable(Id("Parent folder of the same campaign; never the folder itself or a descendant")),
  description: Nullable(Type.String({ maxLength: 5000 })),
  position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  metadata: Type.Unknown(),
};

export const FolderCreate = Type.Object(
  {
    world_id: Id("Campaign id"),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    path: Type.String({ minLength: 1, maxLength: 1000, description: "Normalized: trimmed segments, no leading, trailing or doubled slashes; unique per campaign" }),
    ...Type.Partial(Type.Object(folderFields)).properties,
  },
  { title: "JournalFolderCreate" },
);

export const FolderUpdate = Type.Object(
  {
    id: Id("Folder id"),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    ...Type.Partial(Type.Object(folderFields)).properties,
  },
  { title: "JournalFolderUpdate" },
);

export const FolderListQuery = Type.Object({ campaign_id: Id("Campaign id"), parent_id: Type.Optional(Id("Only the children of this folder")) });
export const IdQuery = (description: string) => Type.Object({ id: Id(description) });

// Sessions (first party for now) -----------------------------------------------------------------

export const SessionType = literals(["audioUpload", "playByPost", "chatVoice", "txtUpload", "rawNotes", "other"] as const);
/** On input the live service's own name for a chat-platform voice recording is taken too. */
const SessionTypeInput = { ...SessionType, "x-aliases": { discordVoice: "chatVoice" }, description: "chatVoice is also accepted as discordVoice" } as typeof SessionType;

export const Session = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    type: SessionType,
    title: Type.String(),
    summary: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    session_date: Timestamp,
    image: Nullable(Type.String()),
    public: Type.Boolean(),
    pbp_start_msg_url: Nullable(Type.String()),
    pbp_end_msg_url: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Session" },
);

export const SessionCreate = Type.Object({
  campaign_id: Id("Campaign id"),
  type: SessionTypeInput,
  title: Type.String({ minLength: 1, maxLength: 300 }),
  session_date: Type.String({ format: "date-time", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$", "x-error": "session_date must be an ISO 8601 date-time (without a zone it is read as UTC)" }),
  summary: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 2_000_000 }))),
});

// Sessions and the story ------------------------------------------------------------------------------

export const SessionView = Type.Object({ ...Session.properties, index: Type.Integer({ description: "Number of the session in date order, from 1" }) }, { title: "SessionSummary" });

export const SessionListQuery = Type.Object({
  ...CampaignIdQuery,
  session_type: Type.Optional(SessionTypeInput),
  public_only: Type.Optional(Type.Boolean({ default: false })),
  with_links: Type.Optional(WithLinks),
  ...PageQuery,
});

export const SessionDetailQuery = Type.Object({
  include_beats: Type.Optional(Type.Boolean({ default: false })),
  include_moments: Type.Optional(Type.Boolean({ default: false })),
  with_links: Type.Optional(WithLinks),
});

export const SessionPatch = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    summary: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: "May hold [[wikilinks]]" }))),
    session_date: Type.Optional(Timestamp),
  },
  { title: "SessionPatch" },
);

export const SessionIdPath = Type.Object({ session_id: Id("Session id") });

const BeatType = literals(["major", "minor", "step"] as const);
const Metadata = Nullable(Type.Record(Type.String(), Type.Unknown()));

export const Beat = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    label: Type.String(),
    type: BeatType,
    description: Nullable(Type.String()),
    index: Type.Integer(),
    parent_id: Nullable(Id()),
    metadata: Metadata,
    game_session_ids: Type.Array(Id()),
    game_session_id: Nullable(Id()),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Beat" },
);

export const BeatNode = Type.Recursive(
  (Self) =>
    Type.Object({
      ...Beat.properties,
      children: Type.Array(Self),
      linkedEntities: Type.Object({ characters: Type.Array(Id()), factions: Type.Array(Id()), locations: Type.Array(Id()), items: Type.Array(Id()) }),
    }),
  { title: "BeatHierarchyNode" },
);

const BeatSessions = {
  game_session_id: Type.Optional(Nullable(Id("A session of the same campaign; becomes the first of game_session_ids"))),
  game_session_ids: Type.Optional(
    Nullable(Type.Array(Id(), { maxItems: 100, description: "Sessions of the same campaign, in order; repeats are dropped. null or [] clears." })),
  ),
};

export const BeatCreate = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 300 }),
    type: BeatType,
    campaign_id: Id("Campaign id"),
    ...BeatSessions,
    description: Type.Optional(Nullable(Type.String({ maxLength: 50_000, description: "May hold [[wikilinks]]" }))),
    index: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    parent_id: Type.Optional(Nullable(Id("Minor beats and steps only; a beat of the same campaign, never a descendant"))),
    metadata: Type.Optional(Metadata),
  },
  { title: "BeatCreate" },
);

export const BeatPatch = Type.Object(
  {
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 50_000 }))),
    index: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    parent_id: Type.Optional(Nullable(Id())),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "Merged key by key; a key set to null is removed; null clears all" }))),
    ...BeatSessions,
  },
  { title: "BeatPatch" },
);

export const BeatListQuery = Type.Object({
  campaign_id: Type.Optional(Id("Campaign-wide list, ordered by index")),
  session_id: Type.Optional(Id("Beats linked to this session")),
  include_hierarchy: Type.Optional(Type.Boolean({ default: false, description: "With session_id: a nested, unpaginated array of hierarchy nodes" })),
  with_links: Type.Optional(WithLinks),
  ...PageQuery,
});

const Categories = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 });

export const Moment = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    session_id: Nullable(Id()),
    label: Nullable(Type.String()),
    content: Nullable(Type.String()),
    image: Nullable(Type.String()),
    index: Nullable(Type.Integer()),
    categories: Type.Array(Type.String()),
    kind: Type.String(),
    metadata: Metadata,
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Moment" },
);

export const MomentCard = Type.Object(
  { id: Id(), label: Nullable(Type.String()), image: Nullable(Type.String()), session_id: Nullable(Id()), created_at: Timestamp, categories: Type.Array(Type.String()) },
  { title: "MomentCard" },
);

const momentFields = {
  session_id: Nullable(Id("A session of the same campaign")),
  content: Nullable(Type.String({ maxLength: 20_000, description: "May hold [[wikilinks]]" })),
  image: Nullable(ImageUrl),
  index: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  categories: { ...Categories, description: "Key Moment cards carry key-moment" },
  kind: Type.String({ minLength: 1, maxLength: 64, description: "Default legacy" }),
  metadata: { ...Metadata, description: "Merged key by key on update; presentation lives here (style, customTheme, variant)" },
  style: Type.String({ maxLength: 64, description: "Presentation: stored in metadata.style" }),
  customTheme: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "Presentation: stored in metadata.customTheme" })),
  variant: Type.String({ maxLength: 64, description: "Presentation: stored in metadata.variant" }),
};

export const MomentCreate = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 300 }), campaign_id: Id("Campaign id"), ...Type.Partial(Type.Object(momentFields)).properties },
  { title: "MomentCreate" },
);
export const MomentPatch = Type.Partial(Type.Object({ label: Type.String({ minLength: 1, maxLength: 300 }), ...momentFields }), { title: "MomentPatch" });

const IdList = (what: string) => Type.Optional(Type.String({ maxLength: 5000, description: `Comma-separated ${what} ids` }));
export const MomentListQuery = Type.Object({
  campaign_id: Type.Optional(Id("Campaign id (or give session_id)")),
  session_id: Type.Optional(Id()),
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of the label" })),
  fields: Fields,
  character_ids: IdList("character"),
  location_ids: IdList("location"),
  faction_ids: IdList("faction"),
  item_ids: IdList("item"),
  session_ids: IdList("session"),
  categories: Type.Optional(Type.String({ maxLength: 1000, description: "Comma-separated; any overlap matches (key-moment finds Key Moment cards)" })),
  kind: Type.Optional(Type.String({ maxLength: 64 })),
  with_links: Type.Optional(WithLinks),
  ...PageQuery,
});

const Theme = Nullable(Type.Record(Type.String(), Type.Unknown()));

export const HeroAward = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    session_id: Id(),
    title: Type.String(),
    description: Type.String(),
    character_name: Type.String(),
    player_name: Nullable(Type.String()),
    tone_mode: Type.String(),
    award_mode: Type.String(),
    style: Type.String(),
    variant: Type.String(),
    custom_theme: Theme,
    order_index: Type.Integer(),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "HeroAward" },
);

const awardFields = {
  character_name: Type.String({ maxLength: 200 }),
  player_name: Nullable(Type.String({ maxLength: 200 })),
  tone_mode: Type.String({ maxLength: 64, description: "Default default" }),
  award_mode: literals(["moment", "theme"] as const),
  style: Type.String({ maxLength: 64, description: "verdant (default), ember, arcane, frost, gilded" }),
  variant: Type.String({ maxLength: 64, description: "square (default, 1080×1080) or portrait (1080×1350)" }),
  custom_theme: { ...Theme, description: "Colors: background, accent, text (#hex)" },
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};

export const HeroAwardCreate = Type.Object(
  {
    session_id: Id("Session id"),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ minLength: 1, maxLength: 4000 }),
    ...Type.Partial(Type.Object(awardFields)).properties,
  },
  { title: "HeroAwardCreate" },
);
export const HeroAwardUpdate = Type.Partial(
  Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ minLength: 1, maxLength: 4000 }), ...awardFields }),
  { title: "HeroAwardUpdate" },
);

const recapCommon = {
  id: Id(),
  campaign_id: Id(),
  session_id: Id(),
  character_name: Nullable(Type.String()),
  style: Nullable(Type.String()),
  custom_theme: Theme,
  order_index: Type.Integer(),
  pipeline_id: Nullable(Id()),
  recap_set_id: Nullable(Id()),
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const Quote = Type.Object({ ...recapCommon, text: Nullable(Type.String()), speaker: Nullable(Type.String()), context: Nullable(Type.String()) }, { title: "Quote" });
export const Spotlight = Type.Object(
  { ...recapCommon, title: Nullable(Type.String()), description: Nullable(Type.String()), player_name: Nullable(Type.String()), entry_type: Type.Literal("spotlight"), source_moment_id: Nullable(Id()) },
  { title: "Spotlight" },
);

const quoteFields = {
  speaker: Nullable(Type.String({ maxLength: 200 })),
  character_name: Nullable(Type.String({ maxLength: 200 })),
  context: Nullable(Type.String({ maxLength: 2000 })),
  style: Nullable(Type.String({ maxLength: 64 })),
  custom_theme: Theme,
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};
export const QuoteCreate = Type.Object(
  { session_id: Id("Session id"), text: Type.String({ minLength: 1, maxLength: 8000 }), ...Type.Partial(Type.Object(quoteFields)).properties },
  { title: "QuoteCreate" },
);
export const QuoteUpdate = Type.Partial(Type.Object({ text: Type.String({ minLength: 1, maxLength: 8000 }), ...quoteFields }), { title: "QuoteUpdate" });

const spotlightFields = {
  description: Nullable(Type.String({ maxLength: 4000 })),
  character_name: Nullable(Type.String({ maxLength: 200 })),
  player_name: Nullable(Type.String({ maxLength: 200 })),
  style: Nullable(Type.String({ maxLength: 64 })),
  custom_theme: Theme,
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  source_moment_id: Nullable(Id("A moment of the same campaign")),
};
export const SpotlightCreate = Type.Object(
  { session_id: Id("Session id"), title: Type.String({ minLength: 1, maxLength: 200 }), ...Type.Partial(Type.Object(spotlightFields)).properties },
  { title: "SpotlightCreate" },
);
export const SpotlightUpdate = Type.Partial(Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), ...spotlightFields }), { title: "SpotlightUpdate" });

export const RecapListQuery = Type.Object({
  campaign_id: Type.Optional(Id("Campaign id (or give session_id)")),
  session_id: Type.Optional(Id()),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  ...PageQuery,
});

export const Transcript = Type.Object(
  {
    version: Type.Integer(),
    created_at: Timestamp,
    metadata: Type.Object({
      session_id: Id(),
      session_type: Type.String(),
      campaign_id: Id(),
      world_title: Type.String(),
      world_language: Type.String(),
      session_date: Timestamp,
      speakers: Type.Array(Type.String()),
      speaker_count: Type.Integer(),
      source_type: Type.String(),
      created_at: Timestamp,
    }),
    utterances: Type.Array(Type.Object({ speaker_label: Type.String(), transcript: Type.String(), start: Type.Number(), end: Type.Number(), said_at: Timestamp })),
    text: Type.String(),
    stats: Type.Object({ char_count: Type.Integer(), tokens: Type.Integer(), utterance_count: Type.Integer() }),
  },
  { title: "Transcript" },
);

export const TranscriptQuery = Type.Object({ format: Type.Optional(literals(["json", "markdown"] as const)) });

export const CastAnalysis = Type.Object(
  {
    id: Id(),
    session_id: Id(),
    analysis: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
    pdfSavedAt: Nullable(Timestamp),
    pdfPageCount: Nullable(Type.Integer()),
  },
  { title: "CastAnalysis" },
);

const Named = Type.Object({ name: Type.String({ maxLength: 500 }), description: Type.String({ maxLength: 5000 }) });
const Bullets = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 });
export const HandoutBody = Type.Object(
  {
    summary: Type.String({ maxLength: 20_000 }),
    sessionOutline: Type.Union([Type.String({ maxLength: 20_000 }), Type.Array(Type.Object({ title: Type.String({ maxLength: 500 }) }), { maxItems: 100 })]),
    encounters: Type.Array(Type.Object({ title: Type.String({ maxLength: 500 }), bullets: Bullets }), { maxItems: 100 }),
    characterSpotlight: Type.Array(Type.Object({ name: Type.String({ maxLength: 500 }), description: Type.String({ maxLength: 5000 }), bullets: Bullets }), { maxItems: 50 }),
    otherEntitySpotlight: Type.Array(Named, { maxItems: 50 }),
    items: Type.Array(Named, { maxItems: 100 }),
    valuableInformation: Type.Array(Type.Object({ info: Type.String({ maxLength: 5000 }) }), { maxItems: 100 }),
    partyStatusAndNextSteps: Type.Object({
      partyStatus: Type.Object({ summary: Type.String({ maxLength: 5000 }), bullets: Bullets }),
      nextSteps: Type.Object({ summary: Type.String({ maxLength: 5000 }) }),
    }),
    moments: Type.Array(Type.Object({ label: Type.String({ maxLength: 500 }), content: Type.String({ maxLength: 20_000 }) }), { maxItems: 100 }),
  },
  { title: "SessionHandout" },
);
export const Handout = Type.Object(
  { ...HandoutBody.properties, pdfSavedAt: Nullable(Timestamp), pdfPageCount: Nullable(Type.Integer()) },
  { title: "SessionHandoutView" },
);

export const ImportResult = Type.Object({ utterance_count: Type.Integer(), speakers: Type.Array(Type.String()) }, { title: "TranscriptImport" });
export const TranscriptImportQuery = Type.Object({ format: Type.Optional(literals(["plain", "vtt", "srt", "crd3"] as const)) });
