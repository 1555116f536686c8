// What the application needs from a record store to keep list search's word counters one row a key:
// concurrent writers spread them over slots (migration 0058), and reads cost more the more a key has.

export interface SearchCounterMaintenance {
  /**
   * Folds the search counters that concurrent writers spread over slots back into one row a key,
   * skipping rows a writer holds; returns how many keys it visited. Cheap when none are spread.
   */
  foldSlots(): Promise<number>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    searchCounters: SearchCounterMaintenance;
  }
}
