// What the application needs from a record store: moments.
import type { Moment } from "../../domain/moments.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, Stored } from "../records.ts";

export interface MomentFilters {
  campaignId?: string;
  sessionId?: string;
  sessionIds?: string[];
  search?: string;
  categories?: string[];
  kind?: string;
  /** Moments linked (through their links) to any of these records. */
  linkedTo?: string[];
}

export interface MomentRepository extends Stored<Moment> {
  list(filters: MomentFilters, page: PageRequest): Promise<Listing<Moment>>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    moments: MomentRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    moments: Moment;
  }
}
