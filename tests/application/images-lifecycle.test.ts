// What happens to managed images when their records go, and to uploads never completed: the
// sweep deletes their objects, and afterwards the store holds exactly the images still in use.
// In process (app.handle, the local store's byte routes included), on both database backends.
import { expect, test } from "bun:test";
import { sweepImages } from "../../application/images.ts";
import { startWorker } from "../../infra/worker.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { jpegWithGps, uploadPicture } from "../support/images.ts";

await forEachBackend("images after their records are deleted", (backend) => {
  let service: InProcessService;
  const call = (method: string, path: string, body?: unknown) => service.call(method, path, service.adminKey, body);
  const picture = (campaignId: string, entity_type: string, entity_id: string, attach = true) => uploadPicture(service, campaignId, entity_type, entity_id, attach);
  const objects = () => service.deps.images.store.list("campaigns/");

  inProcessOn(backend, (made) => {
    service = made;
  });

  test("deleting a record, a session or a campaign removes its images; nothing else is touched", async () => {
    const campaign = (await call("POST", "/v1/campaigns", { title: "Exandria" })).body;
    const kept = (await call("POST", "/v1/campaigns", { title: "Kept" })).body;
    const character = (await call("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Grog" })).body;
    const survivor = (await call("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Pike" })).body;
    const item = (await call("POST", "/v1/items", { campaign_id: campaign.id, name: "Craven Edge" })).body;
    const session = (await call("POST", "/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "One", session_date: "2015-03-12T19:00:00Z" })).body;
    const moment = (await call("POST", "/v1/moments", { campaign_id: campaign.id, session_id: session.id, label: "Rage" })).body;
    const keptCharacter = (await call("POST", "/v1/characters", { campaign_id: kept.id, character_name: "Scanlan" })).body;

    const ofCharacter = await picture(campaign.id, "character", character.id);
    const ofSurvivor = await picture(campaign.id, "character", survivor.id);
    const ofItem = await picture(campaign.id, "item", item.id, false);
    const ofSession = await picture(campaign.id, "session", session.id);
    const ofMoment = await picture(campaign.id, "moment", moment.id);
    const ofCampaign = await picture(campaign.id, "campaign", campaign.id);
    const ofKept = await picture(kept.id, "character", keptCharacter.id);
    expect(await objects()).toEqual([ofCharacter, ofSurvivor, ofItem, ofSession, ofMoment, ofCampaign, ofKept].map((p) => p.key).sort());
    expect(await sweepImages(service.deps)).toBe(0);

    expect((await call("DELETE", `/v1/characters/${character.id}`)).status).toBe(204);
    expect((await call("DELETE", `/v1/items/${item.id}`)).status).toBe(204);
    expect(await sweepImages(service.deps)).toBe(2);
    expect(await objects()).toEqual([ofSurvivor, ofSession, ofMoment, ofCampaign, ofKept].map((p) => p.key).sort());
    expect((await service.app.handle(new Request(ofCharacter.url))).status).toBe(404);

    // The session's moments outlive it (their session_id is cleared), and so do their images.
    expect((await call("DELETE", `/internal/v1/sessions/${session.id}`)).status).toBe(204);
    expect(await sweepImages(service.deps)).toBe(1);
    expect(await objects()).toEqual([ofSurvivor, ofMoment, ofCampaign, ofKept].map((p) => p.key).sort());

    expect((await call("DELETE", `/v1/campaigns/${campaign.id}`)).status).toBe(204);
    expect(await sweepImages(service.deps)).toBe(3);
    expect(await objects()).toEqual([ofKept.key]);
    const served = await service.app.handle(new Request(ofKept.url));
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
  });

  test("an upload never completed is removed by the worker once it has expired, with its object", async () => {
    const campaign = (await call("POST", "/v1/campaigns", { title: "Abandoned" })).body;
    const character = (await call("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Tary" })).body;
    const grant = (await call("POST", `/v1/campaigns/${campaign.id}/images/init`, { entity_type: "character", entity_id: character.id, file_name: "a.jpg", content_type: "image/jpeg" })).body;
    await service.app.handle(new Request(grant.upload_url, { method: "PUT", body: await jpegWithGps(), headers: { "content-type": "image/jpeg" } }));
    const never = (await call("POST", `/v1/campaigns/${campaign.id}/images/init`, { entity_type: "character", entity_id: character.id, file_name: "b.jpg", content_type: "image/jpeg" })).body;
    expect(await objects()).toContain(grant.object_key);
    // Not yet expired: the sweep leaves both.
    expect(await sweepImages(service.deps)).toBe(0);
    const realClock = service.deps.clock;
    service.deps.clock = { now: () => new Date(realClock.now().getTime() + (900 + 301) * 1000) };
    try {
      const worker = startWorker(service.deps, { imageSweepMs: 20, pollMs: 60_000 });
      const deadline = Date.now() + 10_000;
      while ((await objects()).includes(grant.object_key) && Date.now() < deadline) await Bun.sleep(20);
      await worker.stop();
    } finally {
      service.deps.clock = realClock;
    }
    expect(await objects()).not.toContain(grant.object_key);
    expect(await service.deps.records.images.get(grant.object_key)).toBeNull();
    expect(await service.deps.records.images.get(never.object_key)).toBeNull();
    const late = await call("POST", `/v1/campaigns/${campaign.id}/images/complete`, { object_key: grant.object_key, entity_type: "character", entity_id: character.id });
    expect(late.status).toBe(404);
    expect(late.body.detail).toBe("Upload not found in this campaign: use the object_key init returned");
  });
});
