// Links, the record lookup wikilinks resolve through, and background tasks on SQL.
import type { EntityKind } from "../../domain/entities.ts";
import type { Link, LinkFromType, LinkToType } from "../../domain/links.ts";
import type { LinkRepository, LookupRepository, RecordRef, Task, TaskRepository, TextSource } from "../../ports/records.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { VISIBLE_TO } from "./journals.ts";
import { counted, countedBy, iso, isUniqueViolation, json, jsonArray, likePattern, lockClause, paged, str, Where } from "./rows.ts";
import { campaignRecord, crud, integer, jsonb, jsonOf, oneOf, table, text, textOrNull, timestamptz, timestamptzOrNull } from "./table.ts";
import type { SqlRepositories } from "./records.ts";

const LINKS = table<Link>("links", {
  ...campaignRecord,
  from_id: text,
  from_type: oneOf<LinkFromType>(),
  to_id: text,
  to_type: oneOf<LinkToType>(),
  alias: text,
  created_at: timestamptz,
});
const LINK_COLUMNS = LINKS.columns("l");
const toLink = LINKS.toRecord;

/**
 * A link whose source or target is a journal entry shows only to those who may see that entry.
 * `offset 0` keeps each check a lookup of that one entry by id: without it the planner may turn the
 * check into a hash of every visible journal entry of every campaign, built when the first page
 * holds one journal link (100k entries: 138 ms for 20 links).
 */
const JOURNAL_ENDS_VISIBLE = (viewer: string) =>
  `(l.from_type <> 'Journal' or exists (select 1 from journal_entries j where j.id = l.from_id and ${VISIBLE_TO("j", viewer)} offset 0))
   and (l.to_type <> 'Journal' or exists (select 1 from journal_entries j where j.id = l.to_id and ${VISIBLE_TO("j", viewer)} offset 0))`;

export function links(db: SqlExecutor): LinkRepository {
  return {
    async upsert(link) {
      const [row] = await db.query(
        `insert into links as l (id, campaign_id, from_id, from_type, to_id, to_type, alias, alias_key, origin, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
         on conflict (from_type, from_id, alias_key) do update
           set to_id = excluded.to_id, to_type = excluded.to_type, alias = excluded.alias, origin = excluded.origin
         returning ${LINK_COLUMNS}`,
        [link.id, link.campaign_id, link.from_id, link.from_type, link.to_id, link.to_type, link.alias, link.alias_key, link.origin, link.created_at],
      );
      return toLink(row!);
    },
    get: crud(db, LINKS).get,
    async list(campaignId, filters, page, viewerId) {
      // A record's links (by target or source) are read from that id's index and sorted: the campaign
      // kept out of btree reach (`|| ''`), else the planner walked the campaign's links newest first
      // and, when the record's visible links are few or old, read all of them (500k: 178 ms for none).
      const byRecord = filters.to_id !== undefined || filters.from_id !== undefined;
      const where = new Where().add(campaignId, (p) => (byRecord ? `l.campaign_id || '' = ${p}` : `l.campaign_id = ${p}`));
      if (viewerId !== null) where.add(viewerId, JOURNAL_ENDS_VISIBLE);
      for (const column of ["to_id", "from_id", "to_type", "from_type"] as const) {
        if (filters[column] !== undefined) where.add(filters[column], (p) => `l.${column} = ${p}`);
      }
      if (filters.alias !== undefined) where.add(filters.alias.trim().toLowerCase().replace(/\s+/g, " "), (p) => `l.alias_key = ${p}`);
      // Unfiltered, the total is the campaign's counter, less (for a viewer who is not the GM) the
      // links to or from entries they may not see: a count over the campaign's journal links only.
      // Filtered by one end's type alone, the same from that type's counter (migration 0029), less the
      // hidden journal links with that type.
      const base = viewerId === null ? 1 : 2;
      const byType = where.params.length === base + 1 && (filters.to_type !== undefined ? "to" : filters.from_type !== undefined ? "from" : null);
      const typeParam = `$${base + 1}`;
      const [counter, hiddenOfType] =
        where.params.length === base ? [counted("$1", "links"), ""]
        : byType ? [countedBy("$1", `links:${byType}:`, typeParam), ` and l.${byType}_type = ${typeParam}`]
        : [undefined, ""];
      const count = counter === undefined || viewerId === null
        ? counter
        : `(${counter} - (select count(*) from links l where l.campaign_id = $1 and (l.from_type = 'Journal' or l.to_type = 'Journal') and not (${JOURNAL_ENDS_VISIBLE("$2")})${hiddenOfType}))`;
      const { rows, total } = await paged(db, LINK_COLUMNS, `from links l where ${where.sql}`, `l.created_at desc, l.id desc`, where.params, page, count, where.params.length === base);
      return { rows: rows.map(toLink), total };
    },
    async updateAlias(id, alias, aliasKey) {
      try {
        const [row] = await db.query(`update links l set alias = $2, alias_key = $3 where l.id = $1 returning ${LINK_COLUMNS}`, [id, alias, aliasKey]);
        return row ? toLink(row) : null;
      } catch (error) {
        if (isUniqueViolation(error)) return "conflict";
        throw error;
      }
    },
    delete: crud(db, LINKS).delete,
    async deleteTouching(recordId) {
      return (await db.query(`delete from links where from_id = $1 or to_id = $1 returning id`, [recordId])).length;
    },
    async pruneWikilinks(fromType, fromId, keep) {
      const rows = await db.query(
        `delete from links where from_type = $1 and from_id = $2 and origin = 'wikilink'
           and not (alias_key = any (select jsonb_array_elements_text($3::text::jsonb))) returning id`,
        [fromType, fromId, json(keep)],
      );
      return rows.length;
    },
    async listTo(campaignId, toId) {
      const rows = await db.query(`select ${LINK_COLUMNS} from links l where l.campaign_id = $1 and l.to_id = $2 order by l.created_at`, [campaignId, toId]);
      return rows.map(toLink);
    },
    async retarget(linkIds, toType, toId) {
      if (!linkIds.length) return;
      await db.query(`update links set to_type = $2, to_id = $3 where id = any (select jsonb_array_elements_text($1::text::jsonb))`, [json(linkIds), toType, toId]);
    },
  };
}

