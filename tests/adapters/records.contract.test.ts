// One contract for the record ports, run against every backend that can run here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { uuidV7 } from "../../adapters/system/system.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { loadMigrations } from "../../infra/container.ts";
import type { Campaign } from "../../domain/campaign.ts";
import type { RecordStore } from "../../ports/records.ts";
import { announceSkip, recordBackends } from "../support/backends.ts";

const backends = await recordBackends();

const at = (offsetMs = 0) => new Date(Date.UTC(2026, 0, 1) + offsetMs).toISOString();

const campaignOf = (owner: string, title: string, created_at = at(), extra: Partial<Campaign> = {}): Campaign => ({
  id: uuidV7.next(),
  title,
  description: null,
  system: null,
  summary: null,
  language: "en",
  image: null,
  public: false,
  mature: false,
  owner_id: owner,
  created_at,
  updated_at: null,
  ...extra,
});

for (const backend of backends) {
  if (backend.skipReason) announceSkip("record store contract", backend);
  describe.skipIf(Boolean(backend.skipReason))(`record store contract on ${backend.name}`, () => {
    let store: RecordStore;
    let close: () => Promise<void>;
    let alice: string;
    let bob: string;

    beforeAll(async () => {
      const opened = await backend.open();
      close = opened.close;
      store = sqlRecordStore(opened.db);
      alice = (await store.users.insert({ id: uuidV7.next(), name: "Alice", email: "alice@example.test", role: "user", created_at: at() }))!.id;
      bob = (await store.users.insert({ id: uuidV7.next(), name: "Bob", email: "bob@example.test", role: "user", created_at: at() }))!.id;
    });
    afterAll(async () => close?.());

    test("users: insert, get, find by email, duplicate email refused", async () => {
      const fetched = await store.users.get(alice);
      expect(fetched).toMatchObject({ id: alice, name: "Alice", email: "alice@example.test", role: "user", created_at: at() });
      expect((await store.users.findByEmail("alice@example.test"))?.id).toBe(alice);
      expect(await store.users.insert({ id: uuidV7.next(), name: "X", email: "alice@example.test", role: "user", created_at: at() })).toBeNull();
      expect(await store.users.get("missing")).toBeNull();
    });

    test("api keys: active lookup by digest, revoke takes effect at once, revoke-all-but-one", async () => {
      const key = await store.apiKeys.insert({ id: uuidV7.next(), user_id: alice, prefix: "cms_abc", hash: "digest-1", scopes: ["product_write"], created_at: at() });
      expect(key.revoked_at).toBeNull();
      expect(await store.apiKeys.findActiveByHash("digest-1")).toEqual({ keyId: key.id, userId: alice, scopes: ["product_write"] });
      expect(await store.apiKeys.revoke(key.id, at(1))).toBe(true);
      expect(await store.apiKeys.findActiveByHash("digest-1")).toBeNull();
      expect(await store.apiKeys.revoke(key.id, at(2))).toBe(false);
      expect((await store.apiKeys.get(key.id))?.revoked_at).toBe(at(1));

      const keep = await store.apiKeys.insert({ id: uuidV7.next(), user_id: bob, prefix: "p", hash: "keep", scopes: [], created_at: at() });
      await store.apiKeys.insert({ id: uuidV7.next(), user_id: bob, prefix: "p", hash: "drop", scopes: [], created_at: at() });
      expect(await store.apiKeys.revokeAllForUserExcept(bob, "keep", at(3))).toBe(1);
      expect((await store.apiKeys.findActiveByHash("keep"))?.keyId).toBe(keep.id);
      expect(await store.apiKeys.findActiveByHash("drop")).toBeNull();
      expect((await store.apiKeys.listForUser(bob)).length).toBe(2);
    });

    test("campaigns: round trip of every field, standing, update, ownership transfer", async () => {
      const campaign = campaignOf(alice, "Round trip", at(10), { description: "d", system: "5e", summary: "s", image: "https://e.com/i.png", mature: true, language: "de" });
      await store.campaigns.insert(campaign);
      expect(await store.campaigns.get(campaign.id)).toEqual(campaign);
      expect(await store.campaigns.getWithStanding(campaign.id, bob)).toEqual({ campaign, roles: [] });
      await store.members.upsert({ campaign_id: campaign.id, user_id: bob, roles: ["viewer"], created_at: at() });
      expect((await store.campaigns.getWithStanding(campaign.id, bob))?.roles).toEqual(["viewer"]);
      await store.members.upsert({ campaign_id: campaign.id, user_id: bob, roles: ["player"], created_at: at() });
      expect((await store.members.get(campaign.id, bob))?.roles).toEqual(["player"]);

      const updated = await store.campaigns.update(campaign.id, { title: "Renamed", description: null }, at(20));
      expect(updated).toEqual({ ...campaign, title: "Renamed", description: null, updated_at: at(20) });
      await store.campaigns.transferOwnership(campaign.id, bob, at(30));
      expect((await store.campaigns.get(campaign.id))?.owner_id).toBe(bob);
      expect(await store.campaigns.update("missing", { title: "x" }, at())).toBeNull();
    });

    test("campaigns: listing is scoped to owner or member, newest first, paginated, filterable", async () => {
      const carol = (await store.users.insert({ id: uuidV7.next(), name: "Carol", email: "carol@example.test", role: "user", created_at: at() }))!.id;
      const owned = [1, 2, 3].map((n) => campaignOf(carol, `Carol ${n}`, at(1000 + n)));
      for (const c of owned) await store.campaigns.insert(c);
      const foreign = campaignOf(alice, "Alice's, shared", at(2000));
      await store.campaigns.insert(foreign);
      await store.members.upsert({ campaign_id: foreign.id, user_id: carol, roles: ["viewer"], created_at: at() });
      await store.campaigns.insert(campaignOf(alice, "Alice's private 100%_", at(3000)));
      await store.campaigns.insert(campaignOf(alice, "Alice's public", at(4000), { public: true }));

      const all = await store.campaigns.listVisibleTo(carol, {}, { page: 1, size: 10 });
      expect(all.total).toBe(4);
      expect(all.rows.map((c) => c.title)).toEqual(["Alice's, shared", "Carol 3", "Carol 2", "Carol 1"]);
      const page2 = await store.campaigns.listVisibleTo(carol, {}, { page: 2, size: 3 });
      expect(page2).toMatchObject({ total: 4, rows: [{ title: "Carol 1" }] });
      const beyond = await store.campaigns.listVisibleTo(carol, {}, { page: 9, size: 3 });
      expect(beyond).toEqual({ rows: [], total: 4 });
      expect((await store.campaigns.listVisibleTo(carol, { search: "SHARED" }, { page: 1, size: 10 })).rows.map((c) => c.id)).toEqual([foreign.id]);
      expect((await store.campaigns.listVisibleTo(carol, { ownerId: carol }, { page: 1, size: 10 })).total).toBe(3);
      expect((await store.campaigns.listVisibleTo(carol, { publicOnly: true }, { page: 1, size: 10 })).rows.map((c) => c.title)).toEqual(["Alice's public"]);
      // LIKE metacharacters in a search are literal.
      expect((await store.campaigns.listVisibleTo(alice, { search: "100%_" }, { page: 1, size: 10 })).total).toBe(1);
      expect((await store.campaigns.listVisibleTo(alice, { search: "%" }, { page: 1, size: 10 })).total).toBe(1);
    });

    test("transactions: everything or nothing", async () => {
      const campaign = campaignOf(alice, "Atomic");
      await expect(
        store.withTransaction(async (tx) => {
          await tx.campaigns.insert(campaign);
          await tx.members.upsert({ campaign_id: campaign.id, user_id: alice, roles: ["admin"], created_at: at() });
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await store.campaigns.get(campaign.id)).toBeNull();
      expect(await store.members.get(campaign.id, alice)).toBeNull();

      await store.withTransaction(async (tx) => {
        await tx.campaigns.insert(campaign);
        await tx.members.upsert({ campaign_id: campaign.id, user_id: alice, roles: ["admin"], created_at: at() });
      });
      expect(await store.campaigns.get(campaign.id)).not.toBeNull();
    });

    test("campaign delete removes its members, speakers, settings and field definitions", async () => {
      const campaign = campaignOf(alice, "Doomed");
      await store.campaigns.insert(campaign);
      await store.members.upsert({ campaign_id: campaign.id, user_id: bob, roles: ["player"], created_at: at() });
      await store.speakers.insert({ id: uuidV7.next(), campaign_id: campaign.id, name: "GM", handle: null, user_id: alice, roles: ["gm"], created_at: at() });
      await store.settings.putCharacterArc(campaign.id, { enabled: true, stages: ["a"], track: ["PC"] }, at());
      await store.settings.insertFieldDefinitions([
        { id: uuidV7.next(), campaign_id: campaign.id, entity_type: "item", key: "rarity", label: "Rarity", field_type: "select", options: ["Rare"], position: 0, created_at: at() },
      ]);
      expect((await store.settings.listFieldDefinitions(campaign.id))[0]).toMatchObject({ key: "rarity", options: ["Rare"], position: 0 });
      expect(await store.settings.getCharacterArc(campaign.id)).toEqual({ enabled: true, stages: ["a"], track: ["PC"] });

      expect(await store.campaigns.delete(campaign.id)).toBe(true);
      expect(await store.campaigns.delete(campaign.id)).toBe(false);
      expect(await store.members.list(campaign.id)).toEqual([]);
      expect(await store.speakers.list(campaign.id)).toEqual([]);
      expect(await store.settings.getCharacterArc(campaign.id)).toBeNull();
      expect(await store.settings.listFieldDefinitions(campaign.id)).toEqual([]);
    });

    test("members: remove reports whether there was one", async () => {
      const campaign = campaignOf(alice, "Members");
      await store.campaigns.insert(campaign);
      await store.members.upsert({ campaign_id: campaign.id, user_id: bob, roles: ["player"], created_at: at() });
      expect(await store.members.remove(campaign.id, bob)).toBe(true);
      expect(await store.members.remove(campaign.id, bob)).toBe(false);
    });

    test("migrations are recorded and re-running them changes nothing", async () => {
      const before = await store.health();
      expect(before.backend).toBe(backend.name);
      expect(before.migrations.applied).toBe(loadMigrations().length);
      const { db, close: closeAgain } = await backend.open();
      try {
        expect(await applyMigrations(db, loadMigrations())).toEqual([]);
      } finally {
        await closeAgain();
      }
    });
  });
}

test("every backend is accounted for", () => {
  expect(backends.map((b) => b.name)).toEqual(["pglite", "postgres"]);
  if (process.env.CI && process.env.REQUIRE_POSTGRES !== "0") {
    // CI has a PostgreSQL server: a silent skip there would hide a broken backend.
    expect(backends.find((b) => b.name === "postgres")?.skipReason ?? null).toBeNull();
  }
});
