// What the application needs from a record store: the planner's statistics of the campaign-sized tables.

export interface PlannerStatistics {
  /**
   * Gathers the statistics of each campaign-sized table that grew by more than a fifth since they were
   * last gathered (or never were); returns the tables it gathered. Cheap when none grew.
   */
  refresh(): Promise<string[]>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    statistics: PlannerStatistics;
  }
}
