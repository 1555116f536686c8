// Images: presigned uploads checked and cleaned before they are attached, deletes, the sweep of
// objects nobody can reach any more, and generation within a monthly quota.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import {
  billingCycle,
  campaignKeyPrefix,
  ENTITY_LABEL,
  fileNameProblem,
  imageTooLarge,
  isImageContentType,
  mediaTypeOf,
  objectKeyFor,
  refusedByModeration,
  type GenerationType,
  type ImageEntityType,
} from "../domain/images.ts";
import { ModelUnavailable } from "../ports/ai.ts";
import type { CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

export interface UploadGrantView {
  object_key: string;
  upload_url: string;
  public_url: string;
  expires_in_seconds: number;
}

const notFoundIn = (type: ImageEntityType) => fail("not_found", `${ENTITY_LABEL[type]} not found in this campaign`);
const invalid = (field: string, msg: string, input: unknown) => fail("invalid", msg, [{ type: "value_error", loc: ["body", field], msg, input }]);

async function entityCheck(deps: Deps, access: CampaignAccess, type: ImageEntityType, id: string): Promise<Result<true>> {
  const campaignId = access.campaign.id;
  if (type === "campaign" ? id !== campaignId : !(await deps.records.images.entityExists(campaignId, type, id))) return notFoundIn(type);
  return ok(true);
}

export async function initUpload(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  input: { entity_type: ImageEntityType; entity_id: string; file_name: string; content_type: string },
): Promise<Result<UploadGrantView>> {
  const nameProblem = fileNameProblem(input.file_name);
  if (nameProblem) return invalid("file_name", nameProblem, input.file_name);
  if (!isImageContentType(input.content_type)) return invalid("content_type", "content_type must be an image type (image/jpeg, image/png, image/webp, image/gif or image/avif)", input.content_type);
  const found = await entityCheck(deps, access, input.entity_type, input.entity_id);
  if (!found.ok) return found;
  const { store, settings } = deps.images;
  const key = objectKeyFor(access.campaign.id, input.entity_type, deps.ids.next(), input.file_name);
  const contentType = mediaTypeOf(input.content_type);
  const now = deps.clock.now();
  const grant = await store.presignUpload(key, { contentType, expiresInSeconds: settings.uploadExpirySeconds, maxBytes: settings.maxBytes });
  const url = store.publicUrl(key);
  await deps.records.images.insert({
    object_key: key,
    campaign_id: access.campaign.id,
    entity_type: input.entity_type,
    entity_id: input.entity_id,
    origin: "upload",
    status: "pending",
    content_type: contentType,
    url,
    attached: false,
    created_by: caller.userId,
    // A little after the URL dies, so an upload finishing at the last second can still be completed.
    expires_at: new Date(now.getTime() + (settings.uploadExpirySeconds + 300) * 1000).toISOString(),
    created_at: now.toISOString(),
    completed_at: null,
  });
  return ok({ object_key: key, upload_url: grant.url, public_url: url, expires_in_seconds: grant.expiresInSeconds });
}

/**
 * At most this many uploads are read back and re-encoded at once (measured: two 20 MB photos at once
 * took the server from 130 to 540 MB): each holds its bytes and a
 * decode in memory, so eight 20 MB uploads completing together would otherwise hold them all.
 */
const PROCESSING_SLOTS = 1;
let processing = 0;
const queued: (() => void)[] = [];
export async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  while (processing >= PROCESSING_SLOTS) await new Promise<void>((resolve) => queued.push(resolve));
  processing += 1;
  try {
    return await work();
  } finally {
    processing -= 1;
    queued.shift()?.();
  }
}

/** Attaches `url` to the record, deleting the managed image it replaces (no object is left unreachable). */
async function attach(deps: Deps, campaignId: string, type: ImageEntityType, id: string, url: string, objectKey: string): Promise<Result<true>> {
  const replaced = await deps.records.withTransaction(async (tx) => {
    const current = await tx.images.imageOf(campaignId, type, id, { lock: true });
    if (current === undefined) return notFoundIn(type);
    await tx.images.setImage(campaignId, type, id, url, nowIso(deps));
    await tx.images.setAttached(objectKey, true);
    return ok(current && current !== url ? current : null);
  });
  if (!replaced.ok) return replaced;
  if (replaced.value) await removeManaged(deps, campaignId, replaced.value, { detach: false });
  return ok(true);
}

