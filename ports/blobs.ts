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

/** An object as a file on this machine, for as long as it is worked on. */
export interface LocalCopy {
  path: string;
  size: number;
  /** Removes the copy if one was made for the caller (the local store's own file stays). */
  release(): Promise<void>;
}

/** A temporary file for the service to write, then hand to `putFile`. */
export interface ScratchFile {
  path: string;
  /** Removes the file if it is still there (after `putFile` it is not). */
  discard(): Promise<void>;
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
  /**
   * The object as a file on this machine, for work that reads files (sharp reads an upload from
   * disk rather than from one 20 MB buffer): the local store's own file; other stores stream it to
   * a temporary file. Null when there is no such object or it holds more than `maxBytes` bytes.
   */
  localCopy(key: string, maxBytes: number): Promise<LocalCopy | null>;
  /** A new temporary file's path, where `putFile` takes it over cheaply (next to the objects for the local store). */
  scratchFile(): ScratchFile;
  /** Writes (or replaces) an object the service made itself (a re-encoded or generated image). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The same from a file, which the store takes over (moves or streams up, then removes). */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** Removes the object; nothing happens when it is already gone. */
  delete(key: string): Promise<void>;
  /** Every key under the prefix (for the orphan sweep and the tests). */
  list(prefix: string): Promise<string[]>;
  /** The public address of the object (served without credentials). */
  publicUrl(key: string): string;
  /** The key of a URL this store hands out, or null for any other URL. */
  keyOfUrl(url: string): string | null;
}
