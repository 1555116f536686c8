import type { LanguageModel } from "../ports/ai.ts";
import type { BlobStore } from "../ports/blobs.ts";
import type { CardRenderer, HandoutWriter, ImageGenerator, ImageModerator, ImageProcessor } from "../ports/media.ts";
import type { RecordStore } from "../ports/records.ts";
import type { Retriever } from "../ports/retrieval.ts";
import type { WebhookSettings } from "./webhooks.ts";
import type { Clock, Digests, IdGenerator, KeyMinter, Logger, TaskSignal } from "../ports/system.ts";
import type { TokenCounter } from "../ports/tokens.ts";

/** What Ask answers with (its passages come from `retriever`): words from the model (offline when null), budgets per user. */
export interface AskDeps {
  /** Null: the offline, extractive answerer. */
  model: LanguageModel | null;
  tokens: TokenCounter;
  /** Tokens (prompt + answer) each user may use per calendar month and per hour, UTC. */
  limits: { monthly: number; hourly: number };
}

export interface Deps {
  records: RecordStore;
  clock: Clock;
  ids: IdGenerator;
  keys: KeyMinter;
  log: Logger;
  tasks: TaskSignal;
  writer: HandoutWriter;
  cards: CardRenderer;
  /** Ask's passages: ranked, permission-filtered retrieval over the campaign. */
  retriever: Retriever;
  ask: AskDeps;
  digests: Digests;
  webhooks: WebhookSettings;
  images: ImageServices;
}

/** Where managed images live, how they are checked, and the limits (configurable, see infra/config.ts). */
export interface ImageServices {
  store: BlobStore;
  processor: ImageProcessor;
  moderator: ImageModerator;
  /** Null when no image model is configured: generation answers 503. */
  generator: ImageGenerator | null;
  settings: ImageSettings;
}

export interface ImageSettings {
  maxBytes: number;
  maxPixels: number;
  uploadExpirySeconds: number;
  /** Generations per owner account per calendar month. */
  monthlyGenerations: number;
}

export const nowIso = (deps: Pick<Deps, "clock">): string => deps.clock.now().toISOString();
