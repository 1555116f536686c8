// Characters: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as characters from "../../application/characters.ts";
import { defineOperations } from "./operation.ts";
import { byBodyCampaign, byQueryCampaign, plainRows } from "./crud.ts";
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

const character = plainRows({ name: "Character", tag: "Characters", record: "characters", readScope: "characters_read" });
export const characterOperations = defineOperations({ publishedAt: 30 }, [
  character.list({
    description: `Lists a campaign's characters (PCs, NPCs, others), newest first. search matches name, aliases, player and type, tolerating misspellings, and lists the exact name first, then names starting with the query in name order, then other matches newest first; when no word starts with it, names holding it (newest first), and only when none, similar names (most similar first: the 50 nearest to its words, or when none is near, every name within trigram similarity); fields=card returns only id, character_name, type and image. ${WIKILINKS_SYNCED}`,
    campaign: byQueryCampaign,
    input: { query: CharacterListQuery },
    output: PageOf(Type.Union([Character, CharacterCard]), "CharacterPage"),
    run: ({ deps, caller, access }, { query }) =>
      characters.listCharacters(deps, caller, access, {
        page: query.page,
        size: query.size,
        search: query.search,
        character_type: query.character_type,
        approved_only: query.approved_only,
        with_links: query.with_links,
        fields: query.fields,
      }),
  }),
  character.create({
    description: `Creates a character. speaker_id links the player (a speaker of the same campaign); the character may not share the player's name. Aliases are normalized and deduplicated. ${WIKILINKS_SYNCED}`,
    campaign: byBodyCampaign,
    input: { body: CharacterCreate },
    output: Character,
    run: ({ deps, caller, access }, { body: { campaign_id, ...fields } }) => characters.createCharacter(deps, caller, access, fields),
  }),
  character.get({ description: `Reads one character, with the linked player. ${WIKILINKS_SYNCED}`, withLinks: true, output: Character, use: characters.getCharacter }),
  character.update({ description: `Changes the fields sent; omitted ones stay. Read with with_links=true first if you edit description or backstory, so their wikilinks survive. ${WIKILINKS_SYNCED}`, body: CharacterUpdate, output: Character, use: characters.updateCharacter }),
  character.remove({ description: "Deletes a character and every link to or from it.", use: characters.deleteCharacter }),
  maintenanceOperation("characters", "Characters", "Character"),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    characters: typeof characterOperations;
  }
}
