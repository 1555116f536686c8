// Kinds register themselves in their own files (docs/architecture.md, "Adding a new kind"). The
// registries are found by listing folders and merged at start-up, which the compiler cannot follow,
// so this suite checks what it would have: every name a port declares has an implementation, every
// kind addressed by id has a table, every exported group of rows is published and typed.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { operationGroups, OPERATIONS } from "../../adapters/operations/index.ts";
import { openPglite } from "../../adapters/sql/database.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { registeredRepositories, sqlRecordStore } from "../../adapters/sql/records.ts";
import { addressedKinds } from "../../adapters/sql/table.ts";
import { loadMigrations } from "../../infra/container.ts";
import type { OwnedKind } from "../../ports/records.ts";

const ROOT = join(import.meta.dir, "../..");
const filesIn = (folder: string) =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith(".ts"))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(ROOT, folder, name), "utf8") }));

/** The member names of `interface <name> { … }` blocks inside `declare module "<module>"` augmentations. */
function augmented(text: string, module: string, name: string): string[] {
  const names: string[] = [];
  const block = new RegExp(`declare module "${module.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}" \\{\\s*interface ${name} \\{([^}]*)\\}`, "g");
  for (const match of text.matchAll(block)) for (const member of match[1]!.matchAll(/^\s*(\w+)\s*:/gm)) names.push(member[1]!);
  return names;
}

const PORTS = filesIn("ports/records");
const declaredRepositories = PORTS.flatMap(({ text }) => augmented(text, "../records.ts", "Repositories")).sort();
const declaredAddressed = PORTS.flatMap(({ text }) => augmented(text, "./owners.ts", "AddressedKinds")).sort();

describe("kinds register themselves", () => {
  test("the port files declare the store's repositories (a parse that finds nothing would prove nothing)", () => {
    expect(declaredRepositories).toContain("beats");
    expect(declaredRepositories).toContain("owners");
    expect(declaredRepositories.length).toBeGreaterThanOrEqual(23);
    expect(new Set(declaredRepositories).size).toBe(declaredRepositories.length);
  });

  test("every repository a port declares is implemented on SQL, and nothing else is", () => {
    expect(registeredRepositories()).toEqual(declaredRepositories);
  });

  test("every kind addressed by id has the table that holds it, and no table claims an undeclared kind", () => {
    expect(declaredAddressed).toContain("factions");
    expect(addressedKinds()).toEqual(declaredAddressed);
  });

  test("the owner lookup's query for every addressed kind runs (an unknown id has no campaign)", async () => {
    const db = await openPglite(null);
    try {
      await applyMigrations(db, loadMigrations());
      const store = sqlRecordStore(db);
      for (const kind of addressedKinds()) expect(await store.owners.campaignOf(kind as OwnedKind, "00000000-0000-7000-8000-000000000000"), kind).toBeNull();
      await expect(store.owners.campaignOf("no_such_kind" as OwnedKind, "x")).rejects.toThrow('No table declares it holds "no_such_kind"');
    } finally {
      await db.close();
    }
  }, 180_000); // a fresh PGlite and every migration: a minute and more on a loaded machine

  test("every group of rows defined in adapters/operations is exported, published once and typed on PublishedOperations", () => {
    const files = filesIn("adapters/operations").filter(({ name }) => name !== "index.ts" && name !== "operation.ts");
    for (const { name, text } of files) {
      const defined = [...text.matchAll(/defineOperations\(\{ publishedAt: (\d+) \}/g)].map((match) => Number(match[1]));
      const published = operationGroups.filter((group) => group.file === name).map((group) => group.publishedAt);
      expect(published.sort((a, b) => a - b), name).toEqual(defined.sort((a, b) => a - b));
      expect(augmented(text, "./index.ts", "PublishedOperations").length, `${name}: one PublishedOperations entry per group`).toBe(defined.length);
    }
    expect(operationGroups.flatMap((group) => group.ids)).toEqual(OPERATIONS.map((op) => op.id));
  });
});
