// Black-box: the upload lifecycle on both blob stores (the local folder and S3 on a real s3rver)
// and both database backends: bytes PUT with plain fetch as a browser would, the public URL opened
// and decoded, idempotency, attach and detach, deletes, and the bad inputs of the issue.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import sharp from "sharp";
import { LocalBlobStore } from "../../adapters/blobs/local.ts";
import { S3BlobStore } from "../../adapters/blobs/s3.ts";
import type { BlobStore } from "../../ports/blobs.ts";
import { forEachBackend, type User } from "../support/backends.ts";
import { client, newUser } from "../support/client.ts";
import { S3RVER_CREDENTIALS, startS3rver, type RunningS3rver } from "../support/blobs.ts";
import { jpegWithGps, png, PNG_BOMB, pngThenGarbage } from "../support/images.ts";
import type { TestServer } from "../support/server.ts";

const MAX_BYTES = 2_000_000;

for (const storeName of ["local", "s3"] as const) {
  await forEachBackend(`image uploads on the ${storeName} store`, (backend) => {
    let server: TestServer;
    let s3: RunningS3rver | undefined;
    let store: BlobStore;
    let gm: User;
    let viewer: User;
    let stranger: User;
    let campaign: any;
    let other: any;
    let character: any;

    beforeAll(async () => {
      s3 = storeName === "s3" ? await startS3rver() : undefined;
      server = await backend.startServer({ IMAGE_MAX_BYTES: String(MAX_BYTES), ...(s3?.env ?? {}) });
      store = s3
        ? new S3BlobStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", ...S3RVER_CREDENTIALS })
        : new LocalBlobStore({ dir: join(server.dataDir, "media"), publicBaseUrl: server.url.replace("127.0.0.1", "localhost") });
      gm = await newUser(server.url, server.adminKey, "Matt");
      viewer = await newUser(server.url, server.adminKey, "Vera");
      stranger = await newUser(server.url, server.adminKey, "Stranger");
      campaign = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body;
      other = (await stranger.api.post("/v1/campaigns", { title: "Elsewhere" })).body;
      const admin = client(server.url, server.adminKey);
      expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: viewer.id, role: "viewer" })).status).toBeLessThan(300);
      character = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Vex'ahlia" })).body;
    });
    afterAll(async () => {
      await server?.stop();
      await s3?.stop();
    });

    const objects = () => store.list("campaigns/");
    const init = (api: User["api"], body: Record<string, unknown>, campaignId = campaign.id) =>
      api.post(`/v1/campaigns/${campaignId}/images/init`, { entity_type: "character", entity_id: character.id, file_name: "portrait.jpg", content_type: "image/jpeg", ...body });
    const complete = (body: Record<string, unknown>, campaignId = campaign.id, api = gm.api) =>
      api.post(`/v1/campaigns/${campaignId}/images/complete`, { entity_type: "character", entity_id: character.id, ...body });
    const put = (url: string, bytes: Uint8Array, type = "image/jpeg") => fetch(url, { method: "PUT", body: new Blob([bytes as BlobPart]), headers: { "content-type": type } });
    /** init + PUT, answering the grant. */
    const uploaded = async (bytes: Uint8Array, type = "image/jpeg", fields: Record<string, unknown> = {}) => {
      const grant = await init(gm.api, { content_type: type, ...fields });
      expect(grant.status).toBe(200);
      expect((await put(grant.body.upload_url, bytes, type)).status).toBe(200);
      return grant.body;
    };

    test("init, PUT with plain fetch, complete: the image is cleaned (no EXIF GPS), attached and served", async () => {
      const original = await jpegWithGps(120, 80);
      expect((await sharp(original).metadata()).exif).toBeDefined();
      const grant = await init(gm.api, {});
      expect(grant.status).toBe(200);
      expect(Object.keys(grant.body).sort()).toEqual(["expires_in_seconds", "object_key", "public_url", "upload_url"]);
      expect(grant.body.expires_in_seconds).toBe(900);
      expect(grant.body.object_key).toStartWith(`campaigns/${campaign.id}/character/`);
      expect(grant.body.object_key).toEndWith("-portrait.jpg");
      expect((await put(grant.body.upload_url, original)).status).toBe(200);

      const done = await complete({ object_key: grant.body.object_key });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ url: grant.body.public_url, attached: true });
      expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBe(done.body.url);

      const served = await fetch(done.body.url);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/jpeg");
      const bytes = Buffer.from(await served.arrayBuffer());
      const metadata = await sharp(bytes).metadata();
      expect(metadata.format).toBe("jpeg");
      expect([metadata.width, metadata.height]).toEqual([120, 80]);
      expect(metadata.exif).toBeUndefined();
      expect(bytes.includes(Buffer.from("PhoneCo"))).toBe(false);
      if (storeName === "local") {
        expect(served.headers.get("x-content-type-options")).toBe("nosniff");
        expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        expect(served.headers.get("etag")).toBeTruthy();
      }

      // Idempotent: the same answer, nothing new in the store.
      const before = await objects();
      const again = await complete({ object_key: grant.body.object_key });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ url: done.body.url, attached: true });
      expect(await objects()).toEqual(before);
    });

    test("attach false leaves the record alone; a later upload replaces the attached one and deletes it", async () => {
      const first = (await gm.api.get(`/v1/characters/${character.id}`)).body.image;
      const grant = await uploaded(await png(), "image/png", { file_name: "map.png" });
      const done = await complete({ object_key: grant.object_key, attach: false });
      expect(done.body).toEqual({ url: grant.public_url, attached: false });
      expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBe(first);
      const attached = await complete({ object_key: grant.object_key, attach: true });
      expect(attached.body).toEqual({ url: grant.public_url, attached: true });
      expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBe(grant.public_url);
      expect((await fetch(first)).status).toBe(storeName === "local" ? 404 : 404);
      expect(await objects()).toEqual([grant.object_key]);
    });

    test("a managed URL is accepted in image fields even on plain http; other http URLs are not", async () => {
      const url = (await gm.api.get(`/v1/characters/${character.id}`)).body.image;
      expect(url).toStartWith("http://");
      const moment = await gm.api.post("/v1/moments", { campaign_id: campaign.id, label: "The dragon", image: url });
      expect(moment.status).toBe(201);
      expect(moment.body.image).toBe(url);
      const foreign = await gm.api.patch(`/v1/characters/${character.id}`, { image: url.replace(/^http:\/\/[^/]+/, "http://elsewhere.example") });
      expect(foreign.status).toBe(422);
      expect(foreign.body.detail[0].msg).toBe("Image must be an HTTPS URL of at most 2048 characters");
      await gm.api.call("DELETE", `/v1/moments/${moment.body.id}`);
    });

    describe("bad input gets a clear 4xx, the object deleted and nothing attached", () => {
      const refused = async (bytes: Uint8Array, type: string, detail: string) => {
        const shown = (await gm.api.get(`/v1/characters/${character.id}`)).body.image;
        const grant = await uploaded(bytes, type);
        const done = await complete({ object_key: grant.object_key });
        expect(done.status).toBe(422);
        expect(done.body.detail).toEqual([{ type: "image_invalid", loc: ["body", "object_key"], msg: detail, input: grant.object_key }]);
        expect(await store.head(grant.object_key)).toBeNull();
        expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBe(shown);
        // The refused upload is gone for good.
        expect((await complete({ object_key: grant.object_key })).status).toBe(404);
      };

      test("non-image bytes with an image content type", () => refused(new TextEncoder().encode("<html><script>alert(1)</script></html>"), "image/png", "The uploaded file is not an image, or it is damaged (JPEG, PNG, WebP, GIF or AVIF expected)"));
      test("a PNG header followed by garbage", async () => refused(await pngThenGarbage(), "image/png", "The uploaded file is not an image, or it is damaged (JPEG, PNG, WebP, GIF or AVIF expected)"));
      test("a 50,000 × 50,000 PNG (a decompression bomb) is refused before decoding", async () =>
        refused(new Uint8Array(await Bun.file(PNG_BOMB).arrayBuffer()), "image/png", "The image is 50,000 × 50,000 pixels; at most 40,000,000 pixels are accepted"));
      test("an SVG is not an allowed format", () => refused(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), "image/svg+xml", "Images must be JPEG, PNG, WebP, GIF or AVIF (this one is svg)"));

      test("an upload over the limit", async () => {
        const big = new Uint8Array(MAX_BYTES + 100_000);
        const grant = (await init(gm.api, { content_type: "image/png" })).body;
        const response = await put(grant.upload_url, big, "image/png");
        if (storeName === "local") {
          // Stopped while streaming: nothing stored.
          expect(response.status).toBe(413);
          expect(await store.head(grant.object_key)).toBeNull();
          expect((await complete({ object_key: grant.object_key })).status).toBe(409);
        } else {
          // A presigned S3 PUT cannot carry a limit: complete refuses by size, before reading, and deletes it.
          expect(response.status).toBe(200);
          const done = await complete({ object_key: grant.object_key });
          expect(done.status).toBe(422);
          expect(done.body.detail[0].msg).toBe(`The image is ${(MAX_BYTES + 100_000).toLocaleString("en-US")} bytes; at most ${MAX_BYTES.toLocaleString("en-US")} are accepted`);
          expect(await store.head(grant.object_key)).toBeNull();
        }
      });

      test("complete before the bytes arrived is a 409 that changes nothing", async () => {
        const grant = (await init(gm.api, {})).body;
        const done = await complete({ object_key: grant.object_key });
        expect(done.status).toBe(409);
        expect(done.body.detail).toBe("Nothing has been uploaded for this object_key yet: PUT the image bytes to upload_url first");
      });

      test("file_name with ../ or NUL, a non-image content type, a record of another campaign", async () => {
        const dots = await init(gm.api, { file_name: "../../etc/passwd.png" });
        expect(dots.status).toBe(422);
        expect(dots.body.detail[0]).toMatchObject({ loc: ["body", "file_name"], msg: "file_name must be a plain file name, without '/' or '\\'" });
        expect((await init(gm.api, { file_name: "a..png" })).body.detail[0].msg).toBe("file_name must not contain '..'");
        const nul = await init(gm.api, { file_name: "a\u0000.png" });
        expect(nul.status).toBe(422);
        const text = await init(gm.api, { content_type: "text/html" });
        expect(text.status).toBe(422);
        expect(text.body.detail[0].loc).toEqual(["body", "content_type"]);
        const foreignCharacter = (await stranger.api.post("/v1/characters", { campaign_id: other.id, character_name: "Spy" })).body;
        const elsewhere = await init(gm.api, { entity_id: foreignCharacter.id });
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body.detail).toBe("Character not found in this campaign");
        const wrongCampaign = await init(gm.api, { entity_type: "campaign", entity_id: other.id });
        expect(wrongCampaign.body.detail).toBe("Campaign not found in this campaign");
      });

      test("an object_key of another campaign, a viewer, a stranger", async () => {
        const foreignCharacter = (await stranger.api.post("/v1/characters", { campaign_id: other.id, character_name: "Spy 2" })).body;
        const theirs = (await init(stranger.api, { entity_id: foreignCharacter.id }, other.id)).body;
        const done = await complete({ object_key: theirs.object_key });
        expect(done.status).toBe(404);
        expect(done.body.detail).toBe("Upload not found in this campaign: use the object_key init returned");
        const byViewer = await init(viewer.api, {});
        expect(byViewer.status).toBe(403);
        const byStranger = await init(stranger.api, {});
        expect(byStranger.status).toBe(403);
        expect(byStranger.body.detail).toBe("Write access denied for this campaign");
      });

      if (storeName === "local")
        test("a tampered upload URL", async () => {
          const grant = (await init(gm.api, {})).body;
          const tampered = grant.upload_url.replace(/type=image%2Fjpeg/, "type=text%2Fhtml");
          const response = await put(tampered, await jpegWithGps(), "text/html");
          expect(response.status).toBe(403);
          expect((await response.json()).detail).toBe("Upload URL signature does not match: use the upload_url exactly as init returned it");
          expect(await store.head(grant.object_key)).toBeNull();
        });
    });

    describe("delete", () => {
      test("by entity: detached and deleted; again: removed false", async () => {
        const grant = await uploaded(await jpegWithGps());
        expect((await complete({ object_key: grant.object_key })).status).toBe(200);
        const removed = await gm.api.call("DELETE", `/v1/campaigns/${campaign.id}/images`, { entity_type: "character", entity_id: character.id });
        expect(removed.status).toBe(200);
        expect(removed.body).toEqual({ removed: true });
        expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBeNull();
        expect(await store.head(grant.object_key)).toBeNull();
        expect((await fetch(grant.public_url)).status).toBe(404);
        const again = await gm.api.call("DELETE", `/v1/campaigns/${campaign.id}/images`, { entity_type: "character", entity_id: character.id });
        expect(again.body).toEqual({ removed: false });
      });

      test("by url: a managed object of this campaign only; foreign hosts and other campaigns are refused", async () => {
        const grant = await uploaded(await png(), "image/png");
        expect((await complete({ object_key: grant.object_key })).status).toBe(200);
        const foreign = await gm.api.call("DELETE", `/v1/campaigns/${campaign.id}/images`, { image_url: "https://example.com/campaigns/x/a.png" });
        expect(foreign.status).toBe(422);
        expect(foreign.body.detail[0].msg).toBe("image_url is not an image this service manages: only URLs returned by complete or generate can be deleted");
        const notOurs = await stranger.api.call("DELETE", `/v1/campaigns/${other.id}/images`, { image_url: grant.public_url });
        expect(notOurs.status).toBe(404);
        expect(notOurs.body.detail).toBe("Image not found in this campaign");
        expect(await store.head(grant.object_key)).not.toBeNull();
        const neither = await gm.api.call("DELETE", `/v1/campaigns/${campaign.id}/images`, {});
        expect(neither.status).toBe(422);
        const removed = await gm.api.call("DELETE", `/v1/campaigns/${campaign.id}/images`, { image_url: grant.public_url });
        expect(removed.body).toEqual({ removed: true });
        expect((await gm.api.get(`/v1/characters/${character.id}`)).body.image).toBeNull();
        expect(await store.head(grant.object_key)).toBeNull();
      });

      test("no orphaned objects: the store holds exactly the pending uploads and attached images", async () => {
        const listed = await objects();
        // Pending uploads that were never PUT hold no object; refused ones were deleted.
        for (const key of listed) expect(key).toStartWith(`campaigns/`);
        expect(listed.filter((key) => key.startsWith(`campaigns/${campaign.id}/`))).toEqual([]);
      });
    });
  });
}
