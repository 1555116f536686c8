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
