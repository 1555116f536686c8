// One contract for the BlobStore port, run on the local folder and on S3 (a real s3rver).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BlobStore } from "../../ports/blobs.ts";
import { BLOB_STORES, startLocalBlobStore, type RunningBlobStore } from "../support/blobs.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const readAll = async (stream: ReadableStream<Uint8Array> | null) => (stream ? new TextDecoder().decode(await new Response(stream).arrayBuffer()) : null);

for (const kind of BLOB_STORES) {
  describe(`BlobStore contract on ${kind.name}`, () => {
    let running: RunningBlobStore;
    let store: BlobStore;
    beforeAll(async () => {
      running = await kind.start();
      store = running.store;
    });
    afterAll(() => running.stop());

    test("a presigned PUT with plain fetch stores the bytes; head, read, list and the public URL see them", async () => {
      const key = "campaigns/c1/u1/portrait.png";
      const grant = await store.presignUpload(key, { contentType: "image/png", expiresInSeconds: 60, maxBytes: 1000 });
      expect(grant.expiresInSeconds).toBe(60);
      const put = await fetch(grant.url, { method: "PUT", body: bytes("not really a png"), headers: { "content-type": "image/png" } });
      expect(put.status).toBe(200);
      expect(await store.head(key)).toEqual({ size: 16, contentType: "image/png" });
      expect(await readAll(await store.read(key))).toBe("not really a png");
      expect(await store.list("campaigns/c1/")).toEqual([key]);
      expect(await store.list("campaigns/c2/")).toEqual([]);
      const url = store.publicUrl(key);
      expect(store.keyOfUrl(url)).toBe(key);
      const got = await fetch(url);
      expect(got.status).toBe(200);
      expect(await got.text()).toBe("not really a png");
    });

    test("put replaces, delete removes (twice is fine), and a missing key reads as null", async () => {
      const key = "campaigns/c1/u2/made.webp";
      await store.put(key, bytes("one"), "image/webp");
      await store.put(key, bytes("three"), "image/webp");
      expect(await store.head(key)).toEqual({ size: 5, contentType: "image/webp" });
      await store.delete(key);
      await store.delete(key);
      expect(await store.head(key)).toBeNull();
      expect(await store.read(key)).toBeNull();
      expect(await store.list("campaigns/c1/u2/")).toEqual([]);
    });

    test("localCopy gives the object as a file (null when missing or over maxBytes); putFile takes a scratch file over", async () => {
      const key = "campaigns/c1/u6/photo.jpg";
      await store.put(key, bytes("twelve bytes"), "image/jpeg");
      expect(await store.localCopy("campaigns/c1/u6/none.jpg", 100)).toBeNull();
      expect(await store.localCopy(key, 11)).toBeNull();
      const copy = (await store.localCopy(key, 12))!;
      expect(copy.size).toBe(12);
      expect(await Bun.file(copy.path).text()).toBe("twelve bytes");

      const scratch = store.scratchFile();
      expect(await Bun.file(scratch.path).exists()).toBe(false);
      await Bun.write(scratch.path, "re-encoded");
      await store.putFile(key, scratch.path, "image/jpeg");
      await copy.release();
      expect(await Bun.file(scratch.path).exists()).toBe(false);
      await scratch.discard();
      expect(await store.head(key)).toEqual({ size: 10, contentType: "image/jpeg" });
      expect(await readAll(await store.read(key))).toBe("re-encoded");
      expect(await store.list("campaigns/c1/u6/")).toEqual([key]);

      const unused = store.scratchFile();
      await Bun.write(unused.path, "refused");
      await unused.discard();
      expect(await Bun.file(unused.path).exists()).toBe(false);
      await store.delete(key);
    });

    test("an expired upload URL stores nothing", async () => {
      const key = "campaigns/c1/u5/late.png";
      const grant = await store.presignUpload(key, { contentType: "image/png", expiresInSeconds: 1, maxBytes: 1000 });
      await Bun.sleep(2100);
      const put = await fetch(grant.url, { method: "PUT", body: bytes("x"), headers: { "content-type": "image/png" } });
      expect(put.status).toBe(403);
      expect(await store.head(key)).toBeNull();
    });

    test("URLs of other hosts or paths are not the store's", () => {
      expect(store.keyOfUrl("https://example.com/campaigns/c1/u1/portrait.png")).toBeNull();
      expect(store.keyOfUrl(store.publicUrl("campaigns/c1/u1/p.png").replace("u1/p.png", "../x"))).toBeNull();
    });
  });
}

