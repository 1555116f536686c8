// The blob stores a suite runs against: the local folder (its byte routes on a real listening
// server) and S3 through a real S3 wire-protocol server (s3rver) started in this process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { LocalBlobStore, MEDIA_PATH } from "../../adapters/blobs/local.ts";
import { S3BlobStore } from "../../adapters/blobs/s3.ts";
import type { BlobStore } from "../../ports/blobs.ts";

export interface RunningBlobStore {
  name: "local" | "s3";
  store: BlobStore;
  stop(): Promise<void>;
}

/** s3rver's fixed credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface RunningS3rver {
  endpoint: string;
  bucket: string;
  /** The S3_* variables a service needs to use it. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** A real S3 wire-protocol server on a free port, with one empty bucket. */
export async function startS3rver(bucket = "images"): Promise<RunningS3rver> {
  const directory = mkdtempSync(join(tmpdir(), "cms-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function startLocalBlobStore(options: { now?: () => number } = {}): Promise<RunningBlobStore> {
  const dir = mkdtempSync(join(tmpdir(), "cms-blobs-"));
  let store!: LocalBlobStore;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => (new URL(request.url).pathname.startsWith(MEDIA_PATH) ? store.handle(request) : new Response("Not Found", { status: 404 })),
  });
  store = new LocalBlobStore({ dir, publicBaseUrl: `http://127.0.0.1:${server.port}`, now: options.now });
  return {
    name: "local",
    store,
    stop: async () => {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startS3BlobStore(): Promise<RunningBlobStore> {
  const s3 = await startS3rver();
  const store = new S3BlobStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: "us-east-1", ...S3RVER_CREDENTIALS });
  return { name: "s3", store, stop: () => s3.stop() };
}

export const BLOB_STORES = [
  { name: "local", start: () => startLocalBlobStore() },
  { name: "s3", start: () => startS3BlobStore() },
] as const;
