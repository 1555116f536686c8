// Images: usage, the two-step upload (init, PUT to the returned URL, complete) and delete. The PUT
// of the bytes and the public GET are byte routes of the blob store, outside this table: MCP never
// carries image bytes, only URLs.
import { Type } from "@sinclair/typebox";
import * as images from "../../application/images.ts";
import { GENERATION_TYPES, IMAGE_ENTITY_TYPES } from "../../domain/images.ts";
import { MAX_IMAGE_URL_LENGTH } from "../../domain/text.ts";
import { CampaignIdPath, Defaulted, Id, literals, Timestamp } from "./common.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { byPathCampaign, byQueryCampaign, byBodyCampaign } from "./crud.ts";

const EntityType = literals(IMAGE_ENTITY_TYPES);

export const ImageUsage = Type.Object(
  {
    used: Type.Integer({ minimum: 0, description: "Generations this billing cycle" }),
    limit: Type.Integer({ minimum: 0, description: "Generations allowed per billing cycle" }),
    can_access: Type.Boolean({ description: "Whether generate can be called now (a model is configured and the quota is not used up)" }),
    tier: Type.String({ description: "self-hosted" }),
    billing_cycle_start: Timestamp,
    billing_cycle_end: Timestamp,
  },
  { title: "ImageUsage" },
);

export const ImageUploadInit = Type.Object(
  {
    entity_type: EntityType,
    entity_id: Id("The record the image is for (for campaign, the campaign id)"),
    file_name: Type.String({ minLength: 1, maxLength: 255, description: "The file's name (a plain name: no '/', '\\' or '..')" }),
    content_type: Type.String({ minLength: 1, maxLength: 100, description: "image/jpeg, image/png, image/webp, image/gif or image/avif; the PUT must send the same Content-Type" }),
  },
  { title: "ImageUploadInit" },
);

export const ImageUploadGrant = Type.Object(
  {
    object_key: Type.String({ description: "Pass to complete" }),
    upload_url: Type.String({ description: "PUT the bytes here with the same Content-Type, before it expires" }),
    public_url: Type.String({ description: "Where the image is served once completed" }),
    expires_in_seconds: Type.Integer({ minimum: 1 }),
  },
  { title: "ImageUploadGrant" },
);

export const ImageUploadComplete = Type.Object(
  {
    object_key: Type.String({ minLength: 1, maxLength: 600, description: "The object_key init returned" }),
    entity_type: EntityType,
    entity_id: Id("The same record as in init"),
    attach: Defaulted(Type.Boolean({ default: true, description: "Set the record's image to the uploaded image (default true)" })),
  },
  { title: "ImageUploadComplete" },
);

export const ImageUploadResult = Type.Object(
  { url: Type.String({ description: "Public URL of the checked, cleaned image" }), attached: Type.Boolean() },
  { title: "ImageUploadResult" },
);

export const ImageDelete = Type.Object(
  {
    entity_type: Type.Optional(EntityType),
    entity_id: Type.Optional(Id("With entity_type: detach this record's image and delete it")),
    image_url: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_IMAGE_URL_LENGTH, description: "Or: delete this managed image of the campaign (and detach it wherever it is shown)" })),
  },
  { title: "ImageDelete" },
);

export const ImageGenerate = Type.Object(
  {
    campaign_id: Id("Campaign id"),
    type: literals(GENERATION_TYPES),
    entity_id: Type.Optional(Id("The record to draw (required unless type is world)")),
    user_input: Type.Optional(Type.String({ maxLength: 2000, description: "Guidance for the picture (style, mood, details)" })),
  },
  { title: "ImageGenerate" },
);

export const GeneratedImage = Type.Object({ url: Type.String({ description: "Public URL of the new image; set it as the record's image to attach it" }) }, { title: "GeneratedImage" });

export const ImageRemoved = Type.Object({ removed: Type.Boolean() }, { title: "ImageRemoved" });

export const imageOperations = defineOperations({ publishedAt: 145 }, [
  defineOperation({
    id: "getImageUsage",
    summary: "Image generation usage",
    description: "How many images the campaign owner's account has generated this billing cycle (a calendar month, UTC), the limit, and whether generation is available.",
    tag: "Images",
    access: { auth: "campaign", level: "read", scope: "worlds_read", campaign: byQueryCampaign },
    http: { method: "GET", path: "/v1/images/usage", status: 200 },
    mcp: { name: "get_image_usage", title: "Get image generation usage", readOnly: true },
    input: { query: Type.Object({ campaign_id: Id("Campaign id") }) },
    output: ImageUsage,
    run: ({ deps, access }) => images.imageUsage(deps, access),
  }),
  defineOperation({
    id: "generateImage",
    summary: "Generate an image",
    description:
      "Draws an image of a character, faction, location, item or the campaign itself (world) with the configured Gemini image model, from the record and user_input. Needs manage access and counts against the campaign owner's monthly quota (403 when used up; 503 when no model is configured). The image is not attached: set the record's image to the returned url.",
    tag: "Images",
    access: { auth: "campaign", level: "manage", scope: "agent_write", campaign: byBodyCampaign },
    http: { method: "POST", path: "/v1/images/generate", status: 200 },
    input: { body: ImageGenerate },
    output: GeneratedImage,
    run: ({ deps, caller, access }, { body }) => images.generateImage(deps, caller, access, body),
  }),
  defineOperation({
    id: "initImageUpload",
    summary: "Start an image upload",
    description:
      "Step 1 of an upload: reserves an object key and returns a presigned upload_url. Step 2 (outside this API's JSON calls): PUT the image bytes to upload_url with the same Content-Type, before expires_in_seconds. Step 3: call complete. Needs write access.",
    tag: "Images",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/images/init", status: 200 },
    mcp: { name: "init_image_upload", title: "Start an image upload", readOnly: false, destructive: false, idempotent: false },
    input: { path: CampaignIdPath, body: ImageUploadInit },
    output: ImageUploadGrant,
    run: ({ deps, caller, access }, { body }) => images.initUpload(deps, caller, access, body),
  }),
  defineOperation({
    id: "completeImageUpload",
    summary: "Complete an image upload",
    description:
      "Step 3 of an upload: checks that the uploaded bytes are a JPEG, PNG, WebP, GIF or AVIF image within the size limits, re-encodes it without metadata (no EXIF or GPS), and attaches it to the record unless attach is false. Anything else is refused and deleted. Repeating it with the same object_key answers the same.",
    tag: "Images",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/images/complete", status: 200 },
    mcp: { name: "complete_image_upload", title: "Complete an image upload", readOnly: false, destructive: false, idempotent: true },
    input: { path: CampaignIdPath, body: ImageUploadComplete },
    output: ImageUploadResult,
    run: ({ deps, access }, { body }) => images.completeUpload(deps, access, body),
  }),
  defineOperation({
    id: "deleteEntityImage",
    summary: "Delete an image",
    description:
      "Either entity_type with entity_id (clears the record's image and deletes it when the service holds it) or image_url (deletes that image of the campaign and clears it wherever it is shown). Answers removed: false when there was nothing to remove.",
    tag: "Images",
    access: { auth: "campaign", level: "write", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}/images", status: 200 },
    mcp: { name: "delete_entity_image", title: "Delete an image", readOnly: false, destructive: true, idempotent: true },
    input: { path: CampaignIdPath, body: ImageDelete },
    output: ImageRemoved,
    run: ({ deps, access }, { body }) => images.deleteImage(deps, access, body),
  }),
]);

declare module "./index.ts" {
  interface PublishedOperations {
    images: typeof imageOperations;
  }
}
