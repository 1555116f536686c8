// Speakers (the voices of transcripts): wire schemas and operations.
import { Type } from "@sinclair/typebox";
import { createSpeaker } from "../../application/speakers.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { CampaignIdPath, Id, Nullable, Timestamp } from "./common.ts";

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

export const speakerOperations = defineOperations({ publishedAt: 80 }, [
  defineOperation({
    id: "internalCreateSpeaker",
    summary: "Add a campaign speaker",
    description: "First-party route (needs a key with the product_write scope); not part of the public interface. A speaker is a voice in transcripts and the player a character can be linked to.",
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/{campaign_id}/speakers", status: 201 },
    input: { path: CampaignIdPath, body: SpeakerCreate },
    output: Speaker,
    run: ({ deps, caller }, { path, body }) => createSpeaker(deps, caller, path.campaign_id, body),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    speakers: typeof speakerOperations;
  }
}