/** Refuses an upload: the object and its row go, nothing is attached. */
async function refuse(deps: Deps, objectKey: string, detail: string): Promise<Result<never>> {
  await deps.images.store.delete(objectKey);
  await deps.records.images.delete(objectKey);
  return fail("invalid", detail, [{ type: "image_invalid", loc: ["body", "object_key"], msg: detail, input: objectKey }]);
}

export async function completeUpload(
  deps: Deps,
  access: CampaignAccess,
  input: { object_key: string; entity_type: ImageEntityType; entity_id: string; attach: boolean },
): Promise<Result<{ url: string; attached: boolean }>> {
  const campaignId = access.campaign.id;
  const row = input.object_key.startsWith(campaignKeyPrefix(campaignId)) ? await deps.records.images.get(input.object_key) : null;
  if (!row || row.campaign_id !== campaignId || row.origin !== "upload") return fail("not_found", "Upload not found in this campaign: use the object_key init returned");
  if (row.entity_type !== input.entity_type || row.entity_id !== input.entity_id)
    return invalid("entity_id", `This upload was started for ${row.entity_type} ${row.entity_id}: complete it with the same entity_type and entity_id`, input.entity_id);
  const found = await entityCheck(deps, access, input.entity_type, input.entity_id);
  if (!found.ok) return found;
  const { store, processor, moderator, settings } = deps.images;
  if (row.status === "ready") {
    // Completed before: the same answer, attaching now if asked this time.
    if (input.attach && !row.attached) {
      const attached = await attach(deps, campaignId, row.entity_type, row.entity_id, row.url, row.object_key);
      if (!attached.ok) return attached;
    }
    return ok({ url: row.url, attached: row.attached || input.attach });
  }
  const info = await store.head(row.object_key);
  if (!info) {
    if (row.expires_at && Date.parse(row.expires_at) < deps.clock.now().getTime()) {
      await deps.records.images.delete(row.object_key);
      return fail("not_found", "This upload expired before its bytes arrived: call init again");
    }
    return fail("conflict", "Nothing has been uploaded for this object_key yet: PUT the image bytes to upload_url first");
  }
  if (info.size > settings.maxBytes)
    return refuse(deps, row.object_key, imageTooLarge(info.size, settings.maxBytes));
  const checked = await oneAtATime(async (): Promise<Result<string>> => {
    // Worked on as files (the local store's own, or a download): sharp reads the upload from disk
    // and writes the re-encoding to disk, so a 20 MB photo is never a 20 MB buffer here.
    const copy = await store.localCopy(row.object_key, settings.maxBytes);
    if (!copy) return refuse(deps, row.object_key, "The uploaded object changed while it was read: upload it again");
    const output = store.scratchFile();
    try {
      const cleaned = await processor.cleanFile(copy.path, output.path, { maxBytes: settings.maxBytes, maxPixels: settings.maxPixels });
      if (!cleaned.ok) return refuse(deps, row.object_key, cleaned.problem);
      const verdict = await moderator.review(cleaned.image);
      if (!verdict.allowed) return refuse(deps, row.object_key, refusedByModeration(verdict.reason));
      await store.putFile(row.object_key, cleaned.image.path, cleaned.image.contentType);
      return ok(cleaned.image.contentType);
    } finally {
      await output.discard();
      await copy.release();
    }
  });
  if (!checked.ok) return checked;
  const completed = await deps.records.withTransaction(async (tx) => {
    const locked = await tx.images.get(row.object_key, { lock: true });
    if (!locked) return fail("not_found", "Upload not found in this campaign: use the object_key init returned");
    if (locked.status === "pending") await tx.images.complete(row.object_key, { content_type: checked.value, attached: false, completed_at: nowIso(deps) });
    return ok(locked);
  });
  if (!completed.ok) return completed;
  if (input.attach) {
    const attached = await attach(deps, campaignId, row.entity_type, row.entity_id, row.url, row.object_key);
    if (!attached.ok) return attached;
  }
  return ok({ url: row.url, attached: input.attach || completed.value.attached });
}

