// Beats: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as beats from "../../application/beats.ts";
import { defineOperations } from "./operation.ts";
import { byBodyCampaign, bySessionOrCampaign, plainRows } from "./crud.ts";
import { Id, literals, Metadata, Nullable, PageOf, PageQuery, Timestamp, WIKILINKS_STRIPPED, WithLinks, WithLinksQuery, Defaulted } from "./common.ts";

const BeatType = literals(["major", "minor", "step"] as const);

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
  include_hierarchy: Defaulted(Type.Boolean({ default: false, description: "With session_id: a nested, unpaginated array of hierarchy nodes" })),
  with_links: Defaulted(WithLinks),
  ...PageQuery,
});

const beat = plainRows({ name: "Beat", tag: "Beats", record: "beats", readScope: "sessions_read" });
export const beatOperations = defineOperations({ publishedAt: 120 }, [
  beat.list({
    description: "With campaign_id: the campaign's beats ordered by index (paginated). With session_id: the beats linked to that session (paginated), or with include_hierarchy=true a nested, unpaginated tree of hierarchy nodes with children and linkedEntities.",
    campaign: bySessionOrCampaign,
    input: { query: BeatListQuery },
    output: Type.Union([PageOf(Beat, "BeatPage"), Type.Array(BeatNode)]),
    run: ({ deps, caller, access }, { query }) => beats.listBeats(deps, caller, access, query),
  }),
  beat.create({
    description: `Creates a narrative beat (major, minor or step). Minor beats and steps may hang under a parent of the same campaign; a beat can never be its own ancestor. ${WIKILINKS_STRIPPED}`,
    campaign: byBodyCampaign,
    input: { body: BeatCreate },
    output: Beat,
    run: ({ deps, caller, access }, { body: { campaign_id, ...fields } }) => beats.createBeat(deps, caller, access, fields),
  }),
  beat.get({ description: `Reads one beat. ${WIKILINKS_STRIPPED}`, withLinks: true, output: Beat, use: beats.getBeat }),
  beat.update({ description: `JSON merge patch (application/merge-patch+json): sent fields change, null clears, omitted stay. ${WIKILINKS_STRIPPED}`, body: BeatPatch, output: Beat, use: beats.updateBeat }),
  beat.remove({ description: "Deletes a beat: its children stay, without a parent, and the links made from it go.", use: beats.deleteBeat }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    beats: typeof beatOperations;
  }
}
