// Which campaign a record belongs to: how a record-addressed operation finds the campaign to authorize.

/**
 * Record kinds an operation can address by id, each with its record type. Empty here: each kind's
 * port file adds its own (`declare module "./owners.ts" { interface AddressedKinds {…} }`), and the
 * SQL table descriptor that holds them says so (`addressedAs`). Factions, locations and items,
 * quotes and spotlights are told apart.
 */
export interface AddressedKinds {}

export type OwnedKind = keyof AddressedKinds & string;

export interface OwnerLookup {
  /** The campaign id of the record of that kind, or null when there is none. One indexed read. */
  campaignOf(kind: OwnedKind, id: string): Promise<string | null>;
}

declare module "../records.ts" {
  interface Repositories {
    owners: OwnerLookup;
  }
}