const ENTITY_TYPE_NAMES: Record<string, EntityKind> = { Faction: "faction", Location: "location", Item: "item" };

/** Text fields that hold wikilinks, per table: [link source type, table, id column, text column]. */
const TEXT_FIELDS: [LinkFromType, string, string][] = [
  ["Character", "characters", "description"],
  ["Backstory", "characters", "backstory"],
  ["World", "campaigns", "summary"],
  ["GameSession", "sessions", "summary"],
];

export function lookup(db: SqlExecutor): LookupRepository {
  return {
    async findRecord(type, id) {
      let row: Row | undefined;
      if (type === "Character" || type === "Backstory") {
        [row] = await db.query(`select id, campaign_id, character_name as name from characters where id = $1`, [id]);
      } else if (ENTITY_TYPE_NAMES[type]) {
        [row] = await db.query(`select id, campaign_id, name from entities where id = $1 and kind = $2`, [id, ENTITY_TYPE_NAMES[type]]);
      } else if (type === "GameSession") {
        [row] = await db.query(`select id, campaign_id, title as name from sessions where id = $1`, [id]);
      } else if (type === "Journal") {
        [row] = await db.query(`select id, campaign_id, title as name from journal_entries where id = $1`, [id]);
      } else if (type === "World") {
        [row] = await db.query(`select id, id as campaign_id, title as name from campaigns where id = $1`, [id]);
      } else if (type === "Beat") {
        [row] = await db.query(`select id, campaign_id, label as name from beats where id = $1`, [id]);
      } else if (type === "Moment") {
        [row] = await db.query(`select id, campaign_id, coalesce(label, '') as name from moments where id = $1`, [id]);
      }
      return row ? { type: type as RecordRef["type"], id: str(row.id), campaign_id: str(row.campaign_id), name: str(row.name) } : null;
    },
    async resolveNames(campaignId, keys) {
      if (!keys.length) return [];
      // Two statements, as a locking read cannot be a union. `for share`: a target being deleted
      // meanwhile is either waited for (and then not found) or waits for the link to be made
      // (and then removes it), so no link is left pointing at a deleted record.
      const wanted = `with wanted as (select jsonb_array_elements_text($2::text::jsonb) as key)`;
      const characterRows = await db.query(
        `${wanted} select 'Character' as type, c.id, c.character_name as name, c.character_aliases as aliases, c.created_at
         from characters c where c.campaign_id = $1
          and (lower(c.character_name) in (select key from wanted)
               or exists (select 1 from jsonb_array_elements_text(c.character_aliases) a where lower(a) in (select key from wanted)))
         order by c.id for share of c`,
        [campaignId, json(keys)],
      );
      const entityRows = await db.query(
        `${wanted} select initcap(e.kind) as type, e.id, e.name, e.aliases, e.created_at
         from entities e where e.campaign_id = $1
          and (lower(e.name) in (select key from wanted)
               or exists (select 1 from jsonb_array_elements_text(e.aliases) a where lower(a) in (select key from wanted)))
         order by e.id for share of e`,
        [campaignId, json(keys)],
      );
      const rows = [...characterRows, ...entityRows].sort((a, b) => iso(a.created_at).localeCompare(iso(b.created_at)));
      return rows.map((row) => ({ type: str(row.type) as RecordRef["type"], id: str(row.id), campaign_id: campaignId, name: str(row.name), aliases: jsonArray(row.aliases) }));
    },
    async textsMentioning(campaignId, needle, options) {
      const sources: TextSource[] = [];
      const pattern = likePattern(needle);
      for (const [sourceType, table, column] of TEXT_FIELDS) {
        const campaignColumn = table === "campaigns" ? "id" : "campaign_id";
        const rows = await db.query(`select id, ${column} as text from ${table} where ${campaignColumn} = $1 and ${column} ilike $2 order by id${lockClause(options)}`, [campaignId, pattern]);
        for (const row of rows) sources.push({ sourceType, sourceId: str(row.id), field: `${table}.${column}`, text: str(row.text) });
      }
      const rows = await db.query(`select id, kind, description as text from entities where campaign_id = $1 and description ilike $2 order by id${lockClause(options)}`, [campaignId, pattern]);
      for (const row of rows) {
        const kind = str(row.kind);
        sources.push({ sourceType: (kind[0]!.toUpperCase() + kind.slice(1)) as LinkFromType, sourceId: str(row.id), field: "entities.description", text: str(row.text) });
      }
      return sources;
    },
    async writeText(source, text, at) {
      const [table, column] = source.field.split(".") as [string, string];
      const allowed = [...TEXT_FIELDS.map(([, t, c]) => `${t}.${c}`), "entities.description"];
      if (!allowed.includes(source.field)) throw new Error(`not a text field: ${source.field}`);
      await db.query(`update ${table} set ${column} = $2, updated_at = $3::timestamptz where id = $1`, [source.sourceId, text, at]);
    },
  };
}

