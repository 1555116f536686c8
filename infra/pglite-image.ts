// The prepared PGlite image of this install (adapters/sql/pglite-image.ts): kept in
// node_modules/.cache/campaign-memory-service, one file per key, built by a short-lived child
// process (`bun infra/pglite-image.ts [FILE]`, also run by `npm install`) so the server never
// runs initdb itself.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildImage, imageKey, PGLITE_ROOT, unpackImage } from "../adapters/sql/pglite-image.ts";
import type { Migration } from "../adapters/sql/migrate.ts";
import { loadMigrations, MIGRATIONS_DIR } from "./schema.ts";

/** Beside the installed packages: every DATA_DIR of this install shares it; `npm install` fills it. */
export const IMAGE_CACHE_DIR = join(PGLITE_ROOT, "..", "..", ".cache", "campaign-memory-service");
/** Images kept; older ones (other migration sets, other PGlite versions) are removed. */
const KEEP_IMAGES = 8;
const HOUR_MS = 3_600_000;

export const imagePath = (migrations: readonly Migration[], dir = IMAGE_CACHE_DIR) => join(dir, `pglite-${imageKey(migrations)}.tar.gz`);

const writable = (dir: string): boolean => {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** Builds the image for `migrations` into `file` (atomically: a reader sees the whole file or none). */
export async function writeImage(file: string, migrations: readonly Migration[]): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const image = await buildImage(migrations, dirname(file));
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, image);
  renameSync(partial, file);
  prune(dirname(file), file);
}

/** Leaves the newest images and removes what crashed builds left behind. */
function prune(dir: string, keep: string) {
  try {
    const entries = readdirSync(dir).map((name) => ({ name, path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }));
    const images = entries.filter((e) => /^pglite-[0-9a-f]+\.tar\.gz$/.test(e.name)).sort((a, b) => b.mtime - a.mtime);
    for (const old of images.slice(KEEP_IMAGES)) if (old.path !== keep) rmSync(old.path, { force: true });
    for (const e of entries) if (/^build-|\.tmp$/.test(e.name) && Date.now() - e.mtime > HOUR_MS) rmSync(e.path, { recursive: true, force: true });
  } catch {} // tidying is best effort
}

/** Runs the builder as a child process: initdb's memory (hundreds of MB) leaves with it. */
async function buildInChild(file: string, migrationsDir: string, key: string): Promise<void> {
  const child = Bun.spawn([process.execPath, import.meta.path, file, `--migrations=${migrationsDir}`, `--key=${key}`], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [code, errors] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(errors.trim().split("\n").at(-1) || `the database image builder exited with ${code}`);
}

export interface ImageOptions {
  /** Where a new image is written when the cache cannot be (removed after use). */
  scratchDir: string;
  migrationsDir?: string;
  cacheDir?: string;
}

/**
 * The image of the migrations in `migrationsDir`: from the cache, else built (in a child process)
 * into the cache — or, when the cache cannot be written, into `scratchDir` for this one use.
 */
export async function preparedImage(options: ImageOptions & { rebuild?: boolean }): Promise<{ image: Uint8Array<ArrayBuffer>; built: boolean }> {
  const { scratchDir, migrationsDir = MIGRATIONS_DIR, cacheDir = IMAGE_CACHE_DIR } = options;
  const migrations = loadMigrations(migrationsDir);
  const cached = imagePath(migrations, cacheDir);
  if (!options.rebuild && existsSync(cached)) {
    try {
      const image = new Uint8Array(readFileSync(cached));
      const now = new Date();
      utimesSync(cached, now, now); // in use: pruned last
      return { image, built: false };
    } catch {}
  }
  const file = writable(cacheDir) ? cached : join(scratchDir, `pglite-image-${process.pid}.tar.gz`);
  await buildInChild(file, migrationsDir, imageKey(migrations));
  const image = new Uint8Array(readFileSync(file));
  if (file !== cached) rmSync(file, { force: true });
  return { image, built: true };
}

/**
 * Makes `folder` (absent or empty) a database with every migration applied, from the image. A
 * cached image that does not unpack (damaged on disk) is built again, once.
 */
export async function createDatabaseFolder(folder: string, options: ImageOptions): Promise<{ built: boolean }> {
  rmSync(folder, { recursive: true, force: true }); // empty, if there at all
  const first = await preparedImage(options);
  try {
    unpackImage(first.image, folder);
    return { built: first.built };
  } catch (error) {
    if (first.built) throw error;
    const again = await preparedImage({ ...options, rebuild: true });
    unpackImage(again.image, folder);
    return { built: true };
  }
}

if (import.meta.main) {
  // `bun infra/pglite-image.ts [FILE]` builds the image of the current migrations (into the cache
  // when FILE is left out). `--if-missing` (npm install) does nothing when it is there, and never fails.
  // --migrations=DIR and --key=KEY come from a server that needs the image of exactly those.
  const args = process.argv.slice(2);
  const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const lenient = args.includes("--if-missing");
  try {
    const migrations = loadMigrations(option("migrations") ?? MIGRATIONS_DIR);
    const key = option("key");
    if (key && key !== imageKey(migrations)) throw new Error("the migrations changed while the service was starting; start it again");
    const file = args.find((arg) => !arg.startsWith("--")) ?? imagePath(migrations);
    if (!(lenient && existsSync(file))) await writeImage(file, migrations);
    process.exit(0);
  } catch (error) {
    console.error(`could not build the database image: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(lenient ? 0 : 1);
  }
}
