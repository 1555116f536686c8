// Moments: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as moments from "../../application/moments.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { Fields, Id, ImageUrl, Metadata, Nullable, PageOf, PageQuery, Timestamp, WIKILINKS_STRIPPED, WithLinks, WithLinksQuery, Defaulted, campaignOrSessionMissing } from "./common.ts";

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

const momentPath = Type.Object({ moment_id: Id("Moment id") });
export const momentOperations = defineOperations({ publishedAt: 130 }, [
  defineOperation({
    id: "listMoments",
    summary: "List moments",
    description: `Lists moments of a campaign or session, newest first. Key Moment cards are found with categories=key-moment. character_ids, location_ids, faction_ids and item_ids find moments linked to those records. ${WIKILINKS_STRIPPED}`,
    tag: "Moments",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: ({ query }) => (query.campaign_id ? { campaign_id: query.campaign_id } : query.session_id ? { record: "sessions", id: query.session_id, notFound: "Session not found" } : campaignOrSessionMissing) },
    http: { method: "GET", path: "/v1/moments", status: 200 },
    mcp: { name: "list_moments", title: "List moments", readOnly: true },
    input: { query: MomentListQuery },
    output: PageOf(Type.Union([Moment, MomentCard]), "MomentPage"),
    run: ({ deps, caller, access }, { query }) => moments.listMoments(deps, caller, access, query),
  }),
  defineOperation({
    id: "createMoment",
    summary: "Create a moment",
    description: `Creates a moment (kind defaults to legacy). Presentation (style, customTheme, variant) is kept in metadata. ${WIKILINKS_STRIPPED}`,
    tag: "Moments",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ body }) => ({ campaign_id: body.campaign_id }) },
    http: { method: "POST", path: "/v1/moments", status: 201 },
    mcp: { name: "create_moment", title: "Create a moment", readOnly: false, destructive: false, idempotent: false },
    input: { body: MomentCreate },
    output: Moment,
    run: ({ deps, caller, access }, { body }) => {
      const { campaign_id, ...fields } = body;
      return moments.createMoment(deps, caller, access, fields);
    },
  }),
  defineOperation({
    id: "getMoment",
    summary: "Get a moment",
    description: `Reads one moment. ${WIKILINKS_STRIPPED}`,
    tag: "Moments",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: ({ path }) => ({ record: "moments", id: path.moment_id, notFound: "Moment not found" }) },
    http: { method: "GET", path: "/v1/moments/{moment_id}", status: 200 },
    mcp: { name: "get_moment", title: "Get a moment", readOnly: true },
    input: { path: momentPath, query: WithLinksQuery },
    output: Moment,
    run: ({ deps, caller, access }, { path, query }) => moments.getMoment(deps, caller, access, path.moment_id, query.with_links ?? false),
  }),
  defineOperation({
    id: "updateMoment",
    summary: "Update a moment",
    description: `Partial update; metadata is merged key by key (a key set to null is removed). ${WIKILINKS_STRIPPED}`,
    tag: "Moments",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ path }) => ({ record: "moments", id: path.moment_id, notFound: "Moment not found" }) },
    http: { method: "PATCH", path: "/v1/moments/{moment_id}", status: 200 },
    mcp: { name: "update_moment", title: "Update a moment", readOnly: false, destructive: false, idempotent: true },
    input: { path: momentPath, body: MomentPatch },
    output: Moment,
    run: ({ deps, caller, access }, { path, body }) => moments.updateMoment(deps, caller, access, path.moment_id, body),
  }),
  defineOperation({
    id: "deleteMoment",
    summary: "Delete a moment",
    description: "Deletes a moment and its links.",
    tag: "Moments",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: ({ path }) => ({ record: "moments", id: path.moment_id, notFound: "Moment not found" }) },
    http: { method: "DELETE", path: "/v1/moments/{moment_id}", status: 204 },
    mcp: { name: "delete_moment", title: "Delete a moment", readOnly: false, destructive: true, idempotent: true },
    input: { path: momentPath },
    run: ({ deps, caller, access }, { path }) => moments.deleteMoment(deps, caller, access, path.moment_id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    moments: typeof momentOperations;
  }
}
