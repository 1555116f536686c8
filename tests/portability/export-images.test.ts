// Managed images through export and import: inline bytes with include_images=true, copies from this
// service's store without it, and an imported campaign that never depends on the one it came from.
import { expect, test } from "bun:test";
import { sweepImages } from "../../application/images.ts";
import { forEachBackend } from "../support/backends.ts";
import { uploadPicture } from "../support/images.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

await forEachBackend("images through export and import", (backend) => {
  let service: InProcessService;
  let owner: { id: string; key: string };
  let ownerKey: string;
  const call = (method: string, path: string, body?: unknown, key = service.adminKey) => service.call(method, path, key, body);
  /** The export document as sent (the import takes those bytes) and parsed. */
  const exported = async (campaignId: string, query = "") => {
    const response = await service.request("GET", `/internal/v1/campaigns/${campaignId}/export${query}`, { key: service.adminKey });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text), text };
  };
  const picture = async (campaignId: string, entity_type: string, entity_id: string) => (await uploadPicture(service, campaignId, entity_type, entity_id)).url;
  const served = async (url: string) => {
    const response = await service.app.handle(new Request(url));
    return response.status === 200 ? new Uint8Array(await response.arrayBuffer()) : response.status;
  };
  const importDocument = async (text: string) => {
    const response = await service.app.handle(
      new Request(`http://localhost/internal/v1/campaigns/import?owner_id=${owner.id}`, { method: "POST", headers: { "x-api-key": service.adminKey, "content-type": "application/json" }, body: text }),
    );
    return { status: response.status, body: await response.json() };
  };
  /** A campaign with a picture on itself and on one character; the bytes as served. */
  const source = async (title: string) => {
    const campaign = (await call("POST", "/v1/campaigns", { title })).body;
    const character = (await call("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Vex" })).body;
    const characterUrl = await picture(campaign.id, "character", character.id);
    const campaignUrl = await picture(campaign.id, "campaign", campaign.id);
    return { campaign, characterUrl, campaignUrl, bytes: await served(characterUrl) };
  };
  const deleteAndSweep = async (campaignId: string) => {
    expect((await call("DELETE", `/v1/campaigns/${campaignId}`)).status).toBe(204);
    expect(await sweepImages(service.deps)).toBe(2);
  };
  const prefix = (campaignId: string) => service.deps.images.store.publicUrl(`campaigns/${campaignId}/`);

  inProcessOn(backend, async (made) => {
    service = made;
    owner = await service.newUser("Laura", `laura-${backend.name}@example.test`);
    ownerKey = owner.key;
  });

  test("include_images=true: the bytes travel inline and the import keeps them after the source is gone", async () => {
    const { campaign, bytes } = await source("Inline");
    const document = await exported(campaign.id, "?include_images=true");
    expect(document.status).toBe(200);
    expect(document.body.images.map((i: Record<string, unknown>) => [i.content_type, typeof i.sha256, Buffer.from(i.data as string, "base64").equals(Buffer.from(bytes as Uint8Array))])).toEqual([
      ["image/png", "string", true],
      ["image/png", "string", true],
    ]);
    expect(document.body.trailer.counts.images).toBe(2);
    // The source and its objects go before the import: only the document's bytes can make the copy.
    await deleteAndSweep(campaign.id);

    const imported = await importDocument(document.text);
    expect(imported.status).toBe(201);
    const id = imported.body.id;
    const character = (await call("GET", `/v1/characters?campaign_id=${id}`, undefined, ownerKey)).body.data[0];
    const copy = (await call("GET", `/v1/campaigns/${id}`, undefined, ownerKey)).body;
    for (const url of [character.image, copy.image]) {
      expect(url.startsWith(prefix(id))).toBe(true);
      expect(await served(url)).toEqual(bytes);
    }
    // Rows for the new records: the sweep keeps them.
    expect(await sweepImages(service.deps)).toBe(0);
    const rows = (await call("GET", `/internal/v1/campaigns/${id}/export`)).body.records.images;
    expect(rows.map((r: Record<string, unknown>) => [r.entity_type, r.entity_id, r.url]).sort()).toEqual([
      ["campaign", id, copy.image],
      ["character", character.id, character.image],
    ].sort());
  });

  test("without include_images: the import copies what this store holds; an image found nowhere is cleared", async () => {
    const { campaign, bytes } = await source("By URL");
    const document = await exported(campaign.id);
    expect(document.body.images).toBeUndefined();

    const imported = await importDocument(document.text);
    expect(imported.status).toBe(201);
    await deleteAndSweep(campaign.id);
    const character = (await call("GET", `/v1/characters?campaign_id=${imported.body.id}`, undefined, ownerKey)).body.data[0];
    expect(character.image.startsWith(prefix(imported.body.id))).toBe(true);
    expect(await served(character.image)).toEqual(bytes);

    // The same document once the source's objects are gone: no dead URL into the old campaign.
    const late = await importDocument(document.text);
    expect(late.status).toBe(201);
    expect((await call("GET", `/v1/characters?campaign_id=${late.body.id}`, undefined, ownerKey)).body.data[0].image).toBeNull();
    expect((await call("GET", `/v1/campaigns/${late.body.id}`, undefined, ownerKey)).body.image).toBeNull();
    expect((await call("GET", `/internal/v1/campaigns/${late.body.id}/export`)).body.records.images).toEqual([]);
  });

  test("a changed inline image is refused by name; nothing is created, no object written", async () => {
    const { campaign } = await source("Tampered");
    const document = (await call("GET", `/internal/v1/campaigns/${campaign.id}/export?include_images=true`)).body;
    document.images[1].data = Buffer.from("not the picture").toString("base64");
    const campaigns = (await service.db.query<{ n: number }>("select count(*)::int as n from campaigns"))[0]!.n;
    const objects = await service.deps.images.store.list("campaigns/");
    const refused = await importDocument(JSON.stringify(document));
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].msg).toBe("images[1].sha256 does not match the image's bytes: the file was changed or damaged after export; nothing was imported");
    expect((await service.db.query<{ n: number }>("select count(*)::int as n from campaigns"))[0]!.n).toBe(campaigns);
    expect(await service.deps.images.store.list("campaigns/")).toEqual(objects);
  });
});
