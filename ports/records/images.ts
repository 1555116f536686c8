// What the application needs from a record store: managed images and the generation quota.
import type { ImageEntityType } from "../../domain/images.ts";
import type { ReadOptions } from "../records.ts";

export type { ImageEntityType };

export interface ImageRecord {
  object_key: string;
  campaign_id: string;
  entity_type: ImageEntityType;
  entity_id: string;
  origin: "upload" | "generated";
  status: "pending" | "ready";
  content_type: string;
  url: string;
  attached: boolean;
  created_by: string | null;
  expires_at: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface ImageRepository {
  insert(image: ImageRecord): Promise<void>;
  get(objectKey: string, options?: ReadOptions): Promise<ImageRecord | null>;
  /** Marks an upload ready (completed) with its final type and whether it was attached. */
  complete(objectKey: string, fields: { content_type: string; attached: boolean; completed_at: string }): Promise<void>;
  setAttached(objectKey: string, attached: boolean): Promise<void>;
  delete(objectKey: string): Promise<void>;
  /**
   * Rows whose object should go: uploads never completed by `now`, and images whose campaign or
   * record no longer exists (oldest first, at most `limit`).
   */
  orphans(now: string, limit: number): Promise<ImageRecord[]>;
  /** Whether the record exists in the campaign (a campaign is its own record). */
  entityExists(campaignId: string, type: ImageEntityType, id: string): Promise<boolean>;
  /** The record's `image` (null when none; undefined when there is no such record). */
  imageOf(campaignId: string, type: ImageEntityType, id: string, options?: ReadOptions): Promise<string | null | undefined>;
  /** Sets (or clears) the record's `image`. */
  setImage(campaignId: string, type: ImageEntityType, id: string, url: string | null, at: string): Promise<void>;
  /** Clears `image` on every record of the campaign that shows this URL; how many did. */
  detachUrl(campaignId: string, url: string, at: string): Promise<number>;
  /** The record's name and description, for a generation prompt (null when there is no such record). */
  describe(campaignId: string, type: ImageEntityType, id: string): Promise<{ name: string; description: string | null; extra: string | null } | null>;
  /** Generations used by an owner account in the cycle starting at `cycleStart`. */
  generationsUsed(ownerId: string, cycleStart: string): Promise<number>;
  /** Counts one generation unless `limit` are used already; false when refused. */
  takeGeneration(ownerId: string, cycleStart: string, limit: number): Promise<boolean>;
  /** Gives one back (the generation failed). */
  returnGeneration(ownerId: string, cycleStart: string): Promise<void>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    images: ImageRepository;
  }
}
