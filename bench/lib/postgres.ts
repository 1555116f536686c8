// Scratch PostgreSQL databases (cms_bench_*), created for a run and dropped at its end.
import postgres from "postgres";
import { atCleanup } from "./lifecycle.ts";

const adminConnection = (serverUrl: string) => postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });

export interface ScratchDatabase {
  name: string;
  url: string;
}

/**
 * Creates `<prefix>_<time>_<random>` on the server of `serverUrl` and drops it at clean-up (unless
 * `keep`, which only says it was kept).
 */
export async function createScratchDatabase(serverUrl: string, prefix = "cms_bench", keep = false): Promise<ScratchDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = adminConnection(serverUrl);
  try {
    await admin.unsafe(`create database ${name}`);
    // BENCH_DB_SETTINGS="log_lock_waits=on,deadlock_timeout=200ms": settings of this database only
    // (diagnosis: the server's own configuration is shared), in force for every connection to it.
    for (const setting of (process.env.BENCH_DB_SETTINGS ?? "").split(",").filter((s) => s.trim())) {
      const [key, value] = setting.split("=").map((part) => part.trim());
      if (!key || !/^[a-z_]+$/.test(key) || value === undefined) throw new Error(`BENCH_DB_SETTINGS: not name=value: ${setting}`);
      await admin.unsafe(`alter database ${name} set ${key} = '${value.replace(/'/g, "''")}'`);
    }
  } finally {
    await admin.end({ timeout: 2 });
  }
  atCleanup(async () => {
    if (keep) return console.log(`kept database ${name} (BENCH_KEEP_DB)`);
    await dropScratchDatabase(serverUrl, name).then(
      () => console.log(`dropped database ${name}`),
      (error) => console.error(`could not drop database ${name}: ${(error as Error).message}`),
    );
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropScratchDatabase(serverUrl: string, name: string) {
  const admin = adminConnection(serverUrl);
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end({ timeout: 2 });
  }
}

/** The server's version and the two settings that bound a benchmark, for the record. */
export async function postgresInfo(serverUrl: string): Promise<Record<string, string>> {
  const sql = adminConnection(serverUrl);
  try {
    const [row] = await sql`select version() as version, current_setting('max_connections') as max_connections,
      current_setting('shared_buffers') as shared_buffers`;
    return { version: String(row!.version), max_connections: String(row!.max_connections), shared_buffers: String(row!.shared_buffers) };
  } finally {
    await sql.end({ timeout: 2 });
  }
}
