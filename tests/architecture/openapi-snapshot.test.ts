// The published contract, committed: a change to /openapi.json or to the MCP tool list shows up in
// review as a diff of tests/snapshots/. UPDATE_SNAPSHOTS=1 rewrites the files instead of comparing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inProcessService } from "../support/inprocess.ts";
import { PROJECT_ROOT } from "../support/server.ts";

const SNAPSHOTS = join(PROJECT_ROOT, "tests", "snapshots");
const UPDATE = process.env.UPDATE_SNAPSHOTS === "1";
const HOW_TO_UPDATE = "If the change is intended, run `UPDATE_SNAPSHOTS=1 bun test tests/architecture/openapi-snapshot.test.ts` and commit tests/snapshots/.";

let service: Awaited<ReturnType<typeof inProcessService>>;
let userKey: string;

beforeAll(async () => {
  service = await inProcessService();
  userKey = (await service.newUser("S", "s@example.test")).key;
});
afterAll(() => service?.close());

/** Compares `served` with the committed file, or rewrites the file when asked to. */
function matchesSnapshot(file: string, served: unknown) {
  const path = join(SNAPSHOTS, file);
  const text = `${JSON.stringify(served, null, 2)}\n`;
  if (UPDATE) {
    writeFileSync(path, text);
    return;
  }
  if (!existsSync(path)) throw new Error(`tests/snapshots/${file} is missing. ${HOW_TO_UPDATE}`);
  const committed = readFileSync(path, "utf8");
  if (committed === text) return;
  // Name the first difference: the whole documents are too long for a readable failure.
  const a = committed.split("\n");
  const b = text.split("\n");
  const line = a.findIndex((row, i) => row !== b[i]);
  const at = line < 0 ? a.length : line;
  throw new Error(
    `The served contract differs from tests/snapshots/${file} at line ${at + 1}:\n` +
      `  committed: ${a[at] ?? "(end of file)"}\n  served:    ${b[at] ?? "(end of document)"}\n${HOW_TO_UPDATE}`,
  );
}

describe("published contract snapshots", () => {
  test("/openapi.json is the committed tests/snapshots/openapi.json", async () => {
    const response = await service.request("GET", "/openapi.json");
    expect(response.status).toBe(200);
    matchesSnapshot("openapi.json", await response.json());
  });

  test("the MCP tools/list answer is the committed tests/snapshots/mcp-tools.json", async () => {
    const response = await service.request("POST", "/mcp", {
      key: userKey,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(response.status).toBe(200);
    const { result } = await response.json();
    expect(result.tools.length).toBeGreaterThan(0);
    matchesSnapshot("mcp-tools.json", result.tools);
  });

  test("a changed document fails with a message that says how to update", () => {
    if (UPDATE) return;
    expect(() => matchesSnapshot("openapi.json", { openapi: "0.0.0" })).toThrow("UPDATE_SNAPSHOTS=1 bun test tests/architecture/openapi-snapshot.test.ts");
  });
});
