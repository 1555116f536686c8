// Uploaded images checked and cleaned with sharp: the header is read first (format and size, no
// pixels decoded), so a decompression bomb is refused before any memory goes to it; then the image
// is decoded under the same pixel limit and re-encoded, which leaves every piece of metadata out.
import { rm, stat } from "node:fs/promises";
import sharp, { type Metadata } from "sharp";
import type { Cleaned, CleanedImage, CleanedImageInfo, ImageLimits, ImageModerator, ImageProcessor } from "../../ports/media.ts";
import { IMAGE_FORMATS, imageTooLarge } from "../../domain/images.ts";

// Decoded pixels are not worth keeping between requests; each decode holds its memory only while it runs.
sharp.cache(false);
// One libvips thread per image: each thread holds its own buffers, and uploads are not latency-critical.
sharp.concurrency(1);

const ALLOWED = "JPEG, PNG, WebP, GIF or AVIF";

/** At most this many images decode at once, so memory stays bounded under concurrent uploads. */
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: (() => void)[] = [];
async function exclusive<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

const formatOf = (metadata: Metadata): CleanedImage["format"] | null => {
  if (metadata.format === "heif") return metadata.compression === "av1" ? "avif" : null;
  return metadata.format && metadata.format in IMAGE_FORMATS ? (metadata.format as CleanedImage["format"]) : null;
};

/** Above this, the buffers of the images before are collected first (measured: 8 × 20 MB completes peaked 364 MB without). */
const COLLECT_ABOVE_BYTES = 4 * 1024 * 1024;

export const sharpImageProcessor: ImageProcessor = {
  clean: (bytes, limits) =>
    exclusive(async () => {
      if (bytes.byteLength > limits.maxBytes) return tooManyBytes(bytes.byteLength, limits);
      // The collector otherwise lets the 20 MB buffers of earlier uploads pile up before it runs.
      if (bytes.byteLength > COLLECT_ABOVE_BYTES) Bun.gc(true);
      const cleaned = await clean(bytes, limits, null);
      if (!cleaned.ok) return cleaned;
      const { data, ...image } = cleaned.image;
      // A view of sharp's buffer, not a copy of it.
      return { ok: true, image: { ...image, bytes: new Uint8Array(data!.buffer, data!.byteOffset, data!.byteLength) } };
    }),
  cleanFile: (input, output, limits) =>
    exclusive(async () => {
      // libvips reads the file itself: the upload never becomes a buffer in this process.
      const size = (await stat(input)).size;
      if (size > limits.maxBytes) return tooManyBytes(size, limits);
      const cleaned = await clean(input, limits, output);
      if (!cleaned.ok) {
        await rm(output, { force: true });
        return cleaned;
      }
      const { data: _none, ...image } = cleaned.image;
      return { ok: true, image: { ...image, path: output } };
    }),
};

const tooManyBytes = (size: number, limits: ImageLimits): { ok: false; problem: string } => ({
  ok: false,
  problem: imageTooLarge(size, limits.maxBytes),
});

/** Checks `input` (bytes or a file's path) and re-encodes it into a buffer, or into the file `output`. */
async function clean(input: Uint8Array | string, limits: ImageLimits, output: string | null): Promise<Cleaned<CleanedImageInfo & { data: Buffer | null; size: number }>> {
  let metadata: Metadata;
  try {
    metadata = await sharp(input, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, problem: `The uploaded file is not an image, or it is damaged (${ALLOWED} expected)` };
  }
  const format = formatOf(metadata);
  if (!format) return { ok: false, problem: `Images must be ${ALLOWED} (this one is ${metadata.format ?? "of an unknown format"})` };
  const width = metadata.width ?? 0;
  const height = metadata.pageHeight && metadata.pages ? metadata.pageHeight * metadata.pages : (metadata.height ?? 0);
  if (!width || !height) return { ok: false, problem: "The image has no size: the file is damaged" };
  if (width * height > limits.maxPixels)
    return { ok: false, problem: `The image is ${width.toLocaleString("en-US")} × ${height.toLocaleString("en-US")} pixels; at most ${limits.maxPixels.toLocaleString("en-US")} pixels are accepted` };
  try {
    const animated = format === "gif" || format === "webp";
    // limitInputPixels again: the header could lie about what the data decodes to.
    // Sequential: libvips streams the decode into the encode instead of holding the whole bitmap.
    // Turned upright only when the EXIF says so: rotating needs the whole bitmap at once.
    let pipeline = sharp(input, { animated, limitInputPixels: limits.maxPixels, failOn: "error", sequentialRead: true });
    if ((metadata.orientation ?? 1) > 1) pipeline = pipeline.rotate();
    pipeline =
      format === "jpeg"
        ? // Optimized Huffman tables need every coefficient of the image held at once (+130 MB for 22 MP).
          pipeline.jpeg({ quality: 85, optimiseCoding: false })
        : format === "png"
          ? pipeline.png({ compressionLevel: 6 })
          : format === "webp"
            ? pipeline.webp({ quality: 85 })
            : format === "gif"
              ? pipeline.gif()
              : pipeline.avif({ quality: 60, effort: 2 });
    const { data, info } = output ? { data: null, info: await pipeline.toFile(output) } : await pipeline.toBuffer({ resolveWithObject: true });
    const outHeight = info.pageHeight && info.pages ? info.pageHeight * info.pages : info.height;
    return { ok: true, image: { format, contentType: IMAGE_FORMATS[format], width: info.width, height: outHeight, data, size: info.size } };
  } catch (error) {
    const message = (error as Error).message ?? "";
    if (/pixel limit/i.test(message)) return { ok: false, problem: `The image decodes to more than ${limits.maxPixels.toLocaleString("en-US")} pixels` };
    return { ok: false, problem: `The image data is damaged or truncated and cannot be decoded (${ALLOWED} expected)` };
  }
}

/** The default: no moderation. */
export const noModeration: ImageModerator = {
  name: "none",
  review: async () => ({ allowed: true }),
};