/**
 * Deletes a managed image of the campaign: its object first (so a failure leaves a row, never an
 * unreachable object), then its row; `detach` also clears it from every record that shows it.
 * False when there was nothing to delete.
 */
async function removeManaged(deps: Deps, campaignId: string, url: string, { detach }: { detach: boolean }): Promise<boolean> {
  const key = deps.images.store.keyOfUrl(url);
  if (!key || !key.startsWith(campaignKeyPrefix(campaignId))) return false;
  const row = await deps.records.images.get(key);
  const existed = row !== null || (await deps.images.store.head(key)) !== null;
  await deps.images.store.delete(key);
  await deps.records.images.delete(key);
  if (detach) await deps.records.images.detachUrl(campaignId, url, nowIso(deps));
  return existed;
}

export async function deleteImage(
  deps: Deps,
  access: CampaignAccess,
  input: { entity_type?: ImageEntityType; entity_id?: string; image_url?: string },
): Promise<Result<{ removed: boolean }>> {
  const campaignId = access.campaign.id;
  if (input.image_url !== undefined) {
    if (input.entity_type !== undefined || input.entity_id !== undefined) return invalid("image_url", "Give either image_url or entity_type with entity_id, not both", input.image_url);
    const key = deps.images.store.keyOfUrl(input.image_url);
    if (!key) return invalid("image_url", "image_url is not an image this service manages: only URLs returned by complete or generate can be deleted", input.image_url);
    if (!key.startsWith(campaignKeyPrefix(campaignId))) return fail("not_found", "Image not found in this campaign");
    return ok({ removed: await removeManaged(deps, campaignId, input.image_url, { detach: true }) });
  }
  if (input.entity_type === undefined || input.entity_id === undefined) {
    const missing = input.entity_type === undefined ? "entity_type" : "entity_id";
    return fail("invalid", `${missing} is required (or give image_url)`, [{ type: "missing", loc: ["body", missing], msg: `${missing} is required (or give image_url)`, input: null }]);
  }
  const type = input.entity_type;
  const id = input.entity_id;
  if (type === "campaign" && id !== campaignId) return notFoundIn(type);
  const current = await deps.records.withTransaction(async (tx) => {
    const image = await tx.images.imageOf(campaignId, type, id, { lock: true });
    if (image === undefined) return notFoundIn(type);
    if (image !== null) await tx.images.setImage(campaignId, type, id, null, nowIso(deps));
    return ok(image);
  });
  if (!current.ok) return current;
  if (current.value === null) return ok({ removed: false });
  await removeManaged(deps, campaignId, current.value, { detach: true });
  return ok({ removed: true });
}

export interface ImageUsage {
  used: number;
  limit: number;
  can_access: boolean;
  tier: string;
  billing_cycle_start: string;
  billing_cycle_end: string;
}

/** The campaign owner's account carries the quota (DESIGN: per owner account, per month). */
export async function imageUsage(deps: Deps, access: CampaignAccess): Promise<Result<ImageUsage>> {
  const cycle = billingCycle(deps.clock.now());
  const limit = deps.images.settings.monthlyGenerations;
  const used = await deps.records.images.generationsUsed(access.campaign.owner_id, cycle.start.toISOString());
  return ok({
    used,
    limit,
    can_access: deps.images.generator !== null && used < limit,
    tier: "self-hosted",
    billing_cycle_start: cycle.start.toISOString(),
    billing_cycle_end: cycle.end.toISOString(),
  });
}

/** Deletes the objects of uploads never completed and of images whose record or campaign is gone. */
export async function sweepImages(deps: Deps, limit = 100): Promise<number> {
  const rows = await deps.records.images.orphans(nowIso(deps), limit);
  for (const row of rows) {
    await deps.images.store.delete(row.object_key);
    await deps.records.images.delete(row.object_key);
  }
  if (rows.length) deps.log.info("images swept", { count: rows.length });
  return rows.length;
}

