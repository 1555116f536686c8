// Where image bytes live: a local folder served by this service, or any S3-compatible bucket.
// Keys are "/"-separated paths chosen by the application (campaigns/{id}/…); the store never parses them.

export interface BlobInfo {
  size: number;
  contentType: string | null;
}

export interface UploadGrant {
  /** Where the client PUTs the bytes, with the same Content-Type it was granted. */
  url: string;
  expiresInSeconds: number;
}

export interface BlobStore {
  /** "local" or "s3": named in logs and benchmarks. */
  readonly kind: string;
  /**
   * A URL that lets whoever holds it PUT one object at `key` until it expires. Stores that can
   * (the local one) also refuse a body over `maxBytes` while it streams; the others are checked
   * when the upload is completed.
   */
  presignUpload(key: string, options: { contentType: string; expiresInSeconds: number; maxBytes: number }): Promise<UploadGrant>;
  /** Size and content type, or null when there is no such object. */
  head(key: string): Promise<BlobInfo | null>;
  /** The bytes as a stream, or null when there is no such object. */
  read(key: string): Promise<ReadableStream<Uint8Array> | null>;
  /** Writes (or replaces) an object the service made itself (a re-encoded or generated image). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Removes the object; nothing happens when it is already gone. */
  delete(key: string): Promise<void>;
  /** Every key under the prefix (for the orphan sweep and the tests). */
  list(prefix: string): Promise<string[]>;
  /** The public address of the object (served without credentials). */
  publicUrl(key: string): string;
  /** The key of a URL this store hands out, or null for any other URL. */
  keyOfUrl(url: string): string | null;
}
