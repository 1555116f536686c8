// The record ports on SQL: one query set for PGlite and PostgreSQL. Each kind's repository is in its own file; this composes them.
import type { RecordStore, Repositories } from "../../ports/records.ts";
import { beats } from "./beats.ts";
import { campaigns, members, settings } from "./campaigns.ts";
import { characters } from "./characters.ts";
import type { SqlDatabase, SqlExecutor } from "./database.ts";
import { entities } from "./entities.ts";
import { apiKeys, users } from "./identity.ts";
import { folders, journals } from "./journals.ts";
import { links, lookup, tasks } from "./links.ts";
import { migrationStatus } from "./migrate.ts";
import { moments } from "./moments.ts";
import { oauth, rateLimitStore } from "./oauth.ts";
import { owners } from "./owners.ts";
import { quests } from "./quests.ts";
import { recaps } from "./recaps.ts";
import { searchIndex } from "./search.ts";
import { castAnalyses, handouts, sessions, transcripts } from "./sessions.ts";
import { speakers } from "./speakers.ts";

const repositoriesOn = (db: SqlExecutor): Repositories => ({
  users: users(db),
  apiKeys: apiKeys(db),
  campaigns: campaigns(db),
  members: members(db),
  speakers: speakers(db),
  settings: settings(db),
  characters: characters(db),
  entities: entities(db),
  links: links(db),
  lookup: lookup(db),
  search: searchIndex(db),
  tasks: tasks(db),
  sessions: sessions(db),
  quests: quests(db),
  journals: journals(db),
  folders: folders(db),
  transcripts: transcripts(db),
  castAnalyses: castAnalyses(db),
  handouts: handouts(db),
  beats: beats(db),
  moments: moments(db),
  recaps: recaps(db),
  owners: owners(db),
  oauth: oauth(db),
  rateLimits: rateLimitStore(db),
});

/** Carries a use case's failed Result out of the transaction, which the throw rolls back. */
class RolledBack extends Error {
  constructor(readonly result: unknown) {
    super("rolled back: the use case failed");
  }
}

const isFailedResult = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false && "error" in value;

export function sqlRecordStore(db: SqlDatabase): RecordStore {
  return {
    backend: db.backend,
    ...repositoriesOn(db),
    withTransaction: async (work, options) => {
      try {
        return await db.transaction(async (tx) => {
          const result = await work(repositoriesOn(tx));
          if (isFailedResult(result)) throw new RolledBack(result);
          return result;
        }, options);
      } catch (error) {
        if (error instanceof RolledBack) return error.result as Awaited<ReturnType<typeof work>>;
        throw error;
      }
    },
    async health() {
      const started = performance.now();
      const migrations = await migrationStatus(db);
      return { backend: db.backend, latency_ms: Math.round((performance.now() - started) * 100) / 100, migrations };
    },
    close: () => db.close(),
  };
}