/** What the model is asked: the record's own words and the caller's guidance; never other records. */
export function imagePrompt(kind: string, record: { name: string; description: string | null; extra: string | null }, campaign: { title: string; system: string | null }, userInput: string | undefined): string {
  const lines = [
    `Draw one illustration for a tabletop role-playing campaign, "${campaign.title}"${campaign.system ? ` (${campaign.system})` : ""}.`,
    `Subject: the ${kind} ${record.name}${record.extra ? ` (${record.extra})` : ""}.`,
  ];
  if (record.description) lines.push(`About it: ${record.description.slice(0, 2000)}`);
  if (userInput) lines.push(`Guidance from the game master: ${userInput}`);
  lines.push("No text, captions, watermarks or borders in the image.");
  return lines.join("\n");
}

export const GENERATION_DISABLED =
  "Image generation is not enabled on this server: set GEMINI_API_KEY (and, to choose the model, GEMINI_IMAGE_MODEL) and restart it";

/**
 * Draws an image of a record (or of the campaign, `world`), counted against the campaign owner's
 * monthly quota, and stores it without attaching it (the caller sets the record's image to it).
 */
export async function generateImage(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  input: { type: GenerationType; entity_id?: string; user_input?: string },
): Promise<Result<{ url: string }>> {
  const { generator, processor, store, settings } = deps.images;
  const campaign = access.campaign;
  if (input.type !== "world" && !input.entity_id)
    return fail("invalid", "entity_id is required unless type is world", [{ type: "missing", loc: ["body", "entity_id"], msg: "entity_id is required unless type is world", input: null }]);
  const entityType: ImageEntityType = input.type === "world" ? "campaign" : input.type;
  const entityId = input.type === "world" ? campaign.id : input.entity_id!;
  if (input.type === "world" && input.entity_id && input.entity_id !== campaign.id) return notFoundIn("campaign");
  const record = await deps.records.images.describe(campaign.id, entityType, entityId);
  if (!record) return notFoundIn(entityType);
  if (!generator) return fail("unavailable", GENERATION_DISABLED);
  const cycle = billingCycle(deps.clock.now());
  const cycleStart = cycle.start.toISOString();
  if (!(await deps.records.images.takeGeneration(campaign.owner_id, cycleStart, settings.monthlyGenerations)))
    return fail("forbidden", `The image generation quota is used up: ${settings.monthlyGenerations} per month for this campaign's owner, renewed on ${cycle.end.toISOString()}`);
  const prompt = imagePrompt(input.type === "world" ? "world" : input.type, record, { title: campaign.title, system: campaign.system ?? null }, input.user_input);
  let drawn: { bytes: Uint8Array; contentType: string };
  try {
    drawn = await generator.generate(prompt);
  } catch (error) {
    // Nothing was made: the generation is not counted.
    await deps.records.images.returnGeneration(campaign.owner_id, cycleStart);
    deps.log.warn("image generation failed", { model: generator.model, error: (error as Error).message });
    if (error instanceof ModelUnavailable) return fail("unavailable", `The image model is unavailable for now; try again later (${error.message})`);
    return fail("unavailable", `The image model did not produce an image: ${(error as Error).message}`);
  }
  const cleaned = await processor.clean(drawn.bytes, { maxBytes: settings.maxBytes, maxPixels: settings.maxPixels });
  if (!cleaned.ok) {
    await deps.records.images.returnGeneration(campaign.owner_id, cycleStart);
    return fail("unavailable", `The image model answered with an unusable image: ${cleaned.problem}`);
  }
  const extension = cleaned.image.format === "jpeg" ? "jpg" : cleaned.image.format;
  const key = objectKeyFor(campaign.id, entityType, deps.ids.next(), `generated.${extension}`);
  const now = nowIso(deps);
  await store.put(key, cleaned.image.bytes, cleaned.image.contentType);
  const url = store.publicUrl(key);
  await deps.records.images.insert({
    object_key: key,
    campaign_id: campaign.id,
    entity_type: entityType,
    entity_id: entityId,
    origin: "generated",
    status: "ready",
    content_type: cleaned.image.contentType,
    url,
    attached: false,
    created_by: caller.userId,
    expires_at: null,
    created_at: now,
    completed_at: now,
  });
  return ok({ url });
}

export type { GenerationType };
