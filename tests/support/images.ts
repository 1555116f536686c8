// Images for the image tests, made here: a phone-like JPEG with EXIF GPS, small PNGs, and a PNG
// decompression bomb (a valid 50,000 × 50,000 file of a few hundred kilobytes).
import sharp from "sharp";
import { deflateSync, crc32 } from "node:zlib";
import { expect } from "bun:test";
import type { InProcessService } from "./inprocess.ts";

export const jpegWithGps = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: "#884422" } })
    .jpeg()
    .withExif({ IFD0: { Make: "PhoneCo", Model: "Snap 9" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 29/1", GPSLongitudeRef: "E", GPSLongitude: "2/1 17/1 40/1" } })
    .toBuffer();

export const png = (width = 32, height = 32) => sharp({ create: { width, height, channels: 4, background: "#2255aa" } }).png().toBuffer();

/** A PNG uploaded as a client does (init, PUT through the service's own byte route, complete), as the admin: the image's key and URL. */
export async function uploadPicture(service: InProcessService, campaignId: string, entity_type: string, entity_id: string, attach = true) {
  const grant = (await service.call("POST", `/v1/campaigns/${campaignId}/images/init`, service.adminKey, { entity_type, entity_id, file_name: "p.png", content_type: "image/png" })).body;
  const put = await service.app.handle(new Request(grant.upload_url, { method: "PUT", body: await png(), headers: { "content-type": "image/png" } }));
  expect(put.status).toBe(200);
  const done = await service.call("POST", `/v1/campaigns/${campaignId}/images/complete`, service.adminKey, { object_key: grant.object_key, entity_type, entity_id, attach });
  expect(done.status).toBe(200);
  return { key: grant.object_key as string, url: done.body.url as string };
}

const chunk = (type: string, data: Uint8Array) => {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A real PNG of `side` × `side` one-bit pixels, all black: tiny on disk, gigapixels decoded. Slow to
 * make (seconds): the tests read tests/fixtures/images/bomb-50000x50000.png, which this wrote.
 */
export const PNG_BOMB = new URL("../fixtures/images/bomb-50000x50000.png", import.meta.url).pathname;

export function pngBomb(side = 50_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const raw = Buffer.alloc((1 + Math.ceil(side / 8)) * side);
  const data = deflateSync(raw, { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", data), chunk("IEND", new Uint8Array())]);
}

/** A PNG signature and header, then garbage. */
export async function pngThenGarbage(): Promise<Buffer> {
  const good = await png(40, 40);
  return Buffer.concat([good.subarray(0, 33), Buffer.from("this is not a zlib stream at all, just words ".repeat(20))]);
}
