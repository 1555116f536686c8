// The prepared PGlite image (issue 15): a new database is the image unpacked instead of initdb and
// every migration. It must be the same database the migrations make, must never outlive a change
// of the migrations, and must not weaken the data-folder lock.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite, type SqlDatabase } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { imageKey, packDirectory, unpackImage } from "../../adapters/sql/pglite-image.ts";
import { openMigratedMemoryPglite } from "../../infra/container.ts";
import { createDatabaseFolder, imagePath } from "../../infra/pglite-image.ts";
import { loadMigrations } from "../../infra/schema.ts";
import { freePort, PROJECT_ROOT } from "../support/server.ts";

const dirs: string[] = [];
const tempDir = (prefix = "cms-image-") => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Everything the migrations define, as text: tables, columns, indexes, constraints, triggers, functions, sequences, views, extensions. */
async function schemaOf(db: SqlDatabase): Promise<Record<string, string[]>> {
  const list = async (sql: string) => (await db.query<{ line: string }>(sql)).map((row) => row.line);
  return {
    migrations: await list(`select version as line from schema_migrations order by version`),
    columns: await list(`select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
      from information_schema.columns where table_schema = 'public' order by table_name, column_name`),
    indexes: await list(`select indexdef as line from pg_indexes where schemaname = 'public' order by indexname`),
    constraints: await list(`select c.conrelid::regclass || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) as line
      from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public' order by 1`),
    triggers: await list(`select pg_get_triggerdef(t.oid) as line from pg_trigger t join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not t.tgisinternal order by 1`),
    functions: await list(`select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(pg_get_functiondef(p.oid)) as line
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
      where n.nspname = 'public' and l.lanname in ('sql', 'plpgsql') order by 1`),
    sequences: await list(`select sequence_name as line from information_schema.sequences where sequence_schema = 'public' order by 1`),
    views: await list(`select table_name || ' ' || md5(view_definition) as line from information_schema.views where table_schema = 'public' order by 1`),
    extensions: await list(`select extname || ' ' || extversion as line from pg_extension order by 1`),
  };
}

