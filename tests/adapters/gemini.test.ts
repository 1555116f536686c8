// The Gemini adapter over the real SDK against a local server speaking Gemini's REST wire format.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { GeminiEmbedder, GeminiLanguageModel, type GeminiOptions } from "../../adapters/ai/gemini.ts";
import { ModelFailed, ModelUnavailable, type StreamChunk } from "../../ports/ai.ts";
import { FAKE_GEMINI_KEY, FakeGemini, fakeSlot, googleError, rateLimited } from "../support/fake-gemini.ts";

const fake = new FakeGemini();
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const options: GeminiOptions = { apiKey: FAKE_GEMINI_KEY, model: "gemini-2.5-flash", embeddingModel: "gemini-embedding-001", baseUrl: fake.url };
const model = new GeminiLanguageModel(options);
const embedder = new GeminiEmbedder(options);

const question = {
  system: "Answer from the campaign notes only.",
  messages: [
    { role: "user" as const, content: "Who leads the Harpers?" },
    { role: "assistant" as const, content: "Remallia Haventree." },
    { role: "user" as const, content: "Where does she live?" },
  ],
};

/** The error a promise rejects with (fails the test when it resolves). */
const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
};

const collect = async (chunks: AsyncIterable<StreamChunk>) => {
  const seen: StreamChunk[] = [];
  for await (const chunk of chunks) seen.push(chunk);
  return seen;
};

