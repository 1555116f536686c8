// The local-folder blob store (the default): objects are files under DATA_DIR/media, uploads arrive
// at this service through HMAC-signed, expiring PUT URLs and are streamed to disk, and the public
// GET URLs are served by this service too.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { copyFile, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { BlobInfo, BlobStore, LocalCopy, ScratchFile, UploadGrant } from "../../ports/blobs.ts";
import { BodyRejected, DEFAULT_BODY_TIMEOUTS, declaredTooLarge, limitedBytes, type BodyTimeouts } from "../http/body.ts";

/** Where the byte routes live under PUBLIC_BASE_URL. */
export const MEDIA_PATH = "/media/";

/** Keys are what the application makes: path segments of letters, digits, '.', '-', '_' (never "." or ".."). */
const SAFE_KEY = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
export const isSafeKey = (key: string): boolean => key.length <= 512 && SAFE_KEY.test(key);

const META = ".meta.json";
const TEMP_DIR = ".incoming";

export interface LocalBlobOptions {
  /** The folder objects live in (created when missing). */
  dir: string;
  /** PUBLIC_BASE_URL: the URLs handed out start with it. */
  publicBaseUrl: string;
  /** HMAC key of upload URLs; when absent, one kept in `dir` (made on first start) is used. */
  secret?: string;
  now?: () => number;
  bodyTimeouts?: BodyTimeouts;
}

const json = (status: number, detail: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ detail }), { status, headers: { "content-type": "application/json", ...headers } });

/** The media type alone, lower case: "image/PNG; x=1" → "image/png". */
const mediaType = (value: string | null): string => (value ?? "").split(";")[0]!.trim().toLowerCase();

export class LocalBlobStore implements BlobStore {
  readonly kind = "local";
  private readonly secret: Buffer;
  private readonly base: string;
  private readonly now: () => number;
  private readonly timeouts: BodyTimeouts;

  constructor(private readonly options: LocalBlobOptions) {
    mkdirSync(join(options.dir, TEMP_DIR), { recursive: true });
    this.secret = Buffer.from(options.secret ?? this.keptSecret(), "utf8");
    this.base = options.publicBaseUrl.replace(/\/+$/, "") + MEDIA_PATH;
    this.now = options.now ?? Date.now;
    this.timeouts = options.bodyTimeouts ?? DEFAULT_BODY_TIMEOUTS;
  }

  /** One secret per folder, so every instance sharing the folder signs alike; never logged. */
  private keptSecret(): string {
    const file = join(this.options.dir, ".signing-key");
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    return readFileSync(file, "utf8").trim();
  }

  private pathOf(key: string): string {
    if (!isSafeKey(key)) throw new Error(`not a blob key: ${JSON.stringify(key)}`);
    return join(this.options.dir, ...key.split("/"));
  }

  private signature(key: string, contentType: string, expires: number, maxBytes: number): string {
    return createHmac("sha256", this.secret).update(`PUT\n${key}\n${contentType}\n${expires}\n${maxBytes}`).digest("base64url");
  }

  async presignUpload(key: string, { contentType, expiresInSeconds, maxBytes }: { contentType: string; expiresInSeconds: number; maxBytes: number }): Promise<UploadGrant> {
    this.pathOf(key);
    const type = mediaType(contentType);
    const expires = Math.floor(this.now() / 1000) + expiresInSeconds;
    const query = new URLSearchParams({ expires: String(expires), type, max: String(maxBytes), sig: this.signature(key, type, expires, maxBytes) });
    return { url: `${this.base}${key}?${query}`, expiresInSeconds };
  }

  async head(key: string): Promise<BlobInfo | null> {
    try {
      const [file, meta] = await Promise.all([stat(this.pathOf(key)), readFile(this.pathOf(key) + META, "utf8")]);
      return { size: file.size, contentType: (JSON.parse(meta) as { contentType?: string }).contentType ?? null };
    } catch {
      return null;
    }
  }

  async read(key: string): Promise<ReadableStream<Uint8Array> | null> {
    if (!(await this.head(key))) return null;
    return Bun.file(this.pathOf(key)).stream();
  }

  /** The object's own file: nothing is copied. */
  async localCopy(key: string, maxBytes: number): Promise<LocalCopy | null> {
    const info = await this.head(key);
    if (!info || info.size > maxBytes) return null;
    return { path: this.pathOf(key), size: info.size, release: async () => {} };
  }

