// Composition root: the only module that knows every adapter.
import { join } from "node:path";
import type { SqlDatabase } from "../adapters/sql/database.ts";
import { sqlRecordStore } from "../adapters/sql/records.ts";
import { sqlRetriever } from "../adapters/sql/retrieval.ts";
import { apiKeyMinter, jsonLogger, sha256Digests, systemClock, uuidV7 } from "../adapters/system/system.ts";
import { extractiveHandoutWriter } from "../adapters/ai/extractive.ts";
import { o200kTokenCounter } from "../adapters/ai/tokenizer.ts";
import { sharpCardRenderer } from "../adapters/imaging/cards.ts";
import { httpWebhookSender } from "../adapters/webhooks/http.ts";
import type { WebhookSettings } from "../application/webhooks.ts";
import type { Embedder, GenerateRequest, LanguageModel } from "../ports/ai.ts";
import type { Deps, ImageServices } from "../application/deps.ts";
import { LocalBlobStore } from "../adapters/blobs/local.ts";
import { S3BlobStore } from "../adapters/blobs/s3.ts";
import { noModeration, sharpImageProcessor } from "../adapters/imaging/sanitize.ts";
import { GeminiImageGenerator } from "../adapters/ai/gemini-images.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Logger } from "../ports/system.ts";
import { parseConfig, type Config } from "./config.ts";

export { loadMigrations, MIGRATIONS_DIR } from "./schema.ts";

export { openDatabase, openMigratedMemoryPglite, type OpenedDatabase } from "./database.ts";

type GeminiModule = typeof import("../adapters/ai/gemini.ts");
type GeminiOptions = { apiKey: string; model: string; embeddingModel: string; baseUrl?: string };

/** A Gemini adapter made on first use: the SDK is imported then, so start-up and memory stay lean without a key or questions. */
function lazyGeminiAdapter<T>(gemini: Config["gemini"] & { apiKey: string }, make: (module: GeminiModule, options: GeminiOptions) => T): () => Promise<T> {
  let adapter: Promise<T> | null = null;
  const options = { apiKey: gemini.apiKey, model: gemini.model, embeddingModel: gemini.embeddingModel, baseUrl: gemini.baseUrl };
  return () => (adapter ??= import("../adapters/ai/gemini.ts").then((module) => make(module, options)));
}

function lazyGemini(gemini: Config["gemini"] & { apiKey: string }): LanguageModel {
  const load = lazyGeminiAdapter(gemini, ({ GeminiLanguageModel }, options) => new GeminiLanguageModel(options));
  return {
    name: gemini.model,
    generate: async (request: GenerateRequest) => (await load()).generate(request),
    async *stream(request: GenerateRequest) {
      yield* (await load()).stream(request);
    },
  };
}

function lazyGeminiEmbedder(gemini: Config["gemini"] & { apiKey: string }): Embedder {
  const load = lazyGeminiAdapter(gemini, ({ GeminiEmbedder }, options) => new GeminiEmbedder(options));
  return {
    name: gemini.embeddingModel,
    dimensions: 768, // GEMINI_EMBEDDING_DIMENSIONS, without loading the SDK to read it
    embed: async (texts, purpose, signal) => (await load()).embed(texts, purpose, signal),
  };
}

/** What buildDeps reads of the configuration (tests pass only what they change). */
export type DepsConfig = Partial<Pick<Config, "gemini" | "ask" | "webhooks">>;

/** The configured blob store (S3 when S3_BUCKET is set, else DATA_DIR/media), sharp, and the image limits. */
export function imageServices(config: Pick<Config, "images" | "dataDir" | "publicBaseUrl" | "gemini">): ImageServices {
  const { s3, model, sweepSeconds, ...settings } = config.images;
  const store = s3
    ? new S3BlobStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, publicUrl: s3.publicUrl })
    : new LocalBlobStore({ dir: join(config.dataDir, "media"), publicBaseUrl: config.publicBaseUrl });
  const generator = config.gemini.apiKey ? new GeminiImageGenerator({ apiKey: config.gemini.apiKey, model, baseUrl: config.gemini.baseUrl }) : null;
  return { store, processor: sharpImageProcessor, moderator: noModeration, generator, settings };
}

/** For callers that configure no images (some tests): a local store in a fresh temporary folder. */
const scratchImageServices = (): ImageServices => {
  const config = parseConfig({ PORT: "8000" });
  return imageServices({ ...config, dataDir: mkdtempSync(join(tmpdir(), "cms-media-")) });
};

/** `tasks.wake` does nothing until a worker is attached (the CLI runs none). */
/** Webhook delivery as configured (WEBHOOK_*): the lease outlasts the longest delivery. */
export function webhookSettings(config: Pick<Config, "webhooks">): WebhookSettings {
  const { allowPrivateTargets, timeoutMs, maxFailures, retryBaseMs } = config.webhooks;
  return { sender: httpWebhookSender({ allowPrivateTargets, timeoutMs }), maxFailures, retryBaseMs, leaseMs: timeoutMs + 5_000 };
}

export function buildDeps(db: SqlDatabase, log: Logger, images: ImageServices = scratchImageServices(), config: DepsConfig = {}): Deps {
  const gemini = config.gemini?.apiKey ? config.gemini : null;
  return {
    records: sqlRecordStore(db),
    clock: systemClock,
    ids: uuidV7,
    keys: apiKeyMinter,
    log,
    tasks: { wake: () => {} },
    writer: extractiveHandoutWriter,
    cards: sharpCardRenderer,
    images,
    // With a key, passages get Gemini vectors in the background (infra/worker.ts) and questions are
    // ranked by words and vectors together.
    retriever: sqlRetriever(db, { embedder: gemini ? lazyGeminiEmbedder({ ...gemini, apiKey: gemini.apiKey! }) : null }),
    ask: {
      model: gemini ? lazyGemini({ ...gemini, apiKey: gemini.apiKey! }) : null,
      tokens: o200kTokenCounter,
      limits: { monthly: config.ask?.monthlyTokens ?? 5_000_000, hourly: config.ask?.hourlyTokens ?? 500_000 },
    },
    digests: sha256Digests,
    webhooks: webhookSettings(config.webhooks ? { webhooks: config.webhooks } : parseConfig({})),
  };
}

export const loggerFor = (config: Pick<Config, "logLevel">) => jsonLogger(config.logLevel);
