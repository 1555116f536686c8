// What the application needs from a record store: the planner's statistics of the campaign-sized tables,
// and the visibility map its index-only reads depend on.

export interface PlannerStatistics {
  /**
   * Gathers the statistics of each campaign-sized table that grew by more than a fifth since they were
   * last gathered (or never were); returns the tables it gathered. Cheap when none grew.
   */
  refresh(): Promise<string[]>;
  /**
   * Vacuums each table read by index-only scans whose pages not known all-visible (or rows written
   * since this store's last vacuum of it) passed a twentieth of it, so those scans stop visiting the
   * table's rows; returns the tables it vacuumed. Cheap when none changed.
   */
  refreshVisibility(): Promise<string[]>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    statistics: PlannerStatistics;
  }
}
