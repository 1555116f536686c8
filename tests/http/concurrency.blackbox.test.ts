// Black-box: concurrent requests against real server processes. On PostgreSQL requests run on
// many connections at once, so lost updates, deadlocks and double owners show here; PGlite runs
// one transaction at a time and must keep the same owner rules.
//
// "Acknowledged" means a 2xx answer: the change is committed and stays visible until a later
// acknowledged change replaces it or an acknowledged DELETE removes the record. A DELETE
// answered 204 leaves no record, no link from or to it and no search document; a PATCH that
// lost its race with that DELETE answers 404 with the record's not-found detail, never 5xx.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { forEachBackend, recordBackends, serverWithUsers, type User } from "../support/backends.ts";
import { client, newUser, type Client } from "../support/client.ts";
import { scratchDatabase, type ScratchDatabase } from "../support/postgres.ts";
import { randomAdminKey, startServer, type TestServer } from "../support/server.ts";

const backends = await recordBackends();
const pg = backends.find((backend) => backend.name === "postgres")!;

const HEIRS = Array.from({ length: 10 }, (_, i) => `Heir${i}`);

await forEachBackend("campaign ownership under concurrency", (backend) => {
  let admin: Client;
  let alice: User;
  const others: User[] = [];

  serverWithUsers(backend, ["Alice", ...HEIRS], (fixture) => {
    admin = fixture.admin;
    alice = fixture.users.Alice!;
    others.push(...HEIRS.map((name) => fixture.users[name]!));
  });

  const ownerOnly = "Only the campaign owner can do this";

  test("two hand-overs in a row: the former owners are admins, only the last one may delete", async () => {
    const [bob, carol] = others as [User, User];
    const campaign = (await alice.api.post("/v1/campaigns", { title: "Twice handed" })).body;
    const toBob = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "owner" });
    expect(toBob.status).toBe(201);
    expect(toBob.body).toMatchObject({ user_id: bob.id, role: "owner", roles: ["owner"] });
    const toCarol = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: carol.id, role: "owner" });
    expect(toCarol.status).toBe(201);
    expect(toCarol.body).toMatchObject({ user_id: carol.id, role: "owner", roles: ["owner"] });
    expect((await carol.api.get(`/v1/campaigns/${campaign.id}`)).body.owner_id).toBe(carol.id);

    for (const former of [alice, bob]) {
      const denied = await former.api.delete(`/v1/campaigns/${campaign.id}`);
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toBe(ownerOnly);
      // Still a game master: manage access stays.
      expect((await former.api.patch(`/v1/campaigns/${campaign.id}`, { description: `kept by ${former.id}` })).status).toBe(200);
    }
    // Bob re-roled as a player: the owner role he once had is gone for good.
    const bobPlayer = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "player" });
    expect(bobPlayer.body).toMatchObject({ role: "player", roles: ["player"] });
    const removeOwner = await admin.delete(`/internal/v1/campaigns/${campaign.id}/members/${carol.id}`);
    expect(removeOwner.status).toBe(400);
    expect(removeOwner.body.detail).toBe("The campaign owner cannot be removed; make another member the owner first");
    expect((await carol.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(204);
  });

  test("the owner given another role stays the owner", async () => {
    const campaign = (await alice.api.post("/v1/campaigns", { title: "Re-roled" })).body;
    const reply = await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: alice.id, role: "viewer" });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ user_id: alice.id, role: "owner", roles: ["owner", "viewer"] });
    expect((await alice.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(204);
  });

  test("a journal PATCH refused half-way (author handed over, then the new author removed) changes nothing", async () => {
    const bob = others[9]!;
    const campaign = (await alice.api.post("/v1/campaigns", { title: "Diaries" })).body;
    expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: bob.id, role: "player" })).status).toBe(201);
    const id = (await alice.api.post("/v1/journals", { world_id: campaign.id, title: "Alice's notes", content: "secret" })).body.id;
    expect((await alice.api.put("/v1/journals", { id, permissions: { add: [{ user_id: bob.id, level: "view" }] } })).status).toBe(200);
    const refused = await alice.api.put("/v1/journals", { id, author_id: bob.id, title: "Renamed", permissions: { remove: [{ user_id: bob.id }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe("Cannot remove the current owner from this journal entry.");
    expect((await alice.api.get(`/v1/journals/${id}`)).body).toMatchObject({ title: "Alice's notes", author_id: alice.id, permission_level: "manage" });
    const bobView = await bob.api.get(`/v1/journals/${id}`);
    expect(bobView.status).toBe(200);
    expect(bobView.body.permission_level).toBe("view");
  });

  test("ten parallel hand-overs: all acknowledged, exactly one owner afterwards, the others admins", async () => {
    const campaign = (await alice.api.post("/v1/campaigns", { title: "Contested" })).body;
    const replies = await Promise.all(others.map((heir) => admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: heir.id, role: "owner" })));
    for (const [i, reply] of replies.entries()) {
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({ user_id: others[i]!.id, role: "owner" });
    }
    const ownerId = (await alice.api.get(`/v1/campaigns/${campaign.id}`)).body.owner_id;
    const owner = others.find((heir) => heir.id === ownerId);
    expect(owner).toBeDefined();
    for (const member of [alice, ...others]) {
      if (member === owner) continue;
      const denied = await member.api.delete(`/v1/campaigns/${campaign.id}`);
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toBe(ownerOnly);
      expect((await member.api.patch(`/v1/campaigns/${campaign.id}`, { description: "an admin still" })).status).toBe(200);
    }
    expect((await owner!.api.delete(`/v1/campaigns/${campaign.id}`)).status).toBe(204);
  });
});

