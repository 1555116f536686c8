// The migrations this version of the service brings (infra/migrations/NNNN_name.sql, applied in name order).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Migration } from "../adapters/sql/migrate.ts";

export const MIGRATIONS_DIR = join(import.meta.dir, "migrations");

export const loadMigrations = (dir = MIGRATIONS_DIR): Migration[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ""), sql: readFileSync(join(dir, name), "utf8") }));
