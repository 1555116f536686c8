// What the application needs from a record store: characters.
import type { Character, CharacterType } from "../../domain/characters.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, Stored } from "../records.ts";

export interface CharacterFilters {
  search?: string;
  type?: CharacterType;
  approvedOnly: boolean;
}

export interface CharacterRepository extends Stored<Character> {
  list(campaignId: string, filters: CharacterFilters, page: PageRequest): Promise<Listing<Character>>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    characters: CharacterRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    characters: Character;
  }
}
