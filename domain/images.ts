// Images: which records take one, how uploads are named and keyed, and the billing cycle.

export const IMAGE_ENTITY_TYPES = ["campaign", "character", "faction", "location", "item", "moment", "session"] as const;
export type ImageEntityType = (typeof IMAGE_ENTITY_TYPES)[number];

/** Kinds generation takes (`world` is the campaign itself, as the spec names it). */
export const GENERATION_TYPES = ["character", "faction", "location", "item", "world"] as const;
export type GenerationType = (typeof GENERATION_TYPES)[number];

/** Formats `complete` accepts, by the name the decoder reports. */
export const IMAGE_FORMATS = { jpeg: "image/jpeg", png: "image/png", webp: "image/webp", gif: "image/gif", avif: "image/avif" } as const;
export type ImageFormat = keyof typeof IMAGE_FORMATS;

export const ENTITY_LABEL: Record<ImageEntityType, string> = {
  campaign: "Campaign",
  character: "Character",
  faction: "Faction",
  location: "Location",
  item: "Item",
  moment: "Moment",
  session: "Session",
};

/** Why a client's file name cannot be used, or null. Only its last segment ever reaches a key. */
export function fileNameProblem(name: string): string | null {
  if (!name.trim()) return "file_name must not be empty";
  if (name.length > 255) return "file_name must be at most 255 characters";
  if (/[\u0000-\u001f\u007f]/.test(name)) return "file_name must not contain control characters";
  if (name.includes("/") || name.includes("\\")) return "file_name must be a plain file name, without '/' or '\\'";
  if (name === "." || name === ".." || name.includes("..")) return "file_name must not contain '..'";
  return null;
}

/** The file name as it appears in a key: letters, digits, '.', '-', '_' only, at most 80 characters. */
export function keySafeFileName(name: string): string {
  const cleaned = name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "")
    .slice(-80)
    .replace(/^[.-]+/, "");
  return cleaned || "image";
}

const SEGMENT = /^[A-Za-z0-9_-]{1,200}$/;

/** Keys of a campaign start with this; every check that a key belongs to a campaign uses it. */
export const campaignKeyPrefix = (campaignId: string): string =>
  `campaigns/${SEGMENT.test(campaignId) ? campaignId : encodeURIComponent(campaignId).replace(/[^A-Za-z0-9_-]/g, "_")}/`;

export const objectKeyFor = (campaignId: string, entityType: ImageEntityType, uniqueId: string, fileName: string): string =>
  `${campaignKeyPrefix(campaignId)}${entityType}/${uniqueId}-${keySafeFileName(fileName)}`;

/** The billing cycle `at` falls in: the calendar month, UTC. */
export function billingCycle(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

/** "image/PNG; q=1" → "image/png". */
export const mediaTypeOf = (contentType: string): string => contentType.split(";")[0]!.trim().toLowerCase();

export const isImageContentType = (contentType: string): boolean => /^image\/[a-z0-9][a-z0-9.+-]*$/.test(mediaTypeOf(contentType));

/** Why a picture over the size limit is refused, worded the same by every path that checks it. */
export const imageTooLarge = (size: number, maxBytes: number): string =>
  `The image is ${size.toLocaleString("en-US")} bytes; at most ${maxBytes.toLocaleString("en-US")} are accepted`;

/** Why a picture the moderator refused is refused. */
export const refusedByModeration = (reason: string): string => `The image was refused by moderation: ${reason}`;
