// The character repository on SQL.
import { characterSearchText, type Character, type CharacterType } from "../../domain/characters.ts";
import type { CharacterRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { counted, countedBy, paged, Where } from "./rows.ts";
import { searchedList } from "./search.ts";
import { boolean, campaignRecord, crud, oneOf, table, text, textList, textOrNull, timestamps } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const CHARACTERS = table<Character>(
  "characters",
  {
    ...campaignRecord,
    character_name: text,
    character_aliases: textList,
    player_name: textOrNull,
    player_handle: textOrNull,
    speaker_id: textOrNull,
    description: textOrNull,
    backstory: textOrNull,
    type: oneOf<CharacterType>(),
    image: textOrNull,
    tcg_image: textOrNull,
    approved: boolean,
    merge: boolean,
    ...timestamps,
  },
  { addressedAs: "characters", written: { search_text: { value: characterSearchText } } },
);

export function characters(db: SqlExecutor): CharacterRepository {
  return {
    ...crud(db, CHARACTERS),
    async list(campaignId, filters, page) {
      const where = new Where().add(campaignId, (p) => `c.campaign_id = ${p}`);
      if (filters.type) where.add(filters.type, (p) => `c.type = ${p}`);
      if (filters.approvedOnly) where.also(`c.approved`);
      const columns = CHARACTERS.columns("c");
      const lists = filters.approvedOnly ? ["characters"] : ["characters", "characters:unapproved"];
      const { rows, total } = filters.search
        ? await searchedList(db, columns, "c", where.clauses, where.params, [campaignId, Boolean(filters.approvedOnly), filters.type ?? null], filters.search, page,
            // search_terms lists characters by approval (migration 0025); a type filter counts its matches,
            // except a one-word total, which counters per list, prefix and type give (0045).
            filters.type ? undefined : { campaignId, lists },
            { campaignId, lists, type: filters.type ?? null })
        : await paged(db, columns, `from characters c where ${where.sql}`, `c.created_at desc, c.id desc`, where.params, page,
            // The total is a counter: the campaign's, or its type's ($2, migration 0029).
            filters.type
              ? countedBy("$1", filters.approvedOnly ? "characters:approved:type:" : "characters:type:", "$2")
              : counted("$1", filters.approvedOnly ? "characters:approved" : "characters"),
            !filters.type);
      return { rows: rows.map(CHARACTERS.toRecord), total };
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { characters } satisfies SqlRepositories;
