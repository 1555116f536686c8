// Characters: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as characters from "../../application/characters.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { Aliases, CampaignIdQuery, Fields, Id, ImageUrl, Nullable, PageOf, PageQuery, Text, Timestamp, WIKILINKS_SYNCED, WithLinks, WithLinksQuery, Defaulted } from "./common.ts";
import { maintenanceOperation } from "./links.ts";

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

export const CharacterListQuery = Type.Object({
  ...CampaignIdQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Full text over name, aliases, player and type, with substring and misspelling fallback" })),
  character_type: Type.Optional(CharacterType),
  approved_only: Defaulted(Type.Boolean({ default: true })),
  with_links: Defaulted(WithLinks),
  fields: Fields,
  ...PageQuery,
});

export const characterOperations = defineOperations({ publishedAt: 30 }, [
  defineOperation({
    id: "listCharacters",
    summary: "List characters",
    description: `Lists a campaign's characters (PCs, NPCs, others), newest first. search matches name, aliases, player and type, tolerating misspellings, and lists the exact name first, then names starting with the query; fields=card returns only id, character_name, type and image. ${WIKILINKS_SYNCED}`,
    tag: "Characters",
    access: { auth: "campaign", level: "read", scope: "characters_read", campaign: ({ query }) => ({ campaign_id: query.campaign_id }) },
    http: { method: "GET", path: "/v1/characters", status: 200 },
    mcp: { name: "list_characters", title: "List characters", readOnly: true },
    input: { query: CharacterListQuery },
    output: PageOf(Type.Union([Character, CharacterCard]), "CharacterPage"),
    run: ({ deps, caller, access }, { query }) =>
      characters.listCharacters(deps, caller, access, {
        page: query.page,
        size: query.size,
        search: query.search,
        character_type: query.character_type,
        approved_only: query.approved_only ?? true,
        with_links: query.with_links ?? false,
        fields: query.fields,
      }),
  }),
  defineOperation({
    id: "createCharacter",
    summary: "Create a character",
    description: `Creates a character. speaker_id links the player (a speaker of the same campaign); the character may not share the player's name. Aliases are normalized and deduplicated. ${WIKILINKS_SYNCED}`,
    tag: "Characters",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ body }) => ({ campaign_id: body.campaign_id }) },
    http: { method: "POST", path: "/v1/characters", status: 201 },
    mcp: { name: "create_character", title: "Create a character", readOnly: false, destructive: false, idempotent: false },
    input: { body: CharacterCreate },
    output: Character,
    run: ({ deps, caller, access }, { body }) => {
      const { campaign_id, ...fields } = body;
      return characters.createCharacter(deps, caller, access, fields);
    },
  }),
  defineOperation({
    id: "getCharacter",
    summary: "Get a character",
    description: `Reads one character, with the linked player. ${WIKILINKS_SYNCED}`,
    tag: "Characters",
    access: { auth: "campaign", level: "read", scope: "characters_read", campaign: ({ path }) => ({ record: "characters", id: path.character_id, notFound: "Character not found" }) },
    http: { method: "GET", path: "/v1/characters/{character_id}", status: 200 },
    mcp: { name: "get_character", title: "Get a character", readOnly: true },
    input: { path: Type.Object({ character_id: Id("Character id") }), query: WithLinksQuery },
    output: Character,
    run: ({ deps, caller, access }, { path, query }) => characters.getCharacter(deps, caller, access, path.character_id, query.with_links ?? false),
  }),
  defineOperation({
    id: "updateCharacter",
    summary: "Update a character",
    description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit description or backstory, so their wikilinks survive. ${WIKILINKS_SYNCED}`,
    tag: "Characters",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ path }) => ({ record: "characters", id: path.character_id, notFound: "Character not found" }) },
    http: { method: "PATCH", path: "/v1/characters/{character_id}", status: 200 },
    mcp: { name: "update_character", title: "Update a character", readOnly: false, destructive: false, idempotent: true },
    input: { path: Type.Object({ character_id: Id("Character id") }), body: CharacterUpdate },
    output: Character,
    run: ({ deps, caller, access }, { path, body }) => characters.updateCharacter(deps, caller, access, path.character_id, body),
  }),
  defineOperation({
    id: "deleteCharacter",
    summary: "Delete a character",
    description: "Deletes a character and every link to or from it.",
    tag: "Characters",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ path }) => ({ record: "characters", id: path.character_id, notFound: "Character not found" }) },
    http: { method: "DELETE", path: "/v1/characters/{character_id}", status: 204 },
    mcp: { name: "delete_character", title: "Delete a character", readOnly: false, destructive: true, idempotent: true },
    input: { path: Type.Object({ character_id: Id("Character id") }) },
    run: ({ deps, caller, access }, { path }) => characters.deleteCharacter(deps, caller, access, path.character_id),
  }),
  maintenanceOperation("characters", "Characters", "Character"),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    characters: typeof characterOperations;
  }
}