/** A server on a scratch database this suite can also read directly. */
async function serverWithDatabase(): Promise<{ server: TestServer; scratch: ScratchDatabase; sql: postgres.Sql; stop(): Promise<void> }> {
  const scratch = await scratchDatabase("race");
  const server = await startServer({ DATABASE_URL: scratch.url });
  const sql = postgres(scratch.url, { max: 1, onnotice: () => {} });
  return {
    server,
    scratch,
    sql,
    stop: async () => {
      await sql.end();
      await server.stop();
      await scratch.drop();
    },
  };
}

describe.skipIf(Boolean(pg.skipReason))("races on postgres", () => {
  let env: Awaited<ReturnType<typeof serverWithDatabase>>;
  let admin: Client;
  let gm: User;
  let campaignId: string;

  beforeAll(async () => {
    env = await serverWithDatabase();
    admin = client(env.server.url, env.server.adminKey);
    gm = await newUser(env.server.url, env.server.adminKey, "GM");
    campaignId = (await gm.api.post("/v1/campaigns", { title: "Race track" })).body.id;
  });
  afterAll(async () => {
    await env?.stop();
  });

  const character = async (name: string, description?: string) => {
    const reply = await gm.api.post("/v1/characters", { campaign_id: campaignId, character_name: name, ...(description ? { description } : {}) });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const moment = async (label: string, content?: string) => {
    const reply = await gm.api.post("/v1/moments", { campaign_id: campaignId, label, ...(content ? { content } : {}) });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const linksTouching = async (id: string) => {
    const from = await gm.api.get(`/v1/campaigns/${campaignId}/links?from_id=${id}&size=100`);
    const to = await gm.api.get(`/v1/campaigns/${campaignId}/links?to_id=${id}&size=100`);
    expect(from.status).toBe(200);
    expect(to.status).toBe(200);
    return [...from.body.data, ...to.body.data];
  };
  const searchDocuments = async (id: string) => Number((await env.sql`select count(*)::int as n from search_documents where doc_id = ${id}`)[0]!.n);

  test("50 parallel PATCHes merging different metadata keys: every key survives", async () => {
    const id = await moment("Many hands");
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => gm.api.patch(`/v1/moments/${id}`, { metadata: { [`key${i}`]: i } })));
    for (const [i, reply] of replies.entries()) {
      expect(reply.status).toBe(200);
      expect(reply.body.metadata[`key${i}`]).toBe(i);
    }
    const metadata = (await gm.api.get(`/v1/moments/${id}`)).body.metadata;
    expect(Object.keys(metadata).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `key${i}`).sort());
    for (let i = 0; i < 50; i++) expect(metadata[`key${i}`]).toBe(i);
  });

  test("parallel character PATCHes of different fields: none overwrites another", async () => {
    const id = await character("Keyleth");
    const fields = { description: "Druid of the Air Ashari", backstory: "Aramenté", player_name: "Marisha", image: "https://example.test/k.png" };
    const replies = await Promise.all(Object.entries(fields).map(([field, value]) => gm.api.patch(`/v1/characters/${id}`, { [field]: value })));
    for (const reply of replies) expect(reply.status).toBe(200);
    expect((await gm.api.get(`/v1/characters/${id}`)).body).toMatchObject(fields);
  });

  test("PATCH racing DELETE of the same moment: never 5xx; a 204 DELETE leaves no moment, link or search document", async () => {
    await character("Vex'ahlia");
    for (let round = 0; round < 25; round++) {
      const id = await moment(`Doomed ${round}`, "before");
      const [patch, del] = await Promise.all([
        gm.api.patch(`/v1/moments/${id}`, { content: `[[Vex'ahlia]] shoots ${round}`, metadata: { round } }),
        gm.api.delete(`/v1/moments/${id}`),
      ]);
      expect(del.status).toBe(204);
      if (patch.status === 200) expect(patch.body).toMatchObject({ id, content: `Vex'ahlia shoots ${round}`, metadata: { round } });
      else expect({ status: patch.status, detail: patch.body.detail }).toEqual({ status: 404, detail: "Moment not found" });
      const after = await gm.api.get(`/v1/moments/${id}`);
      expect({ status: after.status, detail: after.body.detail }).toEqual({ status: 404, detail: "Moment not found" });
      expect(await linksTouching(id)).toEqual([]);
      expect(await searchDocuments(id)).toBe(0);
    }
  });

  test("PATCH racing DELETE of the same character, and a moment linking to it meanwhile: no link outlives it", async () => {
    for (let round = 0; round < 20; round++) {
      await character(`Ally ${round}`);
      const id = await character(`Scanlan ${round}`, "bard");
      const mention = await moment(`Mention ${round}`);
      const [patch, del, link] = await Promise.all([
        gm.api.patch(`/v1/characters/${id}`, { description: `sings to [[Ally ${round}]]` }),
        gm.api.delete(`/v1/characters/${id}`),
        gm.api.patch(`/v1/moments/${mention}`, { content: `[[Scanlan ${round}]] again` }),
      ]);
      expect(del.status).toBe(204);
      expect(link.status).toBe(200);
      if (patch.status === 200) expect(patch.body.description).toBe(`sings to Ally ${round}`);
      else expect({ status: patch.status, detail: patch.body.detail }).toEqual({ status: 404, detail: "Character not found" });
      const after = await gm.api.get(`/v1/characters/${id}`);
      expect({ status: after.status, detail: after.body.detail }).toEqual({ status: 404, detail: "Character not found" });
      expect(await linksTouching(id)).toEqual([]);
      expect(await searchDocuments(id)).toBe(0);
    }
  });

  test("parallel saves of one moment syncing different wikilinks: the links are the final text's", async () => {
    const targets = await Promise.all(Array.from({ length: 8 }, (_, i) => character(`Target ${i}`)));
    // Half the saves write back the text the moment started with: a save that compared against a
    // stale read would think nothing changed and skip the sync.
    const original = "[[Target 0]] and [[Target 1]]";
    const id = await moment("Crossfire", original);
    for (let round = 0; round < 8; round++) {
      const texts = targets.map((_, i) => (i % 2 === 0 ? original : `[[Target ${i}]] and [[Target ${(i + 1) % 8}]] round ${round}`));
      const replies = await Promise.all(texts.map((content) => gm.api.patch(`/v1/moments/${id}`, { content })));
      for (const reply of replies) expect(reply.status).toBe(200);
      const final = (await gm.api.get(`/v1/moments/${id}?with_links=true`)).body.content as string;
      const named = [...final.matchAll(/\[\[Target (\d)\]\]/g)].map((m) => targets[Number(m[1])]).sort();
      expect(named).toHaveLength(2);
      const links = (await gm.api.get(`/v1/campaigns/${campaignId}/links?from_id=${id}&size=100`)).body.data;
      expect(links.map((l: { to_id: string }) => l.to_id).sort()).toEqual(named);
    }
  });

  test("parallel hand-overs: exactly one membership row holds owner, and it is owner_id's", async () => {
    const heirs = await Promise.all(Array.from({ length: 10 }, (_, i) => newUser(env.server.url, env.server.adminKey, `Heir${i}`)));
    const campaign = (await gm.api.post("/v1/campaigns", { title: "Throne" })).body.id as string;
    const replies = await Promise.all(heirs.map((heir) => admin.post(`/internal/v1/campaigns/${campaign}/members`, { user_id: heir.id, role: "owner" })));
    for (const reply of replies) expect(reply.status).toBe(201);
    const [row] = await env.sql`select owner_id from campaigns where id = ${campaign}`;
    const owners = await env.sql`select user_id from campaign_members where campaign_id = ${campaign} and roles ? 'owner'`;
    expect(owners.map((o) => o.user_id)).toEqual([row!.owner_id]);
    const admins = await env.sql`select user_id from campaign_members where campaign_id = ${campaign} and roles ? 'admin' and not roles ? 'owner'`;
    expect(admins.map((a) => a.user_id).sort()).toEqual([gm.id, ...heirs.map((h) => h.id)].filter((id) => id !== row!.owner_id).sort());
  });

  test("the database itself refuses a second owner row", async () => {
    const campaign = (await gm.api.post("/v1/campaigns", { title: "Guarded" })).body.id as string;
    const bob = await newUser(env.server.url, env.server.adminKey, "Bob");
    await admin.post(`/internal/v1/campaigns/${campaign}/members`, { user_id: bob.id, role: "player" });
    const attempt = env.sql`update campaign_members set roles = '["owner"]' where campaign_id = ${campaign} and user_id = ${bob.id}`;
    await expect(attempt).rejects.toMatchObject({ code: "23505", constraint_name: "campaign_members_one_owner" });
  });
});

