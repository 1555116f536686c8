// Ask's retrieval index: the first-party backfill (`bun run cms ask reindex`).
import { Type } from "@sinclair/typebox";
import { reindexAsk } from "../../application/retrieval.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { FIRST_PARTY, Id, Nullable } from "./common.ts";

export const retrievalOperations = defineOperations({ publishedAt: 170 }, [
  defineOperation({
    id: "internalAskReindex",
    summary: "Rebuild Ask's retrieval index",
    description: `${FIRST_PARTY} Rebuilds the passages Ask retrieves from (every kind, journal chunks, transcript windows) for one campaign, or for every campaign when none is named. Writes keep the index current on their own; this is for data written before it existed.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/ask/reindex", status: 200 },
    input: { body: Type.Object({ campaign_id: Type.Optional(Id("Campaign id; omitted: every campaign")) }) },
    output: Type.Object({ campaign_id: Nullable(Type.String()), passages: Type.Integer({ minimum: 0 }) }, { title: "AskReindexResult" }),
    run: ({ deps, caller }, { body }) => reindexAsk(deps, caller, body.campaign_id ?? null),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    retrieval: typeof retrievalOperations;
  }
}