const TASKS = table<Task>("tasks", {
  id: text,
  campaign_id: textOrNull,
  kind: oneOf<Task["kind"]>(),
  status: oneOf<Task["status"]>(),
  payload: jsonOf<Task["payload"]>(),
  result: jsonb<Task["result"]>(null),
  error: textOrNull,
  attempts: integer,
  created_by: textOrNull,
  created_at: timestamptz,
  started_at: timestamptzOrNull,
  finished_at: timestamptzOrNull,
});
const toTask = TASKS.toRecord;

export function tasks(db: SqlExecutor): TaskRepository {
  return {
    async insert(task) {
      const [row] = await db.query(
        `insert into tasks (id, campaign_id, kind, payload, created_by, created_at) values ($1, $2, $3, $4::text::jsonb, $5, $6::timestamptz) returning *`,
        [task.id, task.campaign_id, task.kind, json(task.payload), task.created_by, task.created_at],
      );
      return toTask(row!);
    },
    get: crud(db, TASKS).get,
    async claim(at, leaseUntil) {
      const [row] = await db.query(
        `update tasks set status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, $1::timestamptz), lease_until = $2::timestamptz
         where id = (select id from tasks
                     where status = 'queued' or (status = 'running' and lease_until < $1::timestamptz)
                     order by created_at limit 1 for update skip locked)
         returning *`,
        [at, leaseUntil],
      );
      return row ? toTask(row) : null;
    },
    async finish(id, status, result, error, at) {
      await db.query(
        `update tasks set status = $2, result = $3::text::jsonb, error = $4, finished_at = $5::timestamptz, lease_until = null where id = $1`,
        [id, status, result === null ? null : json(result), error, at],
      );
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { links, lookup, tasks } satisfies SqlRepositories;
