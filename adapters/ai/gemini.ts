// Gemini through the official SDK (@google/genai): answers (generateContent, streamed over SSE) and
// embeddings (batchEmbedContents). Provider errors become the port's two errors; the API key travels
// only in the x-goog-api-key header and never appears in an error message.
import { ApiError, GoogleGenAI, type Content, type GenerateContentResponse } from "@google/genai";
import {
  ModelFailed,
  ModelUnavailable,
  type Embedder,
  type EmbeddingPurpose,
  type GenerateRequest,
  type LanguageModel,
  type StreamChunk,
  type TokenUsage,
} from "../../ports/ai.ts";

export interface GeminiOptions {
  apiKey: string;
  /** Text model, e.g. gemini-2.5-flash. */
  model: string;
  /** Embedding model, e.g. gemini-embedding-001. */
  embeddingModel: string;
  /** Replaces https://generativelanguage.googleapis.com (a proxy, or the test fake); no version path. */
  baseUrl?: string | null;
  /** Per request, in milliseconds; a stream counts until its last chunk. */
  timeoutMs?: number;
}

/** Vector length asked of the embedding model: one of its recommended sizes (3072, 1536, 768). */
export const GEMINI_EMBEDDING_DIMENSIONS = 768;
/** batchEmbedContents takes at most 100 requests at a time. */
const BATCH_LIMIT = 100;

const client = (options: GeminiOptions) =>
  new GoogleGenAI({
    apiKey: options.apiKey,
    // No retryOptions: the SDK then makes one attempt, and a 429 reaches the caller with its hint.
    httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), timeout: options.timeoutMs ?? 120_000 },
  });

export class GeminiLanguageModel implements LanguageModel {
  readonly name: string;
  private readonly ai: GoogleGenAI;

  constructor(private readonly options: GeminiOptions) {
    this.name = options.model;
    this.ai = client(options);
  }

  async generate(request: GenerateRequest): Promise<{ text: string; usage: TokenUsage }> {
    try {
      const response = await this.ai.models.generateContent(this.parameters(request, request.signal));
      refusal(response);
      return { text: textOf(response), usage: usageOf(response) };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw translate(error, this.options.apiKey);
    }
  }

  async *stream(request: GenerateRequest): AsyncGenerator<StreamChunk> {
    // Our own controller, so that a consumer leaving the loop early also closes the connection.
    const controller = new AbortController();
    const stop = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) return;
    request.signal?.addEventListener("abort", stop, { once: true });
    let usage: TokenUsage = { promptTokens: 0, outputTokens: 0 };
    try {
      const chunks = await this.ai.models.generateContentStream(this.parameters(request, controller.signal));
      for await (const chunk of chunks) {
        refusal(chunk);
        const delta = textOf(chunk);
        if (chunk.usageMetadata) usage = usageOf(chunk);
        if (delta) yield { delta };
      }
      yield { done: true, usage };
    } catch (error) {
      if (controller.signal.aborted) return; // the caller stopped listening: no more to say
      throw translate(error, this.options.apiKey);
    } finally {
      request.signal?.removeEventListener("abort", stop);
      controller.abort();
    }
  }

  private parameters(request: GenerateRequest, signal: AbortSignal | undefined) {
    const contents: Content[] = request.messages.map((message) => ({
      role: message.role === "assistant" ? "model" : "user",
      parts: [{ text: message.content }],
    }));
    return {
      model: this.options.model,
      contents,
      config: {
        systemInstruction: request.system,
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(signal ? { abortSignal: signal } : {}),
      },
    };
  }
}