describe.skipIf(Boolean(pg.skipReason))("instances started together on one fresh postgres database", () => {
  test("both start and accept the admin key, every time; revocation on one stops a key on the other", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const scratch = await scratchDatabase("twins");
      const adminKey = randomAdminKey();
      const started = await Promise.allSettled([0, 1].map(() => startServer({ DATABASE_URL: scratch.url, CMS_ADMIN_KEY: adminKey })));
      const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      try {
        expect(started.map((result) => (result.status === "rejected" ? String(result.reason).slice(0, 300) : "started"))).toEqual(["started", "started"]);
        for (const server of servers) {
          const me = await client(server.url, adminKey).get("/v1/users/me");
          expect(me.status).toBe(200);
          expect(me.body).toMatchObject({ email: "admin@campaign-memory.local", scopes: ["product_write"] });
        }
        const [one, other] = servers as [TestServer, TestServer];
        const user = await newUser(one.url, adminKey, "Pike");
        expect((await client(other.url, user.key).get("/v1/users/me")).status).toBe(200);
        expect((await client(one.url, adminKey).delete(`/internal/v1/keys/${user.keyId}`)).status).toBe(204);
        const revoked = await client(other.url, user.key).get("/v1/users/me");
        expect({ status: revoked.status, detail: revoked.body.detail }).toEqual({ status: 401, detail: "Invalid API key" });
      } finally {
        for (const server of servers) await server.stop();
        await scratch.drop();
      }
    }
  });
});
