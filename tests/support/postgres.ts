// Test databases on a real PostgreSQL server: each suite gets a fresh database and drops it after.
import postgres from "postgres";

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let reachable: Promise<string | null> | null = null;

/** Null when reachable; otherwise why not. */
export function postgresUnavailableReason(): Promise<string | null> {
  reachable ??= (async () => {
    const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
    try {
      await sql`select 1`;
      return null;
    } catch (error) {
      return `PostgreSQL at ${POSTGRES_ADMIN_URL} is not reachable (${(error as Error).message})`;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
  })();
  return reachable;
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(label = "t"): Promise<ScratchDatabase> {
  const name = `cms_${label}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const sql = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    },
  };
}
