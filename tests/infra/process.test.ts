// The service and the CLI as a user runs them: start-up errors, the data-folder lock, operator commands.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client } from "../support/client.ts";
import { freePort, PROJECT_ROOT, randomAdminKey, startServer } from "../support/server.ts";

const bun = process.execPath;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "cms-proc-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const run = (args: string[], env: Record<string, string>) => {
  const result = Bun.spawnSync([bun, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: "warn", ...env } });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};
const cli = (args: string[], env: Record<string, string>) => run(["infra/cli.ts", ...args], env);

describe("start-up", () => {
  test("a wrong setting stops the process with one line naming it", () => {
    const result = run(["infra/main.ts"], { PORT: "not-a-port", DATA_DIR: tempDir() });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("PORT");
    expect(result.stderr).not.toContain("    at ");
  });

  test("a second server on the same embedded data folder is refused, the first keeps working", async () => {
    const dataDir = tempDir();
    const first = await startServer({}, { keepDataDir: dataDir });
    try {
      const second = run(["infra/main.ts"], { PORT: String(freePort()), DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("in use by process");
      expect((await fetch(`${first.url}/health/database`)).status).toBe(200);
    } finally {
      await first.stop();
    }
  });

  test("data survives a restart (embedded database on disk)", async () => {
    const dataDir = tempDir();
    const adminKey = randomAdminKey();
    const first = await startServer({ CMS_ADMIN_KEY: adminKey }, { keepDataDir: dataDir });
    const user = await client(first.url, adminKey).post("/internal/v1/users", { name: "Persistent", email: "p@example.test" });
    const key = await client(first.url, adminKey).post(`/internal/v1/users/${user.body.id}/keys`, {});
    const created = await client(first.url, key.body.key).post("/v1/campaigns", { title: "Kept on disk", system: "D&D 5e" });
    expect(created.status).toBe(201);
    await first.stop();
    const second = await startServer({ CMS_ADMIN_KEY: adminKey }, { keepDataDir: dataDir });
    try {
      // Read back what the first process wrote: the user, their key, their campaign.
      const api = client(second.url, key.body.key);
      const me = await api.get("/v1/users/me");
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: user.body.id, name: "Persistent", email: "p@example.test" });
      const campaign = await api.get(`/v1/campaigns/${created.body.id}`);
      expect(campaign.status).toBe(200);
      expect(campaign.body).toMatchObject({ id: created.body.id, title: "Kept on disk", system: "D&D 5e", created_at: created.body.created_at });
    } finally {
      await second.stop();
    }
  });

  test("changing CMS_ADMIN_KEY retires the old admin key", async () => {
    const dataDir = tempDir();
    const oldKey = randomAdminKey();
    const first = await startServer({ CMS_ADMIN_KEY: oldKey }, { keepDataDir: dataDir });
    await first.stop();
    const newKey = randomAdminKey();
    const second = await startServer({ CMS_ADMIN_KEY: newKey }, { keepDataDir: dataDir });
    try {
      expect((await client(second.url, newKey).post("/internal/v1/users", { name: "A", email: "a@example.test" })).status).toBe(201);
      expect((await client(second.url, oldKey).post("/internal/v1/users", { name: "B", email: "b@example.test" })).status).toBe(401);
    } finally {
      await second.stop();
    }
    // Setting a retired key again is refused by name (it used to die on a unique violation).
    await expect(startServer({ CMS_ADMIN_KEY: oldKey }, { keepDataDir: dataDir })).rejects.toThrow(
      "campaign-memory-service: could not start: CMS_ADMIN_KEY was used before and revoked; set a new one (openssl rand -hex 32)",
    );
  });
});

