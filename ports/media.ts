// What the application needs to write and draw: a handout writer (a language model, or an offline
// extractive one) and a renderer for recap cards.
import type { Moment } from "../domain/moments.ts";
import type { Handout } from "../domain/sessions.ts";
import type { Beat } from "../domain/beats.ts";
import type { HeroAward } from "../domain/recaps.ts";
import type { StoredUtterance } from "../domain/transcripts.ts";

export interface HandoutMaterial {
  session: { title: string; summary: string | null; session_date: string };
  utterances: StoredUtterance[];
  beats: Beat[];
  moments: Moment[];
  characters: { name: string; aliases: string[]; description: string | null; speaker: string | null }[];
  entities: { kind: "faction" | "location" | "item"; name: string; aliases: string[]; description: string | null }[];
  gmSpeakers: string[];
}

export interface HandoutWriter {
  /** Names the method in the stored handout's source: "extractive" offline, a model name otherwise. */
  readonly name: string;
  write(material: HandoutMaterial): Promise<Handout>;
}

export interface CardRenderer {
  readonly size: { width: number; height: number; portraitHeight: number };
  heroAward(award: HeroAward): Promise<Uint8Array>;
}

/** What is known of a checked image, re-encoded without its metadata. */
export interface CleanedImageInfo {
  format: "jpeg" | "png" | "webp" | "gif" | "avif";
  contentType: string;
  width: number;
  height: number;
}

/** A checked image, re-encoded without its metadata, in memory. */
export interface CleanedImage extends CleanedImageInfo {
  bytes: Uint8Array;
}

/** A checked image, re-encoded without its metadata, written to a file (never held in memory whole). */
export interface CleanedFile extends CleanedImageInfo {
  path: string;
  size: number;
}

export interface ImageLimits {
  maxBytes: number;
  /** Width × height (all frames of an animation together); larger images are refused before decoding. */
  maxPixels: number;
}

export type Cleaned<T> = { ok: true; image: T } | { ok: false; problem: string };

export interface ImageProcessor {
  /**
   * Checks that the bytes are a real image of an allowed format within the limits and re-encodes
   * it with every piece of metadata (EXIF, GPS, comments) left out; otherwise says what is wrong.
   */
  clean(bytes: Uint8Array, limits: ImageLimits): Promise<Cleaned<CleanedImage>>;
  /**
   * The same, from the file `input` into the file `output` (an upload of 20 MB is then never a
   * 20 MB buffer, nor is its re-encoding). `output` is written only when the answer is ok.
   */
  cleanFile(input: string, output: string, limits: ImageLimits): Promise<Cleaned<CleanedFile>>;
}

/** Decides whether an image may be kept ("none" allows everything). */
export interface ImageModerator {
  readonly name: string;
  /** Given the bytes, or the file they were written to (a moderator that needs the bytes reads it). */
  review(image: CleanedImage | CleanedFile): Promise<{ allowed: true } | { allowed: false; reason: string }>;
}

/** Draws an image from a prompt (a Gemini image model). */
export interface ImageGenerator {
  readonly model: string;
  generate(prompt: string): Promise<{ bytes: Uint8Array; contentType: string }>;
}
