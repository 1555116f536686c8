// What the application needs from a record store: Ask's token counters, per user, kept in the
// store so that every instance of the service counts against the same budget.

/** The calendar windows a count belongs to: the start of the current UTC month and hour (ISO). */
export interface UsageWindows {
  month: string;
  hour: string;
}

export interface UsageCounts {
  month: number;
  hour: number;
}

export interface AskUsageRepository {
  /** Tokens the user has used in these windows. */
  used(userId: string, windows: UsageWindows): Promise<UsageCounts>;
  /**
   * Adds `tokens` to both windows when both stay within their limits and answers the new counts;
   * adds nothing and answers null otherwise. Inside a transaction, concurrent reservations never both
   * pass a limit (the rows stay locked until it ends).
   */
  reserve(userId: string, windows: UsageWindows, tokens: number, limits: UsageCounts): Promise<UsageCounts | null>;
  /**
   * Adds `tokens` to both windows whatever the limits (what an answer already used) and answers the
   * new counts; a negative number gives tokens back (never below zero).
   */
  add(userId: string, windows: UsageWindows, tokens: number): Promise<UsageCounts>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    askUsage: AskUsageRepository;
  }
}
