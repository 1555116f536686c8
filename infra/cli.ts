// Operator CLI: `bun run cms <command>`. Runs the same first-party operations as /internal/v1,
// directly on the database, or through the running server when it holds the embedded database.
import { readdir, stat } from "node:fs/promises";
import { basename, join, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { OPERATIONS } from "../adapters/operations/index.ts";
import { IMAGE_FILE } from "../application/vault.ts";
import { invoke, RawResponse, type Operation } from "../adapters/operations/operation.ts";
import { STATUS_OF, bodyOf } from "../adapters/shared/failures.ts";
import { textPieces } from "../adapters/shared/text-stream.ts";
import type { Caller } from "../domain/identity.ts";
import { ConfigError, parseConfig, type Config } from "./config.ts";
import { buildDeps, imageServices, loggerFor, openDatabase } from "./container.ts";
import { DataDirBusy, lockHolder } from "./datalock.ts";
import { serviceInfo } from "./service.ts";

interface Command {
  usage: string;
  operation: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
  required: string[];
  positional?: string;
  inputs(values: Record<string, any>): { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> };
  /** A file whose bytes are the request body (transcript import). */
  file?(values: Record<string, any>): string;
  /** A folder sent as a zip body (a Markdown vault). */
  dir?(values: Record<string, any>): string;
  /** The answer is written to stdout as it comes (an export), not printed as JSON. */
  raw?: boolean;
}

const COMMANDS: Record<string, Command> = {
  "users create": {
    usage: "users create --name NAME --email EMAIL",
    operation: "internalCreateUser",
    options: { name: { type: "string" }, email: { type: "string" } },
    required: ["name", "email"],
    inputs: (v) => ({ body: { name: v.name, email: v.email } }),
  },
  "keys issue": {
    usage: "keys issue --user USER_ID [--scope product_write]",
    operation: "internalIssueKey",
    options: { user: { type: "string" }, scope: { type: "string", multiple: true } },
    required: ["user"],
    inputs: (v) => ({ path: { user_id: v.user }, body: { scopes: v.scope ?? [] } }),
  },
  "keys list": {
    usage: "keys list --user USER_ID",
    operation: "internalListKeys",
    options: { user: { type: "string" } },
    required: ["user"],
    inputs: (v) => ({ path: { user_id: v.user } }),
  },
  "keys revoke": {
    usage: "keys revoke KEY_ID",
    operation: "internalRevokeKey",
    options: {},
    required: ["key_id"],
    positional: "key_id",
    inputs: (v) => ({ path: { key_id: v.key_id } }),
  },
  "keys rotate": {
    usage: "keys rotate KEY_ID",
    operation: "internalRotateKey",
    options: {},
    required: ["key_id"],
    positional: "key_id",
    inputs: (v) => ({ path: { key_id: v.key_id } }),
  },
  "grants list": {
    usage: "grants list --user USER_ID",
    operation: "internalListGrants",
    options: { user: { type: "string" } },
    required: ["user"],
    inputs: (v) => ({ path: { user_id: v.user } }),
  },
  "grants revoke": {
    usage: "grants revoke GRANT_ID",
    operation: "internalRevokeGrant",
    options: {},
    required: ["grant_id"],
    positional: "grant_id",
    inputs: (v) => ({ path: { grant_id: v.grant_id } }),
  },
  "login-link": {
    usage: "login-link --user USER_ID",
    operation: "internalIssueLoginLink",
    options: { user: { type: "string" } },
    required: ["user"],
    inputs: (v) => ({ path: { user_id: v.user } }),
  },
  "members add": {
    usage: "members add --campaign CAMPAIGN_ID --user USER_ID --role owner|admin|player|viewer",
    operation: "internalAddMember",
    options: { campaign: { type: "string" }, user: { type: "string" }, role: { type: "string" } },
    required: ["campaign", "user", "role"],
    inputs: (v) => ({ path: { campaign_id: v.campaign }, body: { user_id: v.user, role: v.role } }),
  },
  "members remove": {
    usage: "members remove --campaign CAMPAIGN_ID --user USER_ID",
    operation: "internalRemoveMember",
    options: { campaign: { type: "string" }, user: { type: "string" } },
    required: ["campaign", "user"],
    inputs: (v) => ({ path: { campaign_id: v.campaign, user_id: v.user } }),
  },
  "sessions create": {
    usage: "sessions create --campaign CAMPAIGN_ID --title TITLE --date ISO_DATE [--type chatVoice|audioUpload|playByPost|txtUpload|rawNotes|other] [--summary TEXT]",
    operation: "internalCreateSession",
    options: { campaign: { type: "string" }, title: { type: "string" }, date: { type: "string" }, type: { type: "string" }, summary: { type: "string" } },
    required: ["campaign", "title", "date"],
    inputs: (v) => ({ body: { campaign_id: v.campaign, title: v.title, session_date: v.date, type: v.type ?? "other", ...(v.summary ? { summary: v.summary } : {}) } }),
  },
  "sessions delete": {
    usage: "sessions delete SESSION_ID",
    operation: "internalDeleteSession",
    options: {},
    required: ["session_id"],
    positional: "session_id",
    inputs: (v) => ({ path: { session_id: v.session_id } }),
  },
  "transcripts import": {
    usage: "transcripts import --session SESSION_ID --file PATH [--format plain|vtt|srt|crd3]",
    operation: "internalImportTranscript",
    options: { session: { type: "string" }, file: { type: "string" }, format: { type: "string" } },
    required: ["session", "file"],
    inputs: (v) => ({ path: { session_id: v.session }, query: v.format ? { format: v.format } : {} }),
    file: (v) => v.file,
  },
  "campaigns export": {
    usage: "campaigns export CAMPAIGN_ID [--include-images] > campaign.json",
    operation: "internalExportCampaign",
    options: { "include-images": { type: "boolean" } },
    required: ["campaign_id"],
    positional: "campaign_id",
    inputs: (v) => ({ path: { campaign_id: v.campaign_id }, query: v["include-images"] ? { include_images: true } : {} }),
    raw: true,
  },
  "campaigns import": {
    usage: "campaigns import FILE --owner USER_ID",
    operation: "internalImportCampaign",
    options: { owner: { type: "string" } },
    required: ["file", "owner"],
    positional: "file",
    inputs: (v) => ({ query: { owner_id: v.owner } }),
    file: (v) => v.file,
  },
  "campaigns import-markdown": {
    usage: "campaigns import-markdown DIR --owner USER_ID [--title TITLE]",
    operation: "internalImportMarkdown",
    options: { owner: { type: "string" }, title: { type: "string" } },
    required: ["dir", "owner"],
    positional: "dir",
    inputs: (v) => ({ query: { owner_id: v.owner, ...(v.title ? { title: v.title } : {}) } }),
    dir: (v) => v.dir,
  },
  "handouts generate": {
    usage: "handouts generate --session SESSION_ID",
    operation: "internalGenerateHandout",
    options: { session: { type: "string" } },
    required: ["session"],
    inputs: (v) => ({ path: { session_id: v.session } }),
  },
  "ask reindex": {
    usage: "ask reindex [--campaign CAMPAIGN_ID]",
    operation: "internalAskReindex",
    options: { campaign: { type: "string" } },
    required: [],
    inputs: (v) => ({ body: v.campaign ? { campaign_id: v.campaign } : {} }),
  },
};

const contentTypeOf = (path: string) =>
  path.endsWith(".json") ? "application/json" : path.endsWith(".vtt") ? "text/vtt" : path.endsWith(".srt") ? "application/x-subrip" : "text/plain";

const filePieces = (path: string) => textPieces(Bun.file(path).stream());

/**
 * The notes and pictures under `dir` (hidden ones left out; the import reads nothing else, so a
 * vault's PDFs and videos are not sent) zipped under the folder's name, as the Markdown export
 * writes a vault. One that cannot be read stops the command, named, before anything is imported.
 */
async function zipFolder(dir: string): Promise<Uint8Array> {
  const root = basename(resolve(dir));
  const files: Record<string, Uint8Array> = {};
  for (const path of await readdir(dir, { recursive: true })) {
    const relative = path.split(sep).join("/");
    if (relative.split("/").some((part) => part.startsWith("."))) continue;
    if (!/\.md$/i.test(relative) && !IMAGE_FILE.test(relative)) continue;
    const full = join(dir, path);
    try {
      if (!(await stat(full)).isFile()) continue;
      files[`${root}/${relative}`] = new Uint8Array(await Bun.file(full).arrayBuffer());
    } catch (error) {
      throw new UsageError(`cannot read ${full} (${(error as { code?: string }).code ?? (error as Error).message}); nothing was imported`);
    }
  }
  return zipSync(files, { level: 0 });
}

/** A request body: a file's text, or a folder's zip. */
type Body = { file: string } | { zip: Uint8Array };

const HELP = `Campaign Memory Service — operator commands

  bun run cms <command> [options]

${Object.values(COMMANDS)
  .map((command) => `  ${command.usage}`)
  .join("\n")}
  migrate                 apply database migrations and exit

Uses the same environment as the server (DATA_DIR, DATABASE_URL, CMS_ADMIN_KEY, PORT).
With the embedded database, a running server owns DATA_DIR: the CLI then sends the command to
that server with CMS_ADMIN_KEY, and refuses if the key is not set.`;

class UsageError extends Error {}

/** The CLI acts with first-party rights on its own machine. */
const OPERATOR: Caller = { userId: "operator", keyId: "cli", scopes: ["product_write"], profile: "developer" };

async function runDirect(config: Config, operation: Operation, inputs: ReturnType<Command["inputs"]>, body?: Body) {
  const log = loggerFor({ logLevel: config.logLevel === "info" ? "warn" : config.logLevel });
  const database = await openDatabase(config, log);
  try {
    const deps = buildDeps(database.db, log, imageServices(config), config);
    const stream = !body
      ? undefined
      : "file" in body
        ? { pieces: filePieces(body.file), contentType: contentTypeOf(body.file) }
        : { pieces: (async function* () {})(), bytes: (async function* () { yield body.zip; })(), contentType: "application/zip" };
    const result = await invoke(operation, { deps, info: serviceInfo(config), stream }, { caller: OPERATOR }, inputs);
    // A streamed answer is read while the database is still open.
    if (result.ok && result.value instanceof RawResponse) {
      await writeRaw(result.value.body);
      return { ok: true as const, value: RAW_WRITTEN };
    }
    return result;
  } finally {
    await database.close();
  }
}

const RAW_WRITTEN = Symbol("written to stdout");

async function writeRaw(body: RawResponse["body"] | ReadableStream<Uint8Array>) {
  const out = Bun.stdout.writer();
  if (typeof body === "string" || body instanceof Uint8Array) out.write(body);
  else for await (const piece of body as AsyncIterable<string | Uint8Array>) {
    out.write(piece);
    await out.flush();
  }
  await out.flush();
}

async function runRemote(baseUrl: string, adminKey: string, operation: Operation, inputs: ReturnType<Command["inputs"]>, body?: Body) {
  let path = operation.http!.path;
  for (const [name, value] of Object.entries(inputs.path ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  const query = new URLSearchParams(Object.entries(inputs.query ?? {}).map(([k, v]) => [k, String(v)]));
  const response = await fetch(`${baseUrl}${path}${query.size ? `?${query}` : ""}`, {
    method: operation.http!.method,
    headers: { "x-api-key": adminKey, "content-type": body ? ("file" in body ? contentTypeOf(body.file) : "application/zip") : "application/json" },
    body: body ? ("file" in body ? Bun.file(body.file) : new Blob([body.zip as Uint8Array<ArrayBuffer>])) : inputs.body ? JSON.stringify(inputs.body) : undefined,
  });
  if (response.ok && operation.http!.method === "GET" && response.headers.get("content-disposition")) {
    await writeRaw(response.body!);
    return { status: response.status, body: RAW_WRITTEN };
  }
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === "help" || first === "--help" || first === "-h") {
    console.log(HELP);
    return first ? 0 : 2;
  }
  const config = parseConfig(env);
  if (first === "migrate") {
    const database = await openDatabase(config, loggerFor(config));
    await database.close();
    console.log(JSON.stringify({ migrated: true, backend: config.databaseUrl ? "postgres" : "pglite" }));
    return 0;
  }
  // Commands are two words ("keys issue") or one ("login-link").
  const twoWords = COMMANDS[`${first} ${second ?? ""}`];
  const command = twoWords ?? COMMANDS[first];
  if (!command) throw new UsageError(`unknown command "${[first, second].filter(Boolean).join(" ")}"`);
  const args = twoWords ? rest : [second, ...rest].filter((arg): arg is string => arg !== undefined);
  const { values, positionals } = parseArgs({ args, options: command.options, allowPositionals: Boolean(command.positional), strict: true });
  const given: Record<string, unknown> = { ...values };
  if (command.positional) given[command.positional] = positionals[0];
  const missing = command.required.filter((name) => given[name] === undefined);
  if (missing.length) throw new UsageError(`missing ${missing.map((m) => (m === command.positional ? m.toUpperCase() : `--${m}`)).join(", ")}; usage: bun run cms ${command.usage}`);
  const operation = OPERATIONS.find((op) => op.id === command.operation)!;
  const inputs = command.inputs(given);
  const file = command.file?.(given);
  if (file && !(await Bun.file(file).exists())) throw new UsageError(`no such file: ${file}`);
  const dir = command.dir?.(given);
  if (dir && !(await stat(dir).then((s) => s.isDirectory(), () => false))) throw new UsageError(`not a directory: ${dir}`);
  const requestBody: Body | undefined = file ? { file } : dir ? { zip: await zipFolder(dir) } : undefined;

  let status: number;
  let body: unknown;
  const holder = config.databaseUrl ? null : lockHolder(config.dataDir);
  if (holder) {
    if (!config.adminKey)
      throw new UsageError(
        `the server (process ${holder.pid}) holds ${config.dataDir}; set CMS_ADMIN_KEY to the server's admin key so the CLI can send the command to it, or stop the server first`,
      );
    ({ status, body } = await runRemote(`http://127.0.0.1:${holder.port ?? config.port}`, config.adminKey, operation, inputs, requestBody));
  } else {
    const result = await runDirect(config, operation, inputs, requestBody);
    status = result.ok ? operation.http!.status : STATUS_OF[result.error.failure];
    body = result.ok ? result.value : bodyOf(result.error);
  }
  if (status >= 400) {
    const detail = (body as { detail?: unknown })?.detail;
    console.error(`error ${status}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    return 1;
  }
  if (body !== RAW_WRITTEN) console.log(JSON.stringify(body ?? { done: true }, null, 2));
  return 0;
}

if (import.meta.main) {
  try {
    process.exit(await main(process.argv.slice(2), process.env));
  } catch (error) {
    const known = error instanceof UsageError || error instanceof ConfigError || error instanceof DataDirBusy || (error as Error)?.name === "TypeError";
    console.error(`cms: ${known ? (error as Error).message : `failed: ${(error as Error)?.message ?? error}`}`);
    process.exit(1);
  }
}
