// What the application needs from a record store: speakers.
import type { Speaker } from "../../domain/speakers.ts";

export interface SpeakerRepository {
  /** Returns null when the campaign already has a speaker of that name. */
  insert(speaker: Speaker): Promise<Speaker | null>;
  get(id: string): Promise<Speaker | null>;
  list(campaignId: string): Promise<Speaker[]>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    speakers: SpeakerRepository;
  }
}
