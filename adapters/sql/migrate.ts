import type { SqlDatabase } from "./database.ts";

export interface Migration {
  version: string; // e.g. "0001_foundation", applied in lexical order
  sql: string;
}

// Any instance may start first; the transaction-scoped advisory lock makes the others wait.
const LOCK_KEY = 727_001;

export async function applyMigrations(db: SqlDatabase, migrations: readonly Migration[]): Promise<string[]> {
  await db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock($1::bigint)`, [LOCK_KEY]);
    await tx.exec(`create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`);
  });
  const applied: string[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version.localeCompare(b.version))) {
    await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock($1::bigint)`, [LOCK_KEY]);
      const done = await tx.query(`select 1 from schema_migrations where version = $1`, [migration.version]);
      if (done.length) return;
      await tx.exec(migration.sql);
      await tx.query(`insert into schema_migrations (version) values ($1)`, [migration.version]);
      applied.push(migration.version);
    });
  }
  return applied;
}

export async function migrationStatus(db: SqlDatabase): Promise<{ applied: number; latest: string | null }> {
  const [row] = await db.query<{ applied: number; latest: string | null }>(
    `select count(*)::int as applied, max(version) as latest from schema_migrations`,
  );
  return { applied: row?.applied ?? 0, latest: row?.latest ?? null };
}
