// The S3 blob store: any S3-compatible bucket through Bun's built-in client. Clients PUT straight to
// the bucket with a presigned URL; the public URLs are the bucket's (or S3_PUBLIC_URL's, a CDN).
import { S3Client } from "bun";
import { closeSync, openSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlobInfo, BlobStore, LocalCopy, ScratchFile, UploadGrant } from "../../ports/blobs.ts";
import { isSafeKey } from "./local.ts";

export interface S3BlobOptions {
  /** Null: AWS S3 in `region`. */
  endpoint: string | null;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where the objects are read publicly; the endpoint's path-style bucket URL when absent. */
  publicUrl?: string | null;
}

const missing = (error: unknown): boolean => {
  const code = (error as { code?: string } | null)?.code;
  return code === "NoSuchKey" || code === "NotFound" || code === "ERR_S3_FILE_NOT_FOUND";
};

export class S3BlobStore implements BlobStore {
  readonly kind = "s3";
  private readonly client: S3Client;
  private readonly base: string;

  constructor(options: S3BlobOptions) {
    this.client = new S3Client({
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      bucket: options.bucket,
      region: options.region,
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
    });
    const bucketUrl = options.endpoint ? `${options.endpoint.replace(/\/+$/, "")}/${options.bucket}` : `https://${options.bucket}.s3.${options.region}.amazonaws.com`;
    this.base = (options.publicUrl ?? bucketUrl).replace(/\/+$/, "") + "/";
  }

  private checked(key: string): string {
    if (!isSafeKey(key)) throw new Error(`not a blob key: ${JSON.stringify(key)}`);
    return key;
  }

  async presignUpload(key: string, { contentType, expiresInSeconds }: { contentType: string; expiresInSeconds: number; maxBytes: number }): Promise<UploadGrant> {
    // A presigned PUT cannot carry a size limit: complete checks the size before reading anything.
    const url = this.client.presign(this.checked(key), { method: "PUT", expiresIn: expiresInSeconds, type: contentType });
    return { url, expiresInSeconds };
  }

  async head(key: string): Promise<BlobInfo | null> {
    try {
      const info = await this.client.file(this.checked(key)).stat();
      return { size: info.size, contentType: info.type || null };
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async read(key: string): Promise<ReadableStream<Uint8Array> | null> {
    if (!(await this.head(key))) return null;
    return this.client.file(this.checked(key)).stream();
  }

  /** Streamed to a temporary file, piece by piece; given up on past `maxBytes` (the object can be replaced while its URL lives). */
  async localCopy(key: string, maxBytes: number): Promise<LocalCopy | null> {
    const info = await this.head(key);
    if (!info || info.size > maxBytes) return null;
    const scratch = this.scratchFile();
    const file = openSync(scratch.path, "w");
    let size = 0;
    let kept = false;
    const reader = this.client.file(this.checked(key)).stream().getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) return null;
        for (let at = 0; at < value.byteLength; ) at += writeSync(file, value, at);
      }
      kept = true;
      return { path: scratch.path, size, release: scratch.discard };
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    } finally {
      await reader.cancel().catch(() => {});
      closeSync(file);
      if (!kept) await scratch.discard();
    }
  }

  scratchFile(): ScratchFile {
    const path = join(tmpdir(), `cms-s3-${crypto.randomUUID()}`);
    return { path, discard: () => rm(path, { force: true }) };
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.client.write(this.checked(key), bytes, { type: contentType });
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    await this.client.write(this.checked(key), Bun.file(path), { type: contentType });
    await rm(path, { force: true });
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.delete(this.checked(key));
    } catch (error) {
      if (!missing(error)) throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.client.list({ prefix, ...(startAfter ? { startAfter } : {}), maxKeys: 1000 });
      const found = (page.contents ?? []).map((item) => item.key);
      keys.push(...found);
      if (!page.isTruncated || !found.length) break;
      startAfter = found[found.length - 1];
    }
    return keys.sort();
  }

  publicUrl(key: string): string {
    return this.base + this.checked(key).split("/").map(encodeURIComponent).join("/");
  }

  keyOfUrl(url: string): string | null {
    if (!url.startsWith(this.base)) return null;
    let key: string;
    try {
      key = decodeURIComponent(url.slice(this.base.length));
    } catch {
      return null;
    }
    return isSafeKey(key) ? key : null;
  }
}
