// The operation table: every operation of the service, declared once; each kind's rows live in its own file,
// which registers them (`defineOperations({ publishedAt }, [...])`, exported, and its type on
// `PublishedOperations`). This file finds the groups by listing its folder, so a new kind edits nothing here.
// The order is the published order (routes, OpenAPI paths and components, MCP tools): groups by `publishedAt`.
import { readdirSync } from "node:fs";
import { isOperationGroup, type OperationGroup } from "./operation.ts";

/** Each kind's group of rows by name, added by the kind's own file with `declare module "./index.ts"`. */
export interface PublishedOperations {}

/** Any published row, with the types it was defined with. */
type PublishedOperation = { [Group in keyof PublishedOperations]: PublishedOperations[Group] extends readonly (infer Op)[] ? Op : never }[keyof PublishedOperations];

/**
 * Every group exported by the files beside this one. Read once at start-up; the service runs from
 * its source files (`bun infra/main.ts`), never from a bundle, so the folder is there to list.
 */
const found: { file: string; group: OperationGroup }[] = [];
for (const file of readdirSync(import.meta.dir).filter((name) => name.endsWith(".ts") && name !== "index.ts").sort()) {
  const module: Record<string, unknown> = await import(`./${file}`);
  for (const value of Object.values(module)) if (isOperationGroup(value)) found.push({ file, group: value });
}
found.sort((a, b) => a.group.publishedAt - b.group.publishedAt);
for (const [i, { file, group }] of found.entries())
  if (i > 0 && found[i - 1]!.group.publishedAt === group.publishedAt)
    throw new Error(`Two operation groups are published at ${group.publishedAt} (${found[i - 1]!.file} and ${file}): give each its own place`);

/** The files the groups came from, in published order, for the registration test. */
export const operationGroups = found.map(({ file, group }) => ({ file, publishedAt: group.publishedAt, ids: group.map((op) => op.id) }));

// The one cast of the table: the registration test proves every exported group is registered on `PublishedOperations`.
export const OPERATIONS = found.flatMap(({ group }) => group) as readonly PublishedOperation[];

/** Each row by id, with its types; rows a factory makes for several kinds (built ids, erased types) are left out. */
type LiteralRow<Op> = Op extends { id: infer Id } ? (string extends Id ? never : Op) : never;
export type OperationsById = { [Op in LiteralRow<PublishedOperation> as Op["id"]]: Op };
