// Ask's token counters on SQL (ports/records/ask.ts).
import type { AskUsageRepository, UsageCounts, UsageWindows } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";

const countsOf = (rows: { window_kind: unknown; tokens: unknown }[]): UsageCounts => ({
  month: Number(rows.find((r) => r.window_kind === "month")?.tokens ?? 0),
  hour: Number(rows.find((r) => r.window_kind === "hour")?.tokens ?? 0),
});

const ROWS = `values ($1, 'month', $2::timestamptz, greatest(0, $4::bigint)), ($1, 'hour', $3::timestamptz, greatest(0, $4::bigint))`;

export function askUsage(db: SqlExecutor): AskUsageRepository {
  const add = async (userId: string, windows: UsageWindows, tokens: number) =>
    countsOf(
      await db.query<{ window_kind: unknown; tokens: unknown }>(
        `insert into ask_token_usage as u (user_id, window_kind, window_start, tokens) ${ROWS}
         on conflict (user_id, window_kind, window_start) do update set tokens = greatest(0, u.tokens + $4::bigint)
         returning window_kind, tokens`,
        [userId, windows.month, windows.hour, Math.round(tokens)],
      ),
    );
  return {
    async used(userId, windows) {
      return countsOf(
        await db.query<{ window_kind: unknown; tokens: unknown }>(
          `select window_kind, tokens from ask_token_usage
           where user_id = $1 and ((window_kind = 'month' and window_start = $2::timestamptz) or (window_kind = 'hour' and window_start = $3::timestamptz))`,
          [userId, windows.month, windows.hour],
        ),
      );
    },
    async reserve(userId, windows, tokens, limits) {
      // Both rows made if need be and locked (an update to themselves) until the transaction ends,
      // so a concurrent reservation waits and then sees these tokens. Earlier windows go.
      await db.query(
        `delete from ask_token_usage where user_id = $1 and ((window_kind = 'month' and window_start < $2::timestamptz) or (window_kind = 'hour' and window_start < $3::timestamptz))`,
        [userId, windows.month, windows.hour],
      );
      const current = countsOf(
        await db.query<{ window_kind: unknown; tokens: unknown }>(
          `insert into ask_token_usage as u (user_id, window_kind, window_start, tokens) ${ROWS}
           on conflict (user_id, window_kind, window_start) do update set tokens = u.tokens
           returning window_kind, tokens`,
          [userId, windows.month, windows.hour, 0],
        ),
      );
      if (current.month + tokens > limits.month || current.hour + tokens > limits.hour) return null;
      return add(userId, windows, tokens);
    },
    add,
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { askUsage } satisfies SqlRepositories;
