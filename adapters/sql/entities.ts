// The entity (faction, location, item) repository on SQL.
import { entitySearchText, type Entity, type EntityKind } from "../../domain/entities.ts";
import type { EntityRepository } from "../../ports/records.ts";
import type { SqlExecutor } from "./database.ts";
import { counted, paged, Where } from "./rows.ts";
import { searchedList } from "./search.ts";
import { ancestry, boolean, campaignRecord, crud, oneOf, table, text, textList, textOrNull, timestamps } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const ENTITIES = table<Entity>(
  "entities",
  {
    ...campaignRecord,
    kind: oneOf<EntityKind>(),
    name: text,
    aliases: textList,
    description: textOrNull,
    type: textOrNull,
    image: textOrNull,
    tcg_image: textOrNull,
    parent_id: textOrNull,
    merge: boolean,
    ...timestamps,
  },
  {
    addressedAs: { factions: "kind = 'faction'", locations: "kind = 'location'", items: "kind = 'item'" },
    written: { search_text: { value: entitySearchText } },
  },
);

export function entities(db: SqlExecutor): EntityRepository {
  return {
    ...crud(db, ENTITIES),
    async list(campaignId, kind, filters, page) {
      const where = new Where().add(campaignId, (p) => `e.campaign_id = ${p}`).add(kind, (p) => `e.kind = ${p}`);
      const columns = ENTITIES.columns("e");
      const { rows, total } = filters.search
        ? await searchedList(db, columns, "e", where.clauses, where.params, [campaignId, kind], filters.search, page, { campaignId, lists: [kind] })
        : await paged(db, columns, `from entities e where ${where.sql}`, `e.created_at desc, e.id desc`, where.params, page, counted("$1", `${kind}s`), true);
      return { rows: rows.map(ENTITIES.toRecord), total };
    },
    ancestry: (id) => ancestry(db, "entities", id),
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { entities } satisfies SqlRepositories;
