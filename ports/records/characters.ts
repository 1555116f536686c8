// What the application needs from a record store: characters.
import type { Character, CharacterType } from "../../domain/characters.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, ReadOptions } from "../records.ts";

export interface CharacterFilters {
  search?: string;
  type?: CharacterType;
  approvedOnly: boolean;
}

export interface CharacterRepository {
  insert(character: Character): Promise<void>;
  /** Writes every field of an existing character. */
  replace(character: Character): Promise<void>;
  get(id: string, options?: ReadOptions): Promise<Character | null>;
  list(campaignId: string, filters: CharacterFilters, page: PageRequest): Promise<Listing<Character>>;
  delete(id: string): Promise<boolean>;
}
