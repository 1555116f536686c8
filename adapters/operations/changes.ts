// The change feed: wire schemas and operation (not an MCP tool: a client follows it over REST or webhooks).
import { Type } from "@sinclair/typebox";
import * as changes from "../../application/changes.ts";
import { CampaignIdPath, Defaulted, Id, Nullable, Timestamp } from "./common.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";

export const CHANGE_KINDS = [
  "campaign", "member", "speaker", "character", "faction", "location", "item", "link", "session", "transcript",
  "cast_analysis", "handout", "beat", "moment", "hero_award", "quote", "spotlight", "quest", "journal_folder", "journal_entry",
] as const;

export const ChangeItem = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: "Position in the campaign's feed; increases by one per change" }),
    kind: Type.String({ description: `Kind of record: ${CHANGE_KINDS.join(", ")}` }),
    id: Id("The record's id (a member's user id; a session's id for its transcript, cast analysis and handout)"),
    op: Type.Union([Type.Literal("create"), Type.Literal("update"), Type.Literal("delete")]),
    at: Timestamp,
    actor_id: Nullable(Id("The user whose request made the change; null for the service's own work")),
  },
  { title: "Change" },
);

export const ChangePage = Type.Object(
  {
    data: Type.Array(ChangeItem),
    next_cursor: Type.String({ description: "Pass as since to read on; stays valid while the changes after it are retained" }),
  },
  { title: "ChangePage" },
);

export const ChangeQuery = Type.Object({
  since: Type.Optional(Type.String({ pattern: "^[0-9]{1,15}$", description: "A next_cursor from an earlier page; absent: from the oldest change retained", "x-error": "since must be a cursor from next_cursor (digits)" })),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Changes per page (1–1000)" })),
});

export const changeOperations = defineOperations({ publishedAt: 180 }, [
  defineOperation({
    id: "listChanges",
    summary: "Follow a campaign's changes",
    description:
      "Every create, update and delete of the campaign's records, oldest first, as far as you may read them (a private journal entry's changes are shown only to those it is shared with). Written in the same transaction as the change itself: following next_cursor misses nothing and repeats nothing. Changes are kept CHANGE_RETENTION_DAYS (30 by default); an older cursor answers 410.",
    tag: "Changes",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/changes", status: 200 },
    input: { path: CampaignIdPath, query: ChangeQuery },
    output: ChangePage,
    run: ({ deps, caller, access }, { query }) => changes.listChanges(deps, caller.userId, access, query),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    changes: typeof changeOperations;
  }
}
