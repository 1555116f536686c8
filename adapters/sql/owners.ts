// The campaign a record belongs to, for any kind an operation addresses by id (the table's access declarations).
import type { OwnedKind, OwnerLookup } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";

/** Table and, where one table holds several kinds, the condition that picks the kind. */
const SOURCES: Record<OwnedKind, string> = {
  characters: "characters where id = $1",
  factions: "entities where id = $1 and kind = 'faction'",
  locations: "entities where id = $1 and kind = 'location'",
  items: "entities where id = $1 and kind = 'item'",
  sessions: "sessions where id = $1",
  beats: "beats where id = $1",
  moments: "moments where id = $1",
  quests: "quests where id = $1",
  journals: "journal_entries where id = $1",
  journal_folders: "journal_folders where id = $1",
  hero_awards: "hero_awards where id = $1",
  quotes: "recap_entries where id = $1 and entry_type = 'quote'",
  spotlights: "recap_entries where id = $1 and entry_type = 'spotlight'",
};

export function owners(db: SqlExecutor): OwnerLookup {
  return {
    async campaignOf(kind, id) {
      const [row] = await db.query<{ campaign_id: string }>(`select campaign_id from ${SOURCES[kind]}`, [id]);
      return row ? String(row.campaign_id) : null;
    },
  };
}
