// Black-box: Ask streamed as Server-Sent Events (parsed by eventsource-parser, as a client would),
// token budgets that refuse with 429 and Retry-After, and answers written by Gemini (the local fake
// that speaks its wire format): markers renumbered in order of use, provider errors, a client that
// leaves stops the generation.
import { afterAll, describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { forEachBackend, serverWithUsers, type Backend, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";
import { rateLimited, startFakeGemini } from "../support/fake-gemini.ts";
import { scratchDatabase } from "../support/postgres.ts";
import { expectRefused } from "../support/refusals.ts";
import { startServer } from "../support/server.ts";

/** The same backend's server, started with extra environment variables. */
const withEnv = (backend: Backend, env: Record<string, string>): Pick<Backend, "startServer"> => ({
  async startServer() {
    if (backend.name === "pglite") return startServer(env);
    const scratch = await scratchDatabase("server");
    const server = await startServer({ DATABASE_URL: scratch.url, ...env });
    return { ...server, stop: async () => (await server.stop(), await scratch.drop()) };
  },
});

/** POSTs a streamed ask and parses the body with a real SSE parser; each event's data as JSON. */
async function streamAsk(url: string, key: string, body: Record<string, unknown>, options: { stopAfter?: number } = {}) {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/ask`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  const events: any[] = [];
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return { response, events, json: await response.json() };
  const parser = createParser({ onEvent: (event: EventSourceMessage) => events.push(JSON.parse(event.data)) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
      controller.abort();
      break;
    }
  }
  return { response, events, json: null };
}

const markersOf = (answer: string) => [...new Set([...answer.matchAll(/\[S(\d+)\]/g)].map((m) => `S${m[1]}`))];

async function seed(gm: User, admin: Client) {
  const campaign = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body;
  await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog Strongjaw", description: "A goliath barbarian who carries the Titanstone Knuckles and loves a good fight." });
  await gm.api.post("/v1/items", { campaign_id: campaign.id, name: "Craven Edge", description: "A cursed greatsword that whispers to Grog and drinks the blood of those it cuts." });
  await gm.api.post("/v1/locations", { campaign_id: campaign.id, name: "Whitestone", description: "A cold castle town ruled by the Briarwoods until the de Rolos returned." });
  return campaign;
}

await forEachBackend("Ask streamed, offline", (backend) => {
  let server: { url: string };
  let gm: User;
  let campaign: any;

  serverWithUsers(backend, ["GM"], async (fixture) => {
    ({ server, users: { GM: gm } } = fixture);
    campaign = await seed(gm, fixture.admin);
  });

  test("SSE: deltas then one done with the citations; the counters in headers; the same answer as unstreamed", async () => {
    const messages = [{ role: "user", content: "What whispers to Grog?" }];
    const { response, events } = await streamAsk(server.url, gm.key, { campaign_id: campaign.id, messages });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const monthly = Number(response.headers.get("x-monthly-remaining-tokens"));
    const hourly = Number(response.headers.get("x-hourly-remaining-tokens"));
    expect(monthly).toBeGreaterThan(4_990_000);
    expect(hourly).toBeGreaterThan(490_000);
    expect(events.length).toBeGreaterThan(1);
    const done = events.at(-1);
    const deltas = events.slice(0, -1);
    expect(deltas.every((e) => e.type === "delta" && typeof e.content === "string" && e.id === done.id)).toBe(true);
    expect(done).toMatchObject({ type: "done", id: expect.stringMatching(/^ask-/) });
    expect(Object.keys(done).sort()).toEqual(["citations", "hourlyTokensRemaining", "id", "monthlyTokensRemaining", "type"]);
    const answer = deltas.map((e) => e.content).join("");
    expect(answer).toStartWith("Extractive answer (offline: quoted from the campaign's records, not written by a model):");
    expect(answer).toContain("whispers to Grog");
    expect(markersOf(answer)).toEqual(done.citations.map((c: any) => c.citation_id));
    expect(done.citations.find((c: any) => c.title === "Craven Edge")).toMatchObject({ source_type: "item" });
    // The done chunk's counters count the answer too.
    expect(done.monthlyTokensRemaining).toBeLessThan(monthly);
    const plain = await gm.api.post("/v1/ask", { campaign_id: campaign.id, messages });
    expect(plain.body.answer).toBe(answer.trim());
    expect(plain.body.citations).toEqual(done.citations);
  });

  test("a refused streamed ask is a plain JSON error", async () => {
    const { response, json } = await streamAsk(server.url, gm.key, { campaign_id: campaign.id });
    expect({ status: response.status, json }).toEqual({ status: 400, json: { detail: "messages is required" } });
  });
});

await forEachBackend("Ask token budgets", (backend) => {
  let server: { url: string };
  let gm: User;
  let other: User;
  let campaign: any;

  serverWithUsers(withEnv(backend, { ASK_HOURLY_TOKENS: "2500", ASK_MONTHLY_TOKENS: "1000000" }), ["GM", "Other"], async (fixture) => {
    ({ server, users: { GM: gm, Other: other } } = fixture);
    campaign = await seed(gm, fixture.admin);
  });

  test("answers until the hourly budget is used up, then 429 with Retry-After and nothing generated", async () => {
    const messages = [{ role: "user", content: "Tell me about Grog, Craven Edge and Whitestone." }];
    let refused: any = null;
    let answered = 0;
    for (let i = 0; i < 20 && !refused; i++) {
      const reply = await gm.api.post("/v1/ask", { campaign_id: campaign.id, messages });
      if (reply.status === 429) refused = reply;
      else {
        expect(reply.status).toBe(200);
        answered += 1;
      }
    }
    expect(answered).toBeGreaterThan(0);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^(Your hourly Ask token limit \(2,500 tokens\) is used up|This question needs about [\d,]+ tokens and [\d,]+ are left of your hourly Ask limit); it resets at \d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Refused asks cost nothing: the counters stand where the last answer left them.
    const quota = (await gm.api.get("/v1/ask/quota")).body;
    const again = await gm.api.post("/v1/ask", { campaign_id: campaign.id, messages });
    expect(again.status).toBe(429);
    expect((await gm.api.get("/v1/ask/quota")).body).toEqual(quota);
    expect(quota.hourlyTokensRemaining).toBeLessThan(2500);
    expect(quota.monthlyTokensRemaining).toBe(1_000_000 - (2500 - quota.hourlyTokensRemaining));
    // Streamed: the same refusal, as JSON, before any event.
    const streamed = await streamAsk(server.url, gm.key, { campaign_id: campaign.id, messages });
    expect(streamed.response.status).toBe(429);
    expect(streamed.response.headers.get("retry-after")).toMatch(/^\d+$/);
    // Budgets are per user: another member still asks.
    expect((await other.api.get("/v1/ask/quota")).body).toEqual({ monthlyTokensRemaining: 1_000_000, hourlyTokensRemaining: 2500, launchPromoActive: false });
  });
});

describe("Ask answered by Gemini (the local fake)", () => {
  const fake = startFakeGemini();
  afterAll(() => fake.stop());
  let server: { url: string };
  let gm: User;
  let campaign: any;

  serverWithUsers({ startServer: () => startServer({ GEMINI_API_KEY: fake.apiKey, GEMINI_BASE_URL: fake.url }) }, ["GM"], async (fixture) => {
    ({ server, users: { GM: gm } } = fixture);
    campaign = await seed(gm, fixture.admin);
  });

  /** The last request for an answer (the service also embeds questions and, in the background, passages). */
  const lastGenerate = () => fake.requests.filter((r) => /:(generateContent|streamGenerateContent)$/.test(r.path)).at(-1)!;
  /** The passages the last prompt listed, by their prompt marker: "S1" → title. */
  const promptPassages = () => {
    const request = lastGenerate();
    const system: string = (request.body as any).systemInstruction.parts.map((p: any) => p.text).join("");
    return new Map([...system.matchAll(/^\[(S\d+)\] (.+?) \(/gm)].map((m) => [m[1]!, m[2]!]));
  };

  test("the model's markers become S1, S2 in order of use, each citing the passage the prompt listed under it", async () => {
    fake.reset();
    fake.answer({ parts: ["Grog carries Craven Edge [S2], a cursed sword that whispers [S2][S1]. Not [S9]."] });
    const question = "Grog the goliath barbarian carries Craven Edge, the cursed greatsword that whispers: tell me about both.";
    const reply = await gm.api.post("/v1/ask", { campaign_id: campaign.id, messages: [{ role: "user", content: question }] });
    expect(reply.status).toBe(200);
    const listed = promptPassages();
    expect(listed.size).toBeGreaterThanOrEqual(2);
    expect(reply.body.answer).toBe("Grog carries Craven Edge [S1], a cursed sword that whispers [S1][S2]. Not .");
    expect(reply.body.citations.map((c: any) => [c.citation_id, c.title])).toEqual([
      ["S1", listed.get("S2")],
      ["S2", listed.get("S1")],
    ]);
    const request = lastGenerate();
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(request.headers["x-goog-api-key"]).toBe(fake.apiKey);
    expect((request.body as any).contents).toEqual([{ role: "user", parts: [{ text: question }] }]);
  });

  test("streamed: a marker split across chunks arrives whole; the done chunk cites it", async () => {
    fake.reset();
    fake.answer({ parts: ["Whitestone was ruled by ", "the Briarwoods [S", "1]."] });
    const { response, events } = await streamAsk(server.url, gm.key, { campaign_id: campaign.id, messages: [{ role: "user", content: "Who ruled Whitestone?" }] });
    expect(response.status).toBe(200);
    const listed = promptPassages();
    const text = events.filter((e) => e.type === "delta").map((e) => e.content).join("");
    expect(text).toBe("Whitestone was ruled by the Briarwoods [S1].");
    expect(events.some((e) => e.type === "delta" && /\[S$/.test(e.content))).toBe(false);
    expect(events.at(-1).citations.map((c: any) => [c.citation_id, c.title])).toEqual([["S1", listed.get("S1")]]);
    expect(lastGenerate().path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  });

  test("Gemini rate-limited: 503 with its Retry-After, and the prompt's tokens given back", async () => {
    fake.reset();
    const before = (await gm.api.get("/v1/ask/quota")).body;
    fake.fail(rateLimited("7s"), "generateContent");
    const reply = await gm.api.post("/v1/ask", { campaign_id: campaign.id, messages: [{ role: "user", content: "Who is Grog?" }] });
    expect(reply.status).toBe(503);
    expect(reply.body.detail).toStartWith("The language model is unavailable for now: Gemini is rate-limited or out of quota");
    expect(reply.headers.get("retry-after")).toBe("7");
    expect((await gm.api.get("/v1/ask/quota")).body).toEqual(before);
  });

  test("a client that leaves mid-stream stops the generation", async () => {
    fake.reset();
    const [closedBefore, sentBefore] = [fake.streamsClosedEarly, fake.chunksSent];
    fake.answer({ parts: Array.from({ length: 50 }, (_, i) => `word${i} `), delayMs: 100 });
    const { events } = await streamAsk(server.url, gm.key, { campaign_id: campaign.id, messages: [{ role: "user", content: "Tell me everything about Grog." }] }, { stopAfter: 2 });
    expect(events.length).toBe(2);
    await fake.streamsClosed(closedBefore + 1);
    expect(fake.chunksSent - sentBefore).toBeLessThan(50);
  });
});
