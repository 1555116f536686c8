// Plans and statements for the tests that check how a repository's statements are planned (issue 15).
import type { Row, SqlExecutor } from "../../adapters/sql/database.ts";

/** A node of `explain (format json)`: the fields the plan tests read. */
export type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Subplan Name"?: string;
  "Heap Fetches"?: number;
  "Actual Rows"?: number;
  "Total Cost": number;
  Plans?: PlanNode[];
};

/** The node and every node below it. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

export interface CapturedStatement {
  sql: string;
  params: unknown[];
}

/** An executor that runs every statement on `db` and keeps it, to explain the ones a repository sent. */
export function capturingExecutor(db: SqlExecutor): { executor: SqlExecutor; statements: CapturedStatement[] } {
  const statements: CapturedStatement[] = [];
  const executor = { query: (sql: string, params: unknown[] = []): Promise<Row[]> => (statements.push({ sql, params }), db.query(sql, params)) } as SqlExecutor;
  return { executor, statements };
}
