// Which campaign a record belongs to: how a record-addressed operation finds the campaign to authorize.

/** Record kinds an operation can address by id. Factions, locations and items, quotes and spotlights are told apart. */
export type OwnedKind =
  | "characters"
  | "factions"
  | "locations"
  | "items"
  | "sessions"
  | "beats"
  | "moments"
  | "quests"
  | "journals"
  | "journal_folders"
  | "hero_awards"
  | "quotes"
  | "spotlights";

export interface OwnerLookup {
  /** The campaign id of the record of that kind, or null when there is none. One indexed read. */
  campaignOf(kind: OwnedKind, id: string): Promise<string | null>;
}