  scratchFile(): ScratchFile {
    const path = join(this.options.dir, TEMP_DIR, crypto.randomUUID());
    return { path, discard: () => rm(path, { force: true }) };
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const temp = join(this.options.dir, TEMP_DIR, crypto.randomUUID());
    await writeFile(temp, bytes);
    await this.publish(temp, key, mediaType(contentType));
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    const temp = join(this.options.dir, TEMP_DIR, crypto.randomUUID());
    try {
      await rename(path, temp);
    } catch (error) {
      // Another file system (a scratch file not made by this store): copied by the kernel, then removed.
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      await copyFile(path, temp);
      await rm(path, { force: true });
    }
    await this.publish(temp, key, mediaType(contentType));
  }

  /** The metadata first, then the file by rename: a reader never sees half an object. */
  private async publish(temp: string, key: string, contentType: string): Promise<void> {
    const path = this.pathOf(key);
    mkdirSync(dirname(path), { recursive: true });
    await writeFile(path + META, JSON.stringify({ contentType }));
    await rename(temp, path);
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(path + META, { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string) => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== TEMP_DIR) await walk(path);
        } else if (!entry.name.endsWith(META) && !entry.name.startsWith(".")) {
          const key = relative(this.options.dir, path).split(sep).join("/");
          if (key.startsWith(prefix)) keys.push(key);
        }
      }
    };
    await walk(this.options.dir);
    return keys.sort();
  }

  publicUrl(key: string): string {
    return this.base + key;
  }

  keyOfUrl(url: string): string | null {
    if (!url.startsWith(this.base)) return null;
    const key = url.slice(this.base.length);
    return isSafeKey(key) ? key : null;
  }

  /** The byte routes under /media/: the signed PUT and the public GET (and HEAD). */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const key = decodeURIComponent(url.pathname.slice(MEDIA_PATH.length));
    if (!isSafeKey(key)) return json(404, "Not Found");
    if (request.method === "PUT") return this.receive(request, key, url.searchParams);
    if (request.method === "GET" || request.method === "HEAD") return this.serve(request, key);
    return json(405, "Method Not Allowed", { allow: "GET, HEAD, PUT, OPTIONS" });
  }

  private async receive(request: Request, key: string, query: URLSearchParams): Promise<Response> {
    const expires = Number(query.get("expires"));
    const maxBytes = Number(query.get("max"));
    const type = query.get("type") ?? "";
    const given = Buffer.from(query.get("sig") ?? "", "utf8");
    const wanted = Buffer.from(this.signature(key, type, expires, maxBytes), "utf8");
    if (!Number.isInteger(expires) || !Number.isInteger(maxBytes) || given.length !== wanted.length || !timingSafeEqual(given, wanted))
      return json(403, "Upload URL signature does not match: use the upload_url exactly as init returned it");
    if (this.now() / 1000 > expires) return json(403, "Upload URL has expired: call init again for a new one");
    if (mediaType(request.headers.get("content-type")) !== type)
      return json(415, `Content-Type must be ${type}, the type this upload URL was issued for`);
    const declared = declaredTooLarge(request.headers, maxBytes);
    if (declared) return declared.response();
    if (await this.head(key)) return json(409, "This upload URL has already been used: call init again to upload another image");
    if (!request.body) return json(400, "The upload has no body: PUT the image bytes");
    const temp = join(this.options.dir, TEMP_DIR, crypto.randomUUID());
    let file: number | null = openSync(temp, "w");
    let size = 0;
    try {
      // Written as it arrives, at once (a write to the page cache takes microseconds; awaiting each
      // one let eight concurrent 20 MB uploads queue tens of MB of received pieces); past the limit
      // the upload stops and nothing is kept.
      for await (const chunk of limitedBytes(request.body, maxBytes, this.timeouts)) {
        size += chunk.byteLength;
        for (let at = 0; at < chunk.byteLength; ) at += writeSync(file, chunk, at);
      }
      closeSync(file);
      file = null;
      if (size === 0) {
        await rm(temp, { force: true });
        return json(400, "The upload has no body: PUT the image bytes");
      }
      await this.publish(temp, key, type);
    } catch (error) {
      if (file !== null) closeSync(file);
      await rm(temp, { force: true });
      if (error instanceof BodyRejected) return error.response();
      throw error;
    }
    return new Response(null, { status: 200, headers: { etag: await this.etagOf(key) } });
  }

  private async etagOf(key: string): Promise<string> {
    const info = await stat(this.pathOf(key));
    return `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  }

  private async serve(request: Request, key: string): Promise<Response> {
    const info = await this.head(key);
    if (!info) return json(404, "Not Found");
    const etag = await this.etagOf(key);
    const headers: Record<string, string> = {
      "content-type": info.contentType ?? "application/octet-stream",
      etag,
      // Objects are never changed in place (a new upload gets a new key).
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cross-origin-resource-policy": "cross-origin",
    };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    if (request.method === "HEAD") return new Response(null, { headers: { ...headers, "content-length": String(info.size) } });
    return new Response(Bun.file(this.pathOf(key)), { headers });
  }
}
