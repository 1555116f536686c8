// Moments: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as moments from "../../application/moments.ts";
import { defineOperations } from "./operation.ts";
import { byBodyCampaign, byCampaignOrSession, plainRows } from "./crud.ts";
import { Fields, Id, ImageUrl, Metadata, Nullable, PageOf, PageQuery, Timestamp, WIKILINKS_STRIPPED, WithLinks, WithLinksQuery, Defaulted } from "./common.ts";

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
  with_links: Defaulted(WithLinks),
  ...PageQuery,
});

const moment = plainRows({ name: "Moment", tag: "Moments", record: "moments", readScope: "sessions_read" });
export const momentOperations = defineOperations({ publishedAt: 130 }, [
  moment.list({
    description: `Lists moments of a campaign or session, newest first. Key Moment cards are found with categories=key-moment. character_ids, location_ids, faction_ids and item_ids find moments linked to those records. ${WIKILINKS_STRIPPED}`,
    campaign: byCampaignOrSession,
    input: { query: MomentListQuery },
    output: PageOf(Type.Union([Moment, MomentCard]), "MomentPage"),
    run: ({ deps, caller, access }, { query }) => moments.listMoments(deps, caller, access, query),
  }),
  moment.create({
    description: `Creates a moment (kind defaults to legacy). Presentation (style, customTheme, variant) is kept in metadata. ${WIKILINKS_STRIPPED}`,
    campaign: byBodyCampaign,
    input: { body: MomentCreate },
    output: Moment,
    run: ({ deps, caller, access }, { body: { campaign_id, ...fields } }) => moments.createMoment(deps, caller, access, fields),
  }),
  moment.get({ description: `Reads one moment. ${WIKILINKS_STRIPPED}`, withLinks: true, output: Moment, use: moments.getMoment }),
  moment.update({ description: `Partial update; metadata is merged key by key (a key set to null is removed). ${WIKILINKS_STRIPPED}`, body: MomentPatch, output: Moment, use: moments.updateMoment }),
  moment.remove({ description: "Deletes a moment and its links.", use: moments.deleteMoment }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    moments: typeof momentOperations;
  }
}
