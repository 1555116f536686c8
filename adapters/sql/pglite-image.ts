// A prepared PGlite data directory ("image"): initdb and every migration run once, the cleanly
// shut-down folder kept as a gzipped tar, unpacked into each new DATA_DIR. initdb in the serving
// process cost seconds and left it at ~900 MB peak (a second PostgreSQL instance plus initdb's
// WebAssembly); unpacking costs a fraction of a second and no WebAssembly at all.
//
// An image is only valid for the exact migrations it was built with and the PGlite build that
// wrote it: its key hashes both, so a changed, added, renamed or removed migration means another
// image (built anew), never an old one. Migrations added after a folder was made from an image are
// applied to it by the ordinary runner, as on any other folder.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { openPglite } from "./database.ts";
import { applyMigrations, type Migration } from "./migrate.ts";

/** Bumped when how an image is built changes (options, extensions, what the tar holds). */
const IMAGE_FORMAT = 1;

/** node_modules/@electric-sql/pglite: its version is part of every key. */
export const PGLITE_ROOT = join(dirname(Bun.resolveSync("@electric-sql/pglite", import.meta.dir)), "..");

const pgliteVersion = (): string => (JSON.parse(readFileSync(join(PGLITE_ROOT, "package.json"), "utf8")) as { version: string }).version;

/** What an image depends on, hashed: the image format, PGlite's version, every migration's name and text. */
export function imageKey(migrations: readonly Migration[]): string {
  const hash = createHash("sha256");
  hash.update(`format ${IMAGE_FORMAT}\npglite ${pgliteVersion()}\n`);
  for (const migration of [...migrations].sort((a, b) => a.version.localeCompare(b.version))) {
    hash.update(`${migration.version}\n${createHash("sha256").update(migration.sql).digest("hex")}\n`);
  }
  return hash.digest("hex").slice(0, 32);
}

// Files of a stopped cluster that must not travel: the lock of the process that wrote it.
const LEFT_OUT = new Set(["postmaster.pid"]);

/** The folder as a gzipped ustar archive (paths relative to it; directories and regular files only). */
export function packDirectory(dir: string): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      if (LEFT_OUT.has(name) && path === dir) continue;
      const full = join(path, name);
      const stat = statSync(full);
      const rel = relative(dir, full);
      if (stat.isDirectory()) {
        chunks.push(tarHeader(`${rel}/`, 0, "5", stat.mode));
        walk(full);
      } else if (stat.isFile()) {
        const data = readFileSync(full);
        chunks.push(tarHeader(rel, data.length, "0", stat.mode), data, new Uint8Array((512 - (data.length % 512)) % 512));
      }
    }
  };
  walk(dir);
  chunks.push(new Uint8Array(1024)); // end of archive
  return Bun.gzipSync(Buffer.concat(chunks), { level: 6 });
}

function tarHeader(name: string, size: number, type: "0" | "5", mode: number): Uint8Array {
  if (Buffer.byteLength(name) > 100) throw new Error(`path too long for the image: ${name}`);
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, "utf8");
  header.write(`${(mode & 0o7777).toString(8).padStart(7, "0")}\0`, 100, 8, "ascii");
  header.write("0000000\0", 108, 8, "ascii"); // uid
  header.write("0000000\0", 116, 8, "ascii"); // gid
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124, 12, "ascii");
  header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, "0")}\0`, 136, 12, "ascii");
  header.write(type, 156, 1, "ascii");
  header.write("ustar\0" + "00", 257, 8, "ascii");
  header.fill(" ", 148, 156); // the checksum counts its own field as spaces
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8, "ascii");
  return header;
}

/**
 * Unpacks an image made by packDirectory into `dest`, which must not exist yet: the files go to a
 * sibling folder first and are renamed into place at the end, so a crash part-way never leaves a
 * half-written database where the next start would take it for a whole one.
 */
export function unpackImage(gzipped: Uint8Array<ArrayBuffer>, dest: string): void {
  const tar = Bun.gunzipSync(gzipped); // checks the gzip CRC: a damaged image fails here
  const staging = `${dest}.unpack-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  const text = (from: number, length: number) => {
    const field = tar.subarray(from, from + length);
    const end = field.indexOf(0);
    return new TextDecoder().decode(end >= 0 ? field.subarray(0, end) : field);
  };
  let offset = 0;
  try {
    for (;;) {
      if (offset + 512 > tar.length) throw new Error("the image is truncated");
      if (tar[offset] === 0) break; // end of archive
      const name = text(offset, 100);
      const size = parseInt(text(offset + 124, 12).trim(), 8);
      const type = String.fromCharCode(tar[offset + 156]!);
      if (!name || name.startsWith("/") || name.split("/").includes("..") || !Number.isFinite(size) || offset + 512 + size > tar.length)
        throw new Error(`the image is damaged (entry ${JSON.stringify(name)})`);
      const path = join(staging, name);
      // The owner's alone, whatever the modes the image recorded: the database holds key digests.
      if (type === "5") mkdirSync(path, { recursive: true, mode: 0o700 });
      else if (type === "0") writeFileSync(path, tar.subarray(offset + 512, offset + 512 + size), { mode: 0o600 });
      offset += 512 + Math.ceil(size / 512) * 512;
    }
    if (!existsSync(join(staging, "PG_VERSION"))) throw new Error("the image holds no database (no PG_VERSION)");
    renameSync(staging, dest);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Folders a crashed unpack left beside `dest` (only the data folder's lock holder may call this). */
export function removeStaleUnpacks(dest: string): void {
  const parent = dirname(dest);
  const prefix = `${dest.slice(parent.length + 1)}.unpack-`;
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) if (name.startsWith(prefix)) rmSync(join(parent, name), { recursive: true, force: true });
}

/** Whether `dir` needs a database: missing or empty (a folder holding anything else is left to PGlite). */
export const needsDatabase = (dir: string): boolean => !existsSync(dir) || readdirSync(dir).length === 0;

/**
 * Builds an image: a new cluster in a scratch folder under `workDir` (initdb), every migration,
 * a checkpoint and a clean shut-down, then the folder packed. Meant for a short-lived process: it
 * runs initdb, whose memory the serving process should never carry.
 */
export async function buildImage(migrations: readonly Migration[], workDir: string): Promise<Uint8Array<ArrayBuffer>> {
  const dir = join(workDir, `build-${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
  try {
    const db = await openPglite(dir);
    try {
      await applyMigrations(db, migrations);
      await db.exec("checkpoint");
    } finally {
      await db.close();
    }
    return packDirectory(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