describe("local store: what only the service's own PUT route can enforce", () => {
  let running: RunningBlobStore;
  beforeAll(async () => {
    running = await startLocalBlobStore();
  });
  afterAll(() => running.stop());

  test("a body over the limit is refused while streaming and nothing is kept", async () => {
    const key = "campaigns/c9/big/huge.png";
    const grant = await running.store.presignUpload(key, { contentType: "image/png", expiresInSeconds: 60, maxBytes: 64 * 1024 });
    // Streamed without a length, so only counting while reading can stop it.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const put = await fetch(grant.url, { method: "PUT", body, headers: { "content-type": "image/png" } });
    expect(put.status).toBe(413);
    expect((await put.json()).detail).toBe("Request body too large: this route accepts at most 65,536 bytes (64 KiB)");
    expect(await running.store.head(key)).toBeNull();
    expect(await running.store.list("campaigns/c9/")).toEqual([]);
  });

  // s3rver does not verify V4 signatures (real S3 does): tampering is proven on the local store only.
  test("a tampered upload URL stores nothing", async () => {
    const key = "campaigns/c1/u3/a.png";
    const grant = await running.store.presignUpload(key, { contentType: "image/png", expiresInSeconds: 60, maxBytes: 1000 });
    const tampered = grant.url.replace("u3", "u4");
    const put = await fetch(tampered, { method: "PUT", body: bytes("x"), headers: { "content-type": "image/png" } });
    expect(put.status).toBe(403);
    expect(await running.store.head("campaigns/c1/u4/a.png")).toBeNull();
    const badSignature = grant.url.replace(/(sig|Signature)=([0-9a-zA-Z_-])/, (_, name, first) => `${name}=${first === "a" ? "b" : "a"}`);
    expect((await fetch(badSignature, { method: "PUT", body: bytes("x"), headers: { "content-type": "image/png" } })).status).toBe(403);
    expect(await running.store.head(key)).toBeNull();
  });

  test("a declared length over the limit is refused before reading", async () => {
    const grant = await running.store.presignUpload("campaigns/c9/d/a.png", { contentType: "image/png", expiresInSeconds: 60, maxBytes: 10 });
    const put = await fetch(grant.url, { method: "PUT", body: new Uint8Array(11), headers: { "content-type": "image/png" } });
    expect(put.status).toBe(413);
  });

  test("the content type must be the signed one, and a URL uploads once", async () => {
    const key = "campaigns/c9/t/a.png";
    const grant = await running.store.presignUpload(key, { contentType: "image/png", expiresInSeconds: 60, maxBytes: 100 });
    const wrong = await fetch(grant.url, { method: "PUT", body: bytes("x"), headers: { "content-type": "text/html" } });
    expect(wrong.status).toBe(415);
    expect((await wrong.json()).detail).toBe("Content-Type must be image/png, the type this upload URL was issued for");
    expect((await fetch(grant.url, { method: "PUT", body: bytes("x"), headers: { "content-type": "image/png" } })).status).toBe(200);
    const again = await fetch(grant.url, { method: "PUT", body: bytes("y"), headers: { "content-type": "image/png" } });
    expect(again.status).toBe(409);
    expect(await readAll(await running.store.read(key))).toBe("x");
  });

  test("the public GET carries the stored type, an ETag, a long cache and nosniff; a matching ETag gets 304", async () => {
    const key = "campaigns/c9/g/a.webp";
    await running.store.put(key, bytes("webp bytes"), "image/webp");
    const got = await fetch(running.store.publicUrl(key));
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/webp");
    expect(got.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = got.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
    const again = await fetch(running.store.publicUrl(key), { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect((await fetch(running.store.publicUrl("campaigns/c9/g/none.webp"))).status).toBe(404);
    expect((await fetch(running.store.publicUrl("campaigns/c9/g/") + "..%2F..%2Fetc")).status).toBe(404);
  });
});
