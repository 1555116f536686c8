// The campaign a record belongs to, for any kind an operation addresses by id (the table's access declarations).
// Where each kind is stored comes from the table descriptors (`addressedAs`), so a new kind edits nothing here.
import type { OwnerLookup } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";
import { addressedSource } from "./table.ts";

export function owners(db: SqlExecutor): OwnerLookup {
  return {
    async campaignOf(kind, id) {
      const source = addressedSource(kind);
      // A programming error (a kind no table declares), caught by tests/architecture/registration.test.ts.
      if (source === undefined) throw new Error(`No table declares it holds "${kind}" (addressedAs)`);
      const [row] = await db.query<{ campaign_id: string }>(`select campaign_id from ${source}`, [id]);
      return row ? String(row.campaign_id) : null;
    },
  };
}

export const repositories = { owners } satisfies SqlRepositories;