describe("operator CLI", () => {
  test("on a stopped embedded database: create a user, issue a key the server then accepts, revoke it", async () => {
    const dataDir = tempDir();
    const created = cli(["users", "create", "--name", "Grog", "--email", "grog@example.test"], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ name: "Grog", email: "grog@example.test" });
    const issued = cli(["keys", "issue", "--user", user.id], { DATA_DIR: dataDir });
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout);

    const server = await startServer({}, { keepDataDir: dataDir });
    try {
      expect((await client(server.url, key.key).get("/v1/users/me")).body.name).toBe("Grog");
    } finally {
      await server.stop();
    }
    expect(cli(["keys", "revoke", key.id], { DATA_DIR: dataDir }).code).toBe(0);
    const listed = JSON.parse(cli(["keys", "list", "--user", user.id], { DATA_DIR: dataDir }).stdout);
    expect(listed.data[0].revoked_at).not.toBeNull();
  });

  test("while a server holds the embedded database: goes through the server with the admin key, refuses without it", async () => {
    const dataDir = tempDir();
    const server = await startServer({}, { keepDataDir: dataDir });
    try {
      const refused = cli(["users", "create", "--name", "Pike", "--email", "pike@example.test"], { DATA_DIR: dataDir, CMS_ADMIN_KEY: "" });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("CMS_ADMIN_KEY");
      const viaServer = cli(["users", "create", "--name", "Pike", "--email", "pike@example.test"], { DATA_DIR: dataDir, CMS_ADMIN_KEY: server.adminKey });
      expect(viaServer.code).toBe(0);
      const user = JSON.parse(viaServer.stdout);
      const member = cli(["members", "add", "--campaign", "nope", "--user", user.id, "--role", "viewer"], { DATA_DIR: dataDir, CMS_ADMIN_KEY: server.adminKey });
      expect(member.code).toBe(1);
      expect(member.stderr).toContain("Campaign not found");
      expect((await fetch(`${server.url}/health/database`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  test("sessions and transcripts: through the running server, and directly on a stopped database", async () => {
    const dataDir = tempDir();
    const server = await startServer({}, { keepDataDir: dataDir });
    let campaignId: string;
    let sessionId: string;
    const crd3 = join(PROJECT_ROOT, "tests", "fixtures", "crd3", "C1E001.json");
    try {
      const env = { DATA_DIR: dataDir, CMS_ADMIN_KEY: server.adminKey };
      const user = JSON.parse(cli(["users", "create", "--name", "Matt", "--email", "matt@example.test"], env).stdout);
      const key = JSON.parse(cli(["keys", "issue", "--user", user.id], env).stdout).key;
      campaignId = (await client(server.url, key).post("/v1/campaigns", { title: "CLI" })).body.id;
      const created = cli(["sessions", "create", "--campaign", campaignId, "--title", "Episode 1", "--date", "2015-03-12T19:00:00Z", "--type", "chatVoice"], env);
      expect(created.code).toBe(0);
      sessionId = JSON.parse(created.stdout).id;
      const imported = cli(["transcripts", "import", "--session", sessionId, "--file", crd3], env);
      expect(imported.code).toBe(0);
      expect(JSON.parse(imported.stdout).utterance_count).toBeGreaterThan(1000);
      expect((await client(server.url, key).get(`/v1/sessions/${sessionId}/transcript`)).body.metadata.source_type).toBe("crd3");
      expect(cli(["transcripts", "import", "--session", sessionId, "--file", "/nope.txt"], env).stderr).toContain("no such file");
    } finally {
      await server.stop();
    }
    // Server stopped: the CLI opens the embedded database itself.
    const plain = join(dataDir, "plain.txt");
    await Bun.write(plain, "Matt: Roll initiative.\nSam: Twenty!\n");
    const direct = cli(["transcripts", "import", "--session", sessionId!, "--file", plain], { DATA_DIR: dataDir });
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.stdout)).toEqual({ utterance_count: 2, speakers: ["Matt", "Sam"] });
    const handout = cli(["handouts", "generate", "--session", sessionId!], { DATA_DIR: dataDir });
    expect(handout.code).toBe(0);
    expect(JSON.parse(handout.stdout).summary).toBeString();
    expect(cli(["sessions", "delete", sessionId!], { DATA_DIR: dataDir }).code).toBe(0);
  });

  test("usage errors are one clear line", () => {
    const dataDir = tempDir();
    const missing = cli(["users", "create", "--name", "X"], { DATA_DIR: dataDir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--email");
    const unknown = cli(["frobnicate"], { DATA_DIR: dataDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown command");
    expect(cli(["--help"], { DATA_DIR: dataDir }).stdout).toContain("members add");
  });
});