describe("Gemini language model", () => {
  test("generate sends system, roles user/model and the generation config; returns text and usage", async () => {
    fake.answer({ parts: ["She lives in Waterdeep."] });
    const answer = await model.generate({ ...question, maxOutputTokens: 256, temperature: 0.2 });
    // The fake counts words and punctuation marks: system 6+1, messages 4+1, 2+1, 4+1 = 20; answer 4+1.
    expect(answer).toEqual({ text: "She lives in Waterdeep.", usage: { promptTokens: 20, outputTokens: 5 } });

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(sent.body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "Who leads the Harpers?" }] },
        { role: "model", parts: [{ text: "Remallia Haventree." }] },
        { role: "user", parts: [{ text: "Where does she live?" }] },
      ],
      systemInstruction: { parts: [{ text: "Answer from the campaign notes only." }], role: "user" },
      generationConfig: { maxOutputTokens: 256, temperature: 0.2 },
    });
  });

  test("the key travels only in the x-goog-api-key header", async () => {
    await model.generate(question);
    const sent = fake.requests[0]!;
    expect(sent.headers["x-goog-api-key"]).toBe(FAKE_GEMINI_KEY);
    expect(sent.query).toEqual({});
    const elsewhere = Object.entries(sent.headers).filter(([name, value]) => name !== "x-goog-api-key" && value.includes(FAKE_GEMINI_KEY));
    expect(elsewhere).toEqual([]);
    expect(JSON.stringify(sent.body)).not.toContain(FAKE_GEMINI_KEY);
  });

  test("thinking tokens count as output; thought summaries are not part of the text", async () => {
    fake.answer({ parts: ["Neverwinter."], thoughtsTokenCount: 40 });
    expect(await model.generate(question)).toEqual({ text: "Neverwinter.", usage: { promptTokens: 20, outputTokens: 2 + 40 } });
  });

  test("a refused prompt is a provider error naming the reason", async () => {
    fake.answer({ parts: [], blockReason: "SAFETY" });
    const error = await rejection(model.generate(question));
    expect(error).toBeInstanceOf(ModelFailed);
    expect(error.message).toBe("Gemini refused the prompt (SAFETY)");
  });

  test("stream yields the deltas in order, then done with the usage", async () => {
    fake.answer({ parts: ["She lives ", "in ", "Waterdeep."] });
    const chunks = await collect(model.stream(question));
    expect(chunks).toEqual([{ delta: "She lives " }, { delta: "in " }, { delta: "Waterdeep." }, { done: true, usage: { promptTokens: 20, outputTokens: 5 } }]);
    expect(fake.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(fake.requests[0]!.query).toEqual({ alt: "sse" });
    expect((fake.requests[0]!.body as { contents: unknown[] }).contents).toHaveLength(3);
  });

  test("aborting mid-stream stops reading and closes the connection", async () => {
    const parts = Array.from({ length: 50 }, (_, i) => `word${i} `);
    fake.answer({ parts, delayMs: 20 });
    const before = { closed: fake.streamsClosedEarly, sent: fake.chunksSent };
    const controller = new AbortController();
    const seen: StreamChunk[] = [];
    for await (const chunk of model.stream({ ...question, signal: controller.signal })) {
      seen.push(chunk);
      if (seen.length === 2) controller.abort();
    }
    expect(seen).toEqual([{ delta: "word0 " }, { delta: "word1 " }]);
    await fake.streamsClosed(before.closed + 1);
    // The server stopped writing well short of the 50 chunks it had.
    await Bun.sleep(100);
    expect(fake.chunksSent - before.sent).toBeLessThan(10);
  }, 10_000);

  test("leaving the loop early (a client that disconnects) also closes the connection", async () => {
    fake.answer({ parts: Array.from({ length: 50 }, (_, i) => `w${i} `), delayMs: 20 });
    const before = fake.streamsClosedEarly;
    for await (const chunk of model.stream(question)) {
      expect(chunk).toEqual({ delta: "w0 " });
      break;
    }
    await fake.streamsClosed(before + 1); // times out (fails) if the connection stays open
  }, 10_000);

  test("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await collect(model.stream({ ...question, signal: controller.signal }))).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  test("an error event mid-stream becomes the port's error", async () => {
    fake.answer({ parts: ["She "], errorAfter: rateLimited("12s") });
    const seen: StreamChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const chunk of model.stream(question)) seen.push(chunk);
      })(),
    );
    expect(seen).toEqual([{ delta: "She " }]);
    expect(error).toBeInstanceOf(ModelUnavailable);
    expect((error as ModelUnavailable).retryAfterSeconds).toBe(12);
  });

  test("429 RESOURCE_EXHAUSTED is ModelUnavailable with the RetryInfo delay, for generate and stream", async () => {
    fake.fail(rateLimited("7s"));
    const error = await rejection(model.generate(question));
    expect(error).toBeInstanceOf(ModelUnavailable);
    expect((error as ModelUnavailable).retryAfterSeconds).toBe(7);
    expect(error.message).toStartWith("Gemini is rate-limited or out of quota: You exceeded your current quota");
    expect(fake.requests).toHaveLength(1); // no retries behind the caller's back

    fake.fail(rateLimited("1.5s"));
    const streamed = await rejection(collect(model.stream(question)));
    expect(streamed).toBeInstanceOf(ModelUnavailable);
    expect((streamed as ModelUnavailable).retryAfterSeconds).toBe(2);
  });

  test("a 429 without RetryInfo has no retry hint", async () => {
    fake.fail(googleError(429, "Resource has been exhausted (e.g. check quota)."));
    const error = await rejection(model.generate(question));
    expect(error).toBeInstanceOf(ModelUnavailable);
    expect((error as ModelUnavailable).retryAfterSeconds).toBeNull();
    expect(error.message).toBe("Gemini is rate-limited or out of quota: Resource has been exhausted (e.g. check quota).");
  });

  test("503 UNAVAILABLE (model overloaded) is ModelUnavailable without a hint", async () => {
    fake.fail(googleError(503, "The model is overloaded. Please try again later."));
    const error = await rejection(model.generate(question));
    expect(error).toBeInstanceOf(ModelUnavailable);
    expect(error.message).toBe("Gemini is unavailable for now: The model is overloaded. Please try again later.");
    expect((error as ModelUnavailable).retryAfterSeconds).toBeNull();
  });

  test("500 and 400 are provider errors with the status; the key never appears in the message", async () => {
    // A proxy that echoes the request URL with the key is the worst case: the message is redacted.
    fake.fail(googleError(500, `An internal error has occurred (request ?key=${FAKE_GEMINI_KEY}).`));
    const internal = await rejection(model.generate(question));
    expect(internal).toBeInstanceOf(ModelFailed);
    expect((internal as ModelFailed).status).toBe(500);
    expect(internal.message).toBe("Gemini answered 500 INTERNAL: An internal error has occurred (request ?key=***).");

    const bad = await rejection(model.generate({ ...question, temperature: 5 }));
    expect(bad).toBeInstanceOf(ModelFailed);
    expect((bad as ModelFailed).status).toBe(400);
    expect(bad.message).toBe("Gemini answered 400 INVALID_ARGUMENT: * GenerateContentRequest.generation_config.temperature: must be in [0.0, 2.0]");
    for (const error of [internal, bad]) expect(`${error.message} ${error.stack}`).not.toContain(FAKE_GEMINI_KEY);
  });

  test("a wrong key and an unknown model are provider errors with the API's own words", async () => {
    const wrongKey = new GeminiLanguageModel({ ...options, apiKey: "AIzaWRONG-key-0000000000000000000000000" });
    const refused = await rejection(wrongKey.generate(question));
    expect(refused).toBeInstanceOf(ModelFailed);
    expect(refused.message).toBe("Gemini answered 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.");
    expect(refused.message).not.toContain("AIzaWRONG");

    const unknown = await rejection(new GeminiLanguageModel({ ...options, model: "gemini-0-nope" }).generate(question));
    expect((unknown as ModelFailed).status).toBe(404);
    expect(unknown.message).toStartWith("Gemini answered 404 NOT_FOUND: models/gemini-0-nope is not found for API version v1beta");
  });

  test("an unreachable server is a provider error without the key", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const error = await rejection(new GeminiLanguageModel({ ...options, baseUrl: url }).generate(question));
    expect(error).toBeInstanceOf(ModelFailed);
    expect(error.message).toStartWith("Gemini could not be reached: ");
    expect(error.message).not.toContain(FAKE_GEMINI_KEY);
  });
});

