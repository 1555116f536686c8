// A local stand-in for the Gemini API (generativelanguage.googleapis.com, v1beta), written from the
// public REST reference: the same paths, headers, JSON bodies, SSE framing and error bodies. Gemini is
// a paid remote service, so tests talk to this instead; everything else in the adapter runs for real.
//
//   POST /v1beta/models/{model}:generateContent                → GenerateContentResponse
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  → "data: {GenerateContentResponse}\n\n"…
//   POST /v1beta/models/{model}:embedContent                   → {"embedding": {"values": [...]}}
//   POST /v1beta/models/{model}:batchEmbedContents             → {"embeddings": [{"values": [...]}, ...]}
//   POST /v1beta/models/{image model}:generateContent          → parts with {"inlineData": {"mimeType", "data": base64}}
//
// The key travels in the x-goog-api-key header (or ?key=, which the API also accepts). Errors are
// {"error": {"code", "message", "status", "details"?}}, the way Google APIs send them.

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. /v1beta/models/gemini-2.5-flash:generateContent. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface ScriptedAnswer {
  /** The model's text, one SSE chunk per entry when streamed (joined for generateContent). */
  parts: string[];
  finishReason?: string;
  /** Wait before each streamed chunk (and before a generateContent answer). */
  delayMs?: number;
  thoughtsTokenCount?: number;
  /** A refused prompt: no candidates, promptFeedback.blockReason instead. */
  blockReason?: string;
  /** Streams only: after the parts, an error event instead of the end (the API does this mid-stream). */
  errorAfter?: ErrorAnswer;
  /** Image models: the images to answer with (inline data), instead of the default drawing. */
  images?: { mimeType: string; bytes: Uint8Array }[];
}

export interface ErrorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeGeminiOptions {
  apiKey?: string;
  /** Models that exist; others answer 404 NOT_FOUND as the API does. */
  textModels?: string[];
  embeddingModels?: string[];
  /** Models that answer generateContent with an image (inline data), as gemini-2.5-flash-image does. */
  imageModels?: string[];
  /**
   * Words that mean the same to the fake embedding model ("stole" and "pinched"): each group's words
   * land in its first word's slot, so a paraphrase sharing no word with a passage still points its way.
   */
  synonyms?: string[][];
}

export const FAKE_GEMINI_KEY = "AIzaFAKE-test-key-0123456789abcdefghijk";

// google.rpc.Status codes by HTTP status, as the API reports them.
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** An error body in Google's shape. */
export const googleError = (code: number, message: string, details?: unknown[]): ErrorAnswer => ({
  status: code,
  body: { error: { code, message, status: STATUS_NAMES[code] ?? "UNKNOWN", ...(details ? { details } : {}) } },
});

/** The 429 the API sends when a per-minute quota runs out, with its RetryInfo hint. */
export const rateLimited = (retryDelay = "7s"): ErrorAnswer =>
  googleError(
    429,
    "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
    [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }],
      },
      { "@type": "type.googleapis.com/google.rpc.Help", links: [{ description: "Learn more about Gemini API quotas", url: "https://ai.google.dev/gemini-api/docs/rate-limits" }] },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
    ],
  );

const INVALID_KEY = googleError(400, "API key not valid. Please pass a valid API key.", [
  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } },
]);

/** The fake's own token count: words and punctuation marks. Tests compute it independently. */
export const fakeTokens = (text: string): number => text.match(/[\p{L}\p{N}']+|[^\s\p{L}\p{N}']/gu)?.length ?? 0;

const fnv1a = (word: string): number => {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(word)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
};

/** Which of `dimensions` slots a word lands in; exported so tests can predict vectors. */
export const fakeSlot = (word: string, dimensions: number): number => fnv1a(word) % dimensions;

/**
 * Deterministic "embedding": a bag of lower-cased words hashed into `dimensions` slots, counts left
 * unnormalized (gemini-embedding-001 below 3072 dimensions is not unit length either). Texts sharing
 * words point the same way, so retrieval tests can rely on it.
 */
export function fakeEmbedding(text: string, dimensions: number, synonyms: ReadonlyMap<string, string> = new Map()): number[] {
  const values = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []) values[fakeSlot(synonyms.get(word) ?? word, dimensions)]! += 1;
  return values;
}