describe("the prepared image", () => {
  test("a database from the image (in memory and in a folder) has exactly the schema the migrations make", async () => {
    const stepByStep = await openPglite(null);
    const fromImage = await openMigratedMemoryPglite();
    const folder = join(tempDir(), "pglite");
    await createDatabaseFolder(folder, { scratchDir: tempDir() });
    const onDisk = await openPglite(folder);
    try {
      expect(await applyMigrations(stepByStep, loadMigrations())).toHaveLength(loadMigrations().length);
      const expected = await schemaOf(stepByStep);
      // Literal anchors, so an empty or half schema on both sides cannot pass.
      expect(expected.migrations!.slice(0, 2)).toEqual(["0001_foundation", "0002_compendium"]);
      expect(expected.migrations).toEqual(loadMigrations().map((m) => m.version));
      expect(expected.columns).toContain("campaigns.title text NO ");
      expect(expected.extensions).toContain("pg_trgm 1.6");
      expect(await schemaOf(fromImage)).toEqual(expected);
      expect(await schemaOf(onDisk)).toEqual(expected);
      // Nothing left to apply, and the image's database works (pg_trgm's operators included).
      expect(await applyMigrations(fromImage, loadMigrations())).toEqual([]);
      expect(await applyMigrations(onDisk, loadMigrations())).toEqual([]);
      const [row] = await onDisk.query<{ s: number }>(`select similarity('Vox Machina', 'Vox Machine')::float8 as s`);
      expect(row!.s).toBeCloseTo(0.714, 3); // 5 of 7 trigrams shared
    } finally {
      await Promise.all([stepByStep.close(), fromImage.close(), onDisk.close()]);
    }
  }, 240_000);

  test("its key changes with any change of the migrations, and only with one", () => {
    const base = loadMigrations();
    const key = imageKey(base);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(imageKey([...base].reverse())).toBe(key); // applied in name order whatever the listing order
    expect(imageKey(base.map((m) => ({ ...m })))).toBe(key);
    const changed = base.map((m, i) => (i === 3 ? { ...m, sql: `${m.sql}\n-- one more comment` } : m));
    const added = [...base, { version: "9999_probe", sql: "create table probe (a int);" }];
    const renamed = base.map((m, i) => (i === 3 ? { ...m, version: `${m.version}_renamed` } : m));
    const removed = base.slice(0, -1);
    const keys = [changed, added, renamed, removed].map(imageKey);
    expect(new Set([key, ...keys]).size).toBe(5);
  });

  test("a changed migration set gets a new image (built once, then from the cache); a damaged cached image is built again", async () => {
    // A small set of its own (the builds are initdb each; the real set is covered above).
    const migrationsDir = tempDir("cms-image-migrations-");
    writeFileSync(join(migrationsDir, "0001_base.sql"), "create table image_base (id int primary key);");
    const probe = join(migrationsDir, "9999_probe.sql");
    writeFileSync(probe, "create table image_probe (first_shape int);");
    const options = { scratchDir: tempDir(), migrationsDir, cacheDir: tempDir("cms-image-cache-") };
    const probeColumns = async (folder: string) => {
      const db = await openPglite(folder);
      try {
        const columns = await db.query<{ column_name: string }>(`select column_name from information_schema.columns where table_name = 'image_probe'`);
        const [last] = await db.query<{ version: string }>(`select max(version) as version from schema_migrations`);
        return { columns: columns.map((c) => c.column_name), last: last!.version };
      } finally {
        await db.close();
      }
    };

    const first = join(tempDir(), "pglite");
    expect(await createDatabaseFolder(first, options)).toEqual({ built: true });
    expect(await probeColumns(first)).toEqual({ columns: ["first_shape"], last: "9999_probe" });
    const second = join(tempDir(), "pglite");
    expect(await createDatabaseFolder(second, options)).toEqual({ built: false });
    expect(await probeColumns(second)).toEqual({ columns: ["first_shape"], last: "9999_probe" });

    // The same migrations, the cached file damaged: built again rather than a start that fails for ever.
    const cached = imagePath(loadMigrations(migrationsDir), options.cacheDir);
    writeFileSync(cached, readFileSync(cached).subarray(0, 1000));
    const third = join(tempDir(), "pglite");
    expect(await createDatabaseFolder(third, options)).toEqual({ built: true });
    expect(await probeColumns(third)).toEqual({ columns: ["first_shape"], last: "9999_probe" });

    // The migration edited: the old image is not used.
    writeFileSync(probe, "create table image_probe (second_shape text);");
    const fourth = join(tempDir(), "pglite");
    expect(await createDatabaseFolder(fourth, options)).toEqual({ built: true });
    expect(await probeColumns(fourth)).toEqual({ columns: ["second_shape"], last: "9999_probe" });
    expect(readdirSync(options.cacheDir).filter((name) => name.endsWith(".tar.gz"))).toHaveLength(2);
  }, 300_000);

  test("a damaged image unpacks to nothing: no half-written database, no staging folder left", () => {
    const source = tempDir();
    writeFileSync(join(source, "PG_VERSION"), "17\n");
    writeFileSync(join(source, "big"), new Uint8Array(100_000).fill(7));
    const image = packDirectory(source);
    const whole = join(tempDir(), "pglite");
    unpackImage(image, whole);
    expect(readFileSync(join(whole, "PG_VERSION"), "utf8")).toBe("17\n");
    expect(readFileSync(join(whole, "big"))).toEqual(Buffer.from(new Uint8Array(100_000).fill(7)));

    const parent = tempDir();
    const dest = join(parent, "pglite");
    expect(() => unpackImage(image.subarray(0, image.length - 40), dest)).toThrow();
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  test("two servers started at once on one new data folder: one creates it and serves, the other is refused", async () => {
    const dataDir = tempDir();
    const spawn = (port: number) =>
      Bun.spawn([process.execPath, join(PROJECT_ROOT, "infra", "main.ts")], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info" },
        stdout: "pipe",
        stderr: "pipe",
      });
    const ports = [freePort(), freePort()];
    const children = ports.map(spawn);
    try {
      // The refused one exits at once; the other keeps running.
      const loser = await Promise.race(children.map((child, i) => child.exited.then(() => i)));
      const winner = 1 - loser;
      expect(children[loser]!.exitCode).toBe(1);
      expect(await new Response(children[loser]!.stderr).text()).toContain(`DATA_DIR ${dataDir} is in use`);
      let health: Response | null = null;
      for (let i = 0; i < 600 && !health; i++) {
        health = await fetch(`http://127.0.0.1:${ports[winner]}/health/database`).catch(() => null);
        if (!health) await Bun.sleep(100);
      }
      expect(health?.status).toBe(200);
      expect(children[winner]!.exitCode).toBeNull();
      expect(readFileSync(join(dataDir, "pglite", "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
      expect(readdirSync(dataDir).filter((name) => name.includes(".unpack-"))).toEqual([]);
    } finally {
      for (const child of children) child.kill("SIGTERM");
      await Promise.all(children.map((child) => child.exited));
    }
  }, 120_000);
});
