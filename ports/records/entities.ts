// What the application needs from a record store: factions, locations and items.
import type { Entity, EntityKind } from "../../domain/entities.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, Stored } from "../records.ts";

export interface EntityRepository extends Stored<Entity> {
  list(campaignId: string, kind: EntityKind, filters: { search?: string }, page: PageRequest): Promise<Listing<Entity>>;
  /** Parent of each location on the way up from `id` (for cycle checks). */
  ancestry(id: string): Promise<Map<string, string | null>>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    entities: EntityRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    factions: Entity;
    locations: Entity;
    items: Entity;
  }
}
