export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** Opaque, unique, roughly time-sortable. */
  next(): string;
}

export interface KeyMinter {
  /** A new secret API key, shown to its owner once. */
  mint(): string;
  /** One-way, deterministic digest under which a key is stored and looked up. */
  digest(key: string): string;
  /** A new random secret (256 bits) after `prefix`: OAuth codes, tokens, sign-ins. */
  secret(prefix: string): string;
  /** The PKCE S256 challenge of a verifier (RFC 7636 4.2): base64url of its SHA-256. */
  s256(verifier: string): string;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Nudges this instance's background worker that a task is waiting (others find it by polling). */
export interface TaskSignal {
  wake(): void;
}

/** An incremental SHA-256 (the export's checksum over text streamed piece by piece). */
export interface Digests {
  sha256(): { update(data: string | Uint8Array): void; hex(): string };
}