describe("Gemini embedder", () => {
  test("a query is embedded as RETRIEVAL_QUERY at 768 dimensions, normalized", async () => {
    const [vector] = await embedder.embed(["Dragon dragon"], "query");
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(sent.headers["x-goog-api-key"]).toBe(FAKE_GEMINI_KEY);
    expect(sent.body).toEqual({
      requests: [{ content: { parts: [{ text: "Dragon dragon" }] }, taskType: "RETRIEVAL_QUERY", outputDimensionality: 768, model: "models/gemini-embedding-001" }],
    });
    // The fake answers 2 in the slot of "dragon"; normalized, that is 1.
    const expected = new Array(768).fill(0);
    expected[fakeSlot("dragon", 768)] = 1;
    expect(vector).toEqual(expected);
    expect(embedder.dimensions).toBe(768);
  });

  test("documents are RETRIEVAL_DOCUMENT; a batch keeps its order", async () => {
    const vectors = await embedder.embed(["red dragon", "blue", "red dragon"], "document");
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body as { requests: { taskType: string; content: { parts: { text: string }[] } }[] };
    expect(body.requests.map((r) => [r.taskType, r.content.parts[0]!.text])).toEqual([
      ["RETRIEVAL_DOCUMENT", "red dragon"],
      ["RETRIEVAL_DOCUMENT", "blue"],
      ["RETRIEVAL_DOCUMENT", "red dragon"],
    ]);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toEqual(vectors[2]!);
    expect(vectors[1]![fakeSlot("blue", 768)]).toBe(1);
    for (const vector of vectors) expect(Math.abs(Math.hypot(...vector) - 1)).toBeLessThan(1e-12);
  });

  test("more than 100 texts go out as several batches of at most 100", async () => {
    const texts = Array.from({ length: 230 }, (_, i) => `chunk ${i}`);
    const vectors = await embedder.embed(texts, "document");
    expect(fake.requests.map((r) => (r.body as { requests: unknown[] }).requests.length)).toEqual([100, 100, 30]);
    expect(vectors).toHaveLength(230);
    expect(vectors[229]![fakeSlot("229", 768)]).toBeGreaterThan(0);
  });

  test("no texts, no request", async () => {
    expect(await embedder.embed([], "query")).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  test("429 while embedding is ModelUnavailable with the retry delay", async () => {
    fake.fail(rateLimited("30s"));
    const error = await rejection(embedder.embed(["a"], "document"));
    expect(error).toBeInstanceOf(ModelUnavailable);
    expect((error as ModelUnavailable).retryAfterSeconds).toBe(30);
  });
});

describe("the fake speaks the wire format the SDK does not use here", () => {
  test("embedContent answers one embedding", async () => {
    const response = await fetch(`${fake.url}/v1beta/models/gemini-embedding-001:embedContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": FAKE_GEMINI_KEY },
      body: JSON.stringify({ content: { parts: [{ text: "owlbear" }] }, taskType: "RETRIEVAL_QUERY", outputDimensionality: 8 }),
    });
    expect(response.status).toBe(200);
    const expected = new Array(8).fill(0);
    expected[fakeSlot("owlbear", 8)] = 1;
    expect(await response.json()).toEqual({ embedding: { values: expected } });
  });

  test("an assistant role is refused as the API does", async () => {
    const response = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": FAKE_GEMINI_KEY },
      body: JSON.stringify({ contents: [{ role: "assistant", parts: [{ text: "hi" }] }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 400, message: "Please use a valid role: user, model.", status: "INVALID_ARGUMENT" } });
  });
});
