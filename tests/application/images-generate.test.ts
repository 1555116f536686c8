// Image generation: offline an honest 503, with a key a Gemini image model (the fake, speaking the
// real wire format: inline image data in generateContent), the per-owner monthly quota, usage.
// In process on both database backends.
import { beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { GeminiImageGenerator } from "../../adapters/ai/gemini-images.ts";
import { parseConfig } from "../../infra/config.ts";
import { imageServices } from "../../infra/container.ts";
import { forEachBackend } from "../support/backends.ts";
import { FAKE_GEMINI_KEY, rateLimited, startFakeGemini, type FakeGemini } from "../support/fake-gemini.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

test("GEMINI_API_KEY turns generation on with GEMINI_IMAGE_MODEL; without it there is no generator", () => {
  const on = imageServices(parseConfig({ GEMINI_API_KEY: "AIzaTest_key", GEMINI_IMAGE_MODEL: "gemini-3-pro-image-preview", DATA_DIR: "/tmp/cms-images-config" }));
  expect(on.generator?.model).toBe("gemini-3-pro-image-preview");
  expect(imageServices(parseConfig({ DATA_DIR: "/tmp/cms-images-config" })).generator).toBeNull();
});

await forEachBackend("image generation", (backend) => {
  let service: InProcessService;
  let gemini: FakeGemini;
  let playerKey: string;
  let campaign: any;
  let character: any;

  const call = (method: string, path: string, body?: unknown, key = service.adminKey) => service.call(method, path, key, body);
  const usage = async (campaignId = campaign.id) => (await call("GET", `/v1/images/usage?campaign_id=${campaignId}`)).body;

  inProcessOn(backend, async (made) => {
    service = made;
    gemini = startFakeGemini();
    service.deps.images.settings.monthlyGenerations = 3;
    campaign = (await call("POST", "/v1/campaigns", { title: "Exandria", system: "D&D 5e" })).body;
    character = (await call("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Keyleth", type: "PC", description: "A half-elf druid of the Air Ashari." })).body;
    const player = await service.newUser("Marisha", `marisha.${crypto.randomUUID().slice(0, 6)}@example.test`);
    playerKey = player.key;
    expect((await call("POST", `/internal/v1/campaigns/${campaign.id}/members`, { user_id: player.id, role: "player" })).status).toBeLessThan(300);
    return () => gemini.stop();
  });

  test("offline: 503 with a detail that says how to enable it; usage says it cannot be used", async () => {
    service.deps.images.generator = null;
    const answer = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "character", entity_id: character.id });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ detail: "Image generation is not enabled on this server: set GEMINI_API_KEY (and, to choose the model, GEMINI_IMAGE_MODEL) and restart it" });
    const now = new Date();
    expect(await usage()).toEqual({
      used: 0,
      limit: 3,
      can_access: false,
      tier: "self-hosted",
      billing_cycle_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      billing_cycle_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
  });

  describe("with a Gemini image model", () => {
    beforeAll(() => {
      service.deps.images.generator = new GeminiImageGenerator({ apiKey: FAKE_GEMINI_KEY, model: "gemini-2.5-flash-image", baseUrl: gemini.url });
    });

    test("draws the record, stores the image without attaching it, and counts it", async () => {
      gemini.reset();
      const answer = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "character", entity_id: character.id, user_input: "windswept, in a storm" });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(["url"]);
      expect(answer.body.url).toStartWith(`http://localhost:8000/media/campaigns/${campaign.id}/character/`);
      const served = await service.app.handle(new Request(answer.body.url));
      expect(served.headers.get("content-type")).toBe("image/png");
      const metadata = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(["png", 64, 64]);
      expect((await call("GET", `/v1/characters/${character.id}`)).body.image).toBeNull();

      const [request] = gemini.requests;
      expect(request!.path).toBe("/v1beta/models/gemini-2.5-flash-image:generateContent");
      expect(request!.headers["x-goog-api-key"]).toBe(FAKE_GEMINI_KEY);
      const sent = request!.body as any;
      expect(sent.generationConfig.responseModalities).toEqual(["TEXT", "IMAGE"]);
      const prompt: string = sent.contents[0].parts[0].text;
      expect(prompt).toContain('"Exandria" (D&D 5e)');
      expect(prompt).toContain("Subject: the character Keyleth (PC).");
      expect(prompt).toContain("About it: A half-elf druid of the Air Ashari.");
      expect(prompt).toContain("Guidance from the game master: windswept, in a storm");
      expect(await usage()).toMatchObject({ used: 1, limit: 3, can_access: true });
      // Attaching is the caller's PATCH; a managed http URL is accepted there.
      expect((await call("PATCH", `/v1/characters/${character.id}`, { image: answer.body.url })).body.image).toBe(answer.body.url);
    });

    test("bad input: entity_id missing, a record of another campaign, a player without manage access", async () => {
      const missing = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "item" });
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "entity_id"], msg: "entity_id is required unless type is world" });
      const other = (await call("POST", "/v1/campaigns", { title: "Elsewhere" })).body;
      const foreign = (await call("POST", "/v1/characters", { campaign_id: other.id, character_name: "Spy" })).body;
      const elsewhere = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "character", entity_id: foreign.id });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.detail).toBe("Character not found in this campaign");
      const byPlayer = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world" }, playerKey);
      expect(byPlayer.status).toBe(403);
      expect((await call("GET", `/v1/images/usage?campaign_id=${campaign.id}`, undefined, playerKey)).status).toBe(200);
      expect(await usage()).toMatchObject({ used: 1 });
    });

    test("a model that fails or refuses: 503, and the generation is not counted", async () => {
      gemini.fail(rateLimited("30s"));
      const limited = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world" });
      expect(limited.status).toBe(503);
      expect(limited.body.detail).toStartWith("The image model is unavailable for now; try again later");
      gemini.answer({ parts: [], blockReason: "PROHIBITED_CONTENT" });
      const refused = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world" });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toBe("The image model did not produce an image: Gemini refused the prompt (PROHIBITED_CONTENT)");
      gemini.answer({ parts: ["Sorry, I can only describe it."], images: [] });
      expect((await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world" })).status).toBe(503);
      expect(await usage()).toMatchObject({ used: 1 });
    });

    test("the quota belongs to the owner's account: shared by their campaigns, 403 once used up", async () => {
      const second = (await call("POST", "/v1/campaigns", { title: "Wildemount" })).body;
      expect((await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world", user_input: "a map" })).status).toBe(200);
      expect((await call("POST", "/v1/images/generate", { campaign_id: second.id, type: "world" })).status).toBe(200);
      expect(await usage(second.id)).toMatchObject({ used: 3, limit: 3, can_access: false });
      const exhausted = await call("POST", "/v1/images/generate", { campaign_id: campaign.id, type: "world" });
      expect(exhausted.status).toBe(403);
      expect(exhausted.body.detail).toStartWith("The image generation quota is used up: 3 per month for this campaign's owner, renewed on ");
      expect(await usage()).toMatchObject({ used: 3 });
    });
  });
});
