// Copies a PostgreSQL database the service wrote (e.g. a 100k search seed kept with BENCH_KEEP_DB)
// into a PGlite folder with the same schema, row for row. Seeding PGlite itself runs every per-row
// trigger (Ask passages and terms, change feed) in single-threaded WebAssembly: about 1.7 ms of CPU
// a row, hours for the 100k seed; PostgreSQL runs the same trigger functions natively, so the copy
// holds what the service would (counters, search documents, Ask rows), written once by them.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import postgres from "postgres";

// About 16 MB of heap a piece: PGlite takes a COPY from one in-memory blob.
const PAGES_PER_PIECE = 2000;

export async function copyPostgresIntoPglite(sourceUrl: string, pgliteDir: string, log: (line: string) => void = console.log) {
  const source = postgres(sourceUrl, { max: 1, onnotice: () => {} });
  // A bigger cache and sort memory than the service's own for the load and the index builds only.
  const target = await PGlite.create(pgliteDir, {
    extensions: { pg_trgm },
    postgresqlconf: ["shared_buffers = 128MB", "maintenance_work_mem = 256MB", "work_mem = 16MB"],
  });
  try {
    const versions = async (rows: { version: string }[]) => rows.map((r) => r.version).join(",");
    const [from, to] = [
      await versions(await source.unsafe(`select version from schema_migrations order by version`)),
      await versions((await target.query<{ version: string }>(`select version from schema_migrations order by version`)).rows),
    ];
    if (from !== to) throw new Error(`the source database has migrations ${from}, this service ${to}: migrate it first`);

    const tables = (await target.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`)).rows.map((r) => r.name);
    // Indexes that back no constraint are dropped for the load and made again from their own definitions.
    const indexes = (
      await target.query<{ name: string; def: string }>(
        `select indexname as name, indexdef as def from pg_indexes i where schemaname = 'public'
         and not exists (select 1 from pg_constraint c where c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`,
      )
    ).rows;
    // Replica role: no trigger and no foreign-key check fires; the rows already carry their effects.
    await target.exec(`set session_replication_role = replica`);
    await target.exec(`truncate ${tables.map((t) => `"${t}"`).join(", ")}`);
    for (const index of indexes) await target.exec(`drop index "${index.name}"`);

    for (const table of tables) {
      const started = performance.now();
      const columns = (
        await target.query<{ name: string }>(
          `select column_name as name from information_schema.columns where table_schema = 'public' and table_name = $1 and is_generated = 'NEVER' order by ordinal_position`,
          [table],
        )
      ).rows.map((r) => `"${r.name}"`);
      const { pages } = (await source.unsafe(`select greatest(pg_relation_size($1::regclass) / current_setting('block_size')::int, 1)::int as pages`, [table]))[0]!;
      let copied = 0;
      for (let page = 0; page < pages; page += PAGES_PER_PIECE) {
        const last = page + PAGES_PER_PIECE >= pages;
        const range = `ctid >= '(${page},0)'::tid${last ? "" : ` and ctid < '(${page + PAGES_PER_PIECE},0)'::tid`}`;
        // psql, not a postgres.js COPY stream: after a stream of several chunks that connection's next query never resolved.
        const psql = Bun.spawn(["psql", sourceUrl, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", `copy (select ${columns.join(", ")} from "${table}" where ${range}) to stdout`], { stdout: "pipe", stderr: "pipe" });
        const bytes = Buffer.from(await new Response(psql.stdout).arrayBuffer());
        if ((await psql.exited) !== 0) throw new Error(`psql copy of ${table}: ${await new Response(psql.stderr).text()}`);
        if (bytes.length === 0) continue;
        await target.query(`copy "${table}" (${columns.join(", ")}) from '/dev/blob'`, [], { blob: new Blob([bytes]) });
        copied += bytes.length;
      }
      const { rows } = (await source.unsafe(`select count(*)::int as rows from "${table}"`))[0]!;
      const { count } = (await target.query<{ count: number }>(`select count(*)::int as count from "${table}"`)).rows[0]!;
      if (count !== rows) throw new Error(`${table}: ${rows} rows in the source, ${count} copied`);
      if (rows > 0) log(`  copied ${table}: ${rows} rows, ${Math.round(copied / 2 ** 20)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    for (const { name } of (await target.query<{ name: string }>(`select sequence_name as name from information_schema.sequences where sequence_schema = 'public'`)).rows) {
      const { last_value, is_called } = (await source.unsafe(`select last_value::text, is_called from "${name}"`))[0]!;
      await target.query(`select setval($1::regclass, $2::bigint, $3)`, [name, last_value, is_called]);
    }
    for (const index of indexes) {
      const started = performance.now();
      await target.exec(index.def);
      log(`  made index ${index.name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    await target.exec(`reset session_replication_role`);
    await target.exec(`vacuum analyze`);
  } finally {
    await target.close();
    await source.end({ timeout: 2 });
  }
}