export class GeminiEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions = GEMINI_EMBEDDING_DIMENSIONS;
  private readonly ai: GoogleGenAI;

  constructor(private readonly options: GeminiOptions) {
    this.name = options.embeddingModel;
    this.ai = client(options);
  }

  async embed(texts: string[], purpose: EmbeddingPurpose, signal?: AbortSignal): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += BATCH_LIMIT) {
      const batch = texts.slice(start, start + BATCH_LIMIT);
      try {
        // On the Gemini API the SDK sends embedContent as one batchEmbedContents request.
        const response = await this.ai.models.embedContent({
          model: this.options.embeddingModel,
          contents: batch.map((text) => ({ parts: [{ text }] })),
          config: {
            taskType: purpose === "query" ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT",
            outputDimensionality: this.dimensions,
            ...(signal ? { abortSignal: signal } : {}),
          },
        });
        const embeddings = response.embeddings ?? [];
        if (embeddings.length !== batch.length || embeddings.some((e) => e.values?.length !== this.dimensions))
          throw new ModelFailed(`Gemini answered ${embeddings.length} embeddings of the wrong shape for ${batch.length} texts`, null);
        for (const embedding of embeddings) vectors.push(normalize(embedding.values!));
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw translate(error, this.options.apiKey);
      }
    }
    return vectors;
  }
}

/** Unit length, so a dot product is the cosine: gemini-embedding-001 normalizes only at 3072. */
const normalize = (values: number[]): number[] => {
  const length = Math.hypot(...values);
  return length === 0 ? values : values.map((v) => v / length);
};

/** The answer's text, without thought summaries. */
const textOf = (response: GenerateContentResponse): string =>
  (response.candidates?.[0]?.content?.parts ?? []).map((part) => (part.thought ? "" : (part.text ?? ""))).join("");

/** Output counts thinking as well: the provider bills it as output. */
const usageOf = (response: GenerateContentResponse): TokenUsage => ({
  promptTokens: response.usageMetadata?.promptTokenCount ?? 0,
  outputTokens: (response.usageMetadata?.candidatesTokenCount ?? 0) + (response.usageMetadata?.thoughtsTokenCount ?? 0),
});

const refusal = (response: GenerateContentResponse) => {
  const reason = response.promptFeedback?.blockReason;
  if (reason) throw new ModelFailed(`Gemini refused the prompt (${reason})`, null);
};

/** Seconds from a google.protobuf.Duration such as "7s" or "1.5s", rounded up. */
const seconds = (duration: unknown): number | null => {
  const match = typeof duration === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(duration) : null;
  return match ? Math.ceil(Number(match[1])) : null;
};

/** The {"error": {...}} body inside an SDK error message, when there is one. */
const errorBody = (message: string): { code?: number; message?: string; status?: string; details?: { "@type"?: string; retryDelay?: string }[] } | null => {
  const start = message.indexOf("{");
  if (start < 0) return null;
  try {
    const parsed = JSON.parse(message.slice(start));
    return parsed?.error && typeof parsed.error === "object" ? parsed.error : null;
  } catch {
    return null;
  }
};

export function translate(error: unknown, apiKey: string): Error {
  if (error instanceof ModelFailed || error instanceof ModelUnavailable) return error;
  const hide = (text: string) => (apiKey ? text.split(apiKey).join("***") : text);
  if (error instanceof ApiError) {
    const body = errorBody(error.message);
    const said = hide((body?.message ?? "").replace(/\s+/g, " ").trim().slice(0, 300));
    const status = body?.status ?? "";
    if (error.status === 429 || status === "RESOURCE_EXHAUSTED") {
      const retry = body?.details?.find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
      return new ModelUnavailable(`Gemini is rate-limited or out of quota${said ? `: ${said}` : ""}`, seconds(retry?.retryDelay));
    }
    if (error.status === 503) return new ModelUnavailable(`Gemini is unavailable for now${said ? `: ${said}` : ""}`, null);
    return new ModelFailed(`Gemini answered ${error.status}${status ? ` ${status}` : ""}${said ? `: ${said}` : ""}`, error.status);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelFailed(`Gemini could not be reached: ${hide(message).slice(0, 300)}`, null);
}
