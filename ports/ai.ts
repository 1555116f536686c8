// What Ask needs from a language model and an embedder. Adapters: Gemini (a paid remote service)
// and offline ones; the application sees only these shapes and the two errors below.

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface GenerateRequest {
  /** Instructions kept apart from the conversation (the model's system prompt). */
  system: string;
  /** The conversation, oldest first; the last message is normally the user's question. */
  messages: ChatMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  /** Aborting stops the request; a stream ends without a `done` chunk. */
  signal?: AbortSignal;
}

/** Tokens as the provider counted them; quotas add prompt and answer tokens. */
export interface TokenUsage {
  promptTokens: number;
  outputTokens: number;
}

export type StreamChunk = { delta: string } | { done: true; usage: TokenUsage };

export interface LanguageModel {
  /** Names the method in stored answers: "extractive" offline, the model name otherwise. */
  readonly name: string;
  generate(request: GenerateRequest): Promise<{ text: string; usage: TokenUsage }>;
  /**
   * Deltas in order, then one `done` with the usage. Reading stops the upstream request when the
   * signal aborts or the consumer leaves the loop early (a client that disconnects).
   */
  stream(request: GenerateRequest): AsyncIterable<StreamChunk>;
}

export type EmbeddingPurpose = "query" | "document";

export interface Embedder {
  /** Names the model the vectors come from; vectors of different models are never compared. */
  readonly name: string;
  /** Length of every vector returned. */
  readonly dimensions: number;
  /** One vector per text, in order. Queries and documents are embedded differently by some models. */
  embed(texts: string[], purpose: EmbeddingPurpose, signal?: AbortSignal): Promise<number[][]>;
}

/** The provider refuses for now (rate limit or quota); worth trying again later. */
export class ModelUnavailable extends Error {
  override readonly name = "ModelUnavailable";
  constructor(
    message: string,
    /** The provider's hint, whole seconds rounded up; null when it gave none. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

/** Any other failure of the provider (bad request, server error, unreadable answer). Never holds a key. */
export class ModelFailed extends Error {
  override readonly name = "ModelFailed";
  constructor(
    message: string,
    /** The provider's HTTP status, when there was one. */
    readonly status: number | null,
  ) {
    super(message);
  }
}