const DEFAULT_DIMENSIONS = 3072; // gemini-embedding-001's full size
const MAX_BATCH = 100;
const VALID_TASK_TYPES = new Set([
  "TASK_TYPE_UNSPECIFIED",
  "RETRIEVAL_QUERY",
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "CLASSIFICATION",
  "CLUSTERING",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CODE_RETRIEVAL_QUERY",
]);

type Json = Record<string, any>;

class BadRequest extends Error {}

export class FakeGemini {
  readonly requests: RecordedRequest[] = [];
  /** Streams whose client went away before the last chunk was sent. */
  streamsClosedEarly = 0;
  /** Chunks written to streams, across all of them. */
  chunksSent = 0;
  private readonly server: ReturnType<typeof Bun.serve>;
  private readonly answers: ScriptedAnswer[] = [];
  private readonly failures: (ErrorAnswer & { method?: string })[] = [];
  private closedWaiters: (() => void)[] = [];
  readonly apiKey: string;
  private readonly textModels: Set<string>;
  private readonly embeddingModels: Set<string>;
  private readonly imageModels: Set<string>;
  private readonly synonyms = new Map<string, string>();

  constructor(options: FakeGeminiOptions = {}) {
    this.apiKey = options.apiKey ?? FAKE_GEMINI_KEY;
    this.textModels = new Set(options.textModels ?? ["gemini-2.5-flash", "gemini-2.5-pro"]);
    this.embeddingModels = new Set(options.embeddingModels ?? ["gemini-embedding-001", "text-embedding-004"]);
    this.imageModels = new Set(options.imageModels ?? ["gemini-2.5-flash-image"]);
    for (const group of options.synonyms ?? []) for (const word of group) this.synonyms.set(word.toLowerCase(), group[0]!.toLowerCase());
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 30, fetch: (request) => this.handle(request) });
  }

  /** Base URL to hand the SDK (it appends /v1beta/...). */
  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** The next generate/stream call answers this (in order); otherwise the fake echoes the question. */
  answer(answer: ScriptedAnswer): this {
    this.answers.push(answer);
    return this;
  }

  /**
   * The next request fails with this: of any kind, or only the next one of `method` (say
   * "generateContent" while the service also embeds in the background).
   */
  fail(failure: ErrorAnswer, method?: "generateContent" | "streamGenerateContent" | "embedContent" | "batchEmbedContents"): this {
    this.failures.push({ ...failure, method });
    return this;
  }

  /** Forgets recorded requests and anything scripted, between tests. */
  reset(): void {
    this.requests.length = 0;
    this.answers.length = 0;
    this.failures.length = 0;
  }

  /** Resolves once `count` streams in all have lost their client before the end. */
  async streamsClosed(count: number): Promise<void> {
    while (this.streamsClosedEarly < count) await new Promise<void>((resolve) => this.closedWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    await this.server.stop(true);
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const raw = await request.text();
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {}
    this.requests.push({ method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body });

    const called = /:([A-Za-z]+)$/.exec(url.pathname)?.[1];
    const at = this.failures.findIndex((f) => !f.method || f.method === called);
    const [failure] = at < 0 ? [] : this.failures.splice(at, 1);
    if (failure) return json(failure.status, failure.body, failure.headers);

    const key = request.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
    if (key !== this.apiKey) return errorResponse(INVALID_KEY);

    const match = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/.exec(url.pathname);
    if (!match) return errorResponse(googleError(404, `Method not found: ${url.pathname}`));
    if (request.method !== "POST") return errorResponse(googleError(405, `Method ${request.method} not allowed`));
    const [, model, method] = match as unknown as [string, string, string];
    const embedding = method === "embedContent" || method === "batchEmbedContents";
    const imaging = this.imageModels.has(model) && method === "generateContent";
    if (!imaging && !(embedding ? this.embeddingModels : this.textModels).has(model))
      return errorResponse(googleError(404, `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`));
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return errorResponse(googleError(400, `Invalid JSON payload received. Unexpected token.`));

    try {
      switch (method) {
        case "generateContent":
          return imaging ? await this.draw(model, body as Json) : await this.generate(model, body as Json);
        case "streamGenerateContent":
          if (url.searchParams.get("alt") !== "sse") return errorResponse(googleError(400, "This fake speaks only alt=sse streams."));
          return this.stream(model, body as Json, request.signal);
        case "embedContent":
          return json(200, { embedding: this.embedOne(model, body as Json, false) });
        default: {
          const requests = (body as Json).requests;
          if (!Array.isArray(requests) || requests.length === 0) throw new BadRequest("* BatchEmbedContentsRequest.requests: must not be empty");
          if (requests.length > MAX_BATCH) throw new BadRequest(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch`);
          return json(200, { embeddings: requests.map((r: Json) => this.embedOne(model, r, true)) });
        }
      }
    } catch (error) {
      if (error instanceof BadRequest) return errorResponse(googleError(400, error.message));
      throw error;
    }
  }

  /** Checks a GenerateContentRequest the way the API does and returns its prompt text. */
  private promptOf(body: Json): { prompt: string; question: string } {
    const contents = body.contents;
    if (!Array.isArray(contents) || contents.length === 0) throw new BadRequest("* GenerateContentRequest.contents: contents is not specified");
    const texts: string[] = [];
    const textOf = (content: Json, where: string) => {
      if (!Array.isArray(content?.parts) || content.parts.length === 0) throw new BadRequest(`* ${where}.parts: contents.parts must not be empty.`);
      return content.parts.map((part: Json) => (typeof part.text === "string" ? part.text : "")).join("");
    };
    if (body.systemInstruction !== undefined) texts.push(textOf(body.systemInstruction, "GenerateContentRequest.system_instruction"));
    let question = "";
    contents.forEach((content: Json, i: number) => {
      if (content.role !== undefined && content.role !== "user" && content.role !== "model")
        throw new BadRequest("Please use a valid role: user, model.");
      question = textOf(content, `GenerateContentRequest.contents[${i}]`);
      texts.push(question);
    });
    const config = body.generationConfig ?? {};
    if (config.temperature !== undefined && (typeof config.temperature !== "number" || config.temperature < 0 || config.temperature > 2))
      throw new BadRequest("* GenerateContentRequest.generation_config.temperature: must be in [0.0, 2.0]");
    if (config.maxOutputTokens !== undefined && (!Number.isInteger(config.maxOutputTokens) || config.maxOutputTokens < 1))
      throw new BadRequest("* GenerateContentRequest.generation_config.max_output_tokens: must be positive");
    return { prompt: texts.join("\n"), question };
  }

  private nextAnswer(question: string): ScriptedAnswer {
    return this.answers.shift() ?? { parts: ["You asked: ", question] };
  }

  private responseBody(model: string, parts: string[], usage: Json, finishReason?: string): Json {
    return {
      candidates: [{ content: { parts: parts.map((text) => ({ text })), role: "model" }, ...(finishReason ? { finishReason } : {}), index: 0 }],
      usageMetadata: usage,
      modelVersion: model,
      responseId: "fake-response-1",
    };
  }

  private usage(prompt: string, answer: ScriptedAnswer, done: boolean): Json {
    const promptTokenCount = fakeTokens(prompt);
    if (!done) return { promptTokenCount, totalTokenCount: promptTokenCount };
    const candidatesTokenCount = fakeTokens(answer.parts.join(""));
    const thoughts = answer.thoughtsTokenCount ?? 0;
    return {
      promptTokenCount,
      candidatesTokenCount,
      totalTokenCount: promptTokenCount + candidatesTokenCount + thoughts,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokenCount }],
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    };
  }

  private async generate(model: string, body: Json): Promise<Response> {
    const { prompt, question } = this.promptOf(body);
    const answer = this.nextAnswer(question);
    if (answer.delayMs) await Bun.sleep(answer.delayMs);
    if (answer.blockReason)
      return json(200, { promptFeedback: { blockReason: answer.blockReason }, usageMetadata: this.usage(prompt, { parts: [] }, true), modelVersion: model });
    return json(200, this.responseBody(model, [answer.parts.join("")], this.usage(prompt, answer, true), answer.finishReason ?? "STOP"));
  }

  /**
   * An image model's answer: a line of text and the image as inline data. The API wants IMAGE among
   * generationConfig.responseModalities for these models; without it, it refuses the request.
   */
  private async draw(model: string, body: Json): Promise<Response> {
    const { prompt, question } = this.promptOf(body);
    const modalities: unknown = body.generationConfig?.responseModalities;
    if (!Array.isArray(modalities) || !modalities.includes("IMAGE"))
      throw new BadRequest("* GenerateContentRequest.generation_config.response_modalities: this model only supports IMAGE output together with TEXT");
    const answer = this.answers.shift() ?? { parts: ["Here is the picture."] };
    if (answer.delayMs) await Bun.sleep(answer.delayMs);
    if (answer.blockReason) return json(200, { promptFeedback: { blockReason: answer.blockReason }, usageMetadata: this.usage(prompt, { parts: [] }, true), modelVersion: model });
    const images = answer.images ?? [{ mimeType: "image/png", bytes: await fakeDrawing(question) }];
    const parts: Json[] = [...answer.parts.map((text) => ({ text })), ...images.map((image) => ({ inlineData: { mimeType: image.mimeType, data: Buffer.from(image.bytes).toString("base64") } }))];
    return json(200, {
      candidates: [{ content: { parts, role: "model" }, finishReason: answer.finishReason ?? "STOP", index: 0 }],
      usageMetadata: { ...this.usage(prompt, answer, true), candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }] },
      modelVersion: model,
      responseId: "fake-image-1",
    });
  }

  private stream(model: string, body: Json, signal: AbortSignal): Response {
    const { prompt, question } = this.promptOf(body);
    const answer = this.nextAnswer(question);
    const encoder = new TextEncoder();
    let index = 0;
    let finished = false;
    const closedEarly = () => {
      if (finished) return;
      finished = true;
      this.streamsClosedEarly += 1;
      for (const resolve of this.closedWaiters.splice(0)) resolve();
    };
    signal.addEventListener("abort", closedEarly);
    const stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (answer.delayMs) await Bun.sleep(answer.delayMs);
        if (finished) return;
        if (answer.errorAfter && index === answer.parts.length) {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(answer.errorAfter.body)}\n\n`));
          finished = true;
          controller.close();
          return;
        }
        const last = index === answer.parts.length - 1 && !answer.errorAfter;
        const chunk = answer.blockReason
          ? { promptFeedback: { blockReason: answer.blockReason }, usageMetadata: this.usage(prompt, { parts: [] }, true), modelVersion: model }
          : this.responseBody(model, [answer.parts[index] ?? ""], this.usage(prompt, answer, last), last ? (answer.finishReason ?? "STOP") : undefined);
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
        this.chunksSent += 1;
        index += 1;
        if (last || answer.blockReason) {
          finished = true;
          controller.close();
        }
      },
      cancel: closedEarly,
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "x-content-type-options": "nosniff" } });
  }

  /** One EmbedContentRequest: {content: {parts: [{text}]}, taskType?, title?, outputDimensionality?, model?}. */
  private embedOne(model: string, request: Json, inBatch: boolean): { values: number[] } {
    if (inBatch && request.model !== `models/${model}`)
      throw new BadRequest(`* BatchEmbedContentsRequest.requests[].model: the model in each request must match the batch's, models/${model}`);
    const parts = request.content?.parts;
    if (!Array.isArray(parts) || parts.length === 0) throw new BadRequest("* EmbedContentRequest.content: content is not specified");
    if (request.taskType !== undefined && !VALID_TASK_TYPES.has(request.taskType))
      throw new BadRequest(`Invalid value at 'requests[0].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${request.taskType}"`);
    if (request.title !== undefined && request.taskType !== "RETRIEVAL_DOCUMENT")
      throw new BadRequest("* EmbedContentRequest.title: title is only supported for RETRIEVAL_DOCUMENT task type");
    const dimensions = request.outputDimensionality ?? DEFAULT_DIMENSIONS;
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > DEFAULT_DIMENSIONS)
      throw new BadRequest(`* EmbedContentRequest.output_dimensionality: must be from 1 to ${DEFAULT_DIMENSIONS}`);
    const text = parts.map((part: Json) => (typeof part.text === "string" ? part.text : "")).join(" ");
    return { values: fakeEmbedding(text, dimensions, this.synonyms) };
  }
}

/** A 64 × 64 PNG whose colour depends on the prompt (so tests can tell drawings apart). */
async function fakeDrawing(prompt: string): Promise<Uint8Array> {
  const hue = fnv1a(prompt) & 0xffffff;
  const { default: sharp } = await import("sharp");
  return new Uint8Array(await sharp({ create: { width: 64, height: 64, channels: 3, background: `#${hue.toString(16).padStart(6, "0")}` } }).png().toBuffer());
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=UTF-8", ...headers } });

const errorResponse = (failure: ErrorAnswer) => json(failure.status, failure.body, failure.headers);

/** Starts a fake for one test file; stop it in afterAll. */
export const startFakeGemini = (options?: FakeGeminiOptions) => new FakeGemini(options);
