// One contract for the record ports, run against every backend that can run here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { uuidV7 } from "../../adapters/system/system.ts";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { loadMigrations } from "../../infra/container.ts";
import type { Campaign } from "../../domain/campaign.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, recordBackends } from "../support/backends.ts";
import fc from "fast-check";
import { journalPermission, type JournalEntry, type PermissionLevel } from "../../domain/journals.ts";
import { at, campaignRecord } from "../support/records.ts";

const backends = await recordBackends();

const campaignOf = (owner: string, title: string, created_at = at(), extra: Partial<Campaign> = {}): Campaign => campaignRecord(owner, { title, created_at, ...extra });

/** A journal entry with every optional field empty: who wrote it and whether it is public vary. */
const entryOf = (campaignId: string, author: string, isPublic: boolean): JournalEntry => ({
  id: uuidV7.next(), campaign_id: campaignId, title: "t", summary: null, content: "", content_rich: null, content_metadata: null, tags: [], token_count: 1,
  cover_image: null, is_pinned: false, is_public: isPublic, status: "draft", published_at: null, archived_at: null, folder_id: null,
  author_id: author, last_edited_by_id: null, created_at: at(), updated_at: null,
});

/** Inserts such an entry with its shares (user → level); its id. */
async function insertShared(store: RecordStore, campaignId: string, spec: { author: string; isPublic: boolean; shares: Record<string, string> }): Promise<string> {
  const entry = entryOf(campaignId, spec.author, spec.isPublic);
  await store.journals.insert(entry);
  for (const [user, level] of Object.entries(spec.shares)) await store.journals.putShare(entry.id, { user_id: user, level: level as PermissionLevel }, at());
  return entry.id;
}

await forEachBackend("record store contract", (backend) => {
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

  test("api keys: the key and the caller's standing in a campaign come back in one read", async () => {
    const campaign = campaignOf(alice, "Prefetch");
    await store.campaigns.insert(campaign);
    await store.members.upsert({ campaign_id: campaign.id, user_id: bob, roles: ["viewer"], created_at: at() });
    const key = await store.apiKeys.insert({ id: uuidV7.next(), user_id: bob, prefix: "p", hash: "prefetch-digest", scopes: [], created_at: at() });
    expect(await store.apiKeys.findActiveByHashWithCampaign("prefetch-digest", campaign.id)).toEqual({
      key: { keyId: key.id, userId: bob, scopes: [] },
      campaign: { campaign, roles: ["viewer"] },
    });
    expect(await store.apiKeys.findActiveByHashWithCampaign("prefetch-digest", "missing")).toEqual({ key: { keyId: key.id, userId: bob, scopes: [] }, campaign: null });
    await store.apiKeys.revoke(key.id, at(1));
    expect(await store.apiKeys.findActiveByHashWithCampaign("prefetch-digest", campaign.id)).toBeNull();
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

  test("campaigns: archived_at round-trips, archived follows it, lists filter on it", async () => {
    const dave = (await store.users.insert({ id: uuidV7.next(), name: "Dave", email: "dave@example.test", role: "user", created_at: at() }))!.id;
    const active = campaignOf(dave, "Active", at(1));
    const shelved = campaignOf(dave, "Shelved", at(2), { archived: true, archived_at: at(5) });
    await store.campaigns.insert(active);
    await store.campaigns.insert(shelved);
    expect(await store.campaigns.get(shelved.id)).toEqual(shelved);
    const titles = async (archived?: boolean) => (await store.campaigns.listVisibleTo(dave, { archived }, { page: 1, size: 10 })).rows.map((c) => c.title);
    expect(await titles()).toEqual(["Shelved", "Active"]);
    expect(await titles(true)).toEqual(["Shelved"]);
    expect(await titles(false)).toEqual(["Active"]);
    expect(await store.campaigns.update(active.id, { archived_at: at(9) }, at(9))).toEqual({ ...active, archived: true, archived_at: at(9), updated_at: at(9) });
    expect(await store.campaigns.update(shelved.id, { archived_at: null }, at(10))).toEqual({ ...shelved, archived: false, archived_at: null, updated_at: at(10) });
    expect(await titles(true)).toEqual(["Active"]);
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

  test("transactions: a failed Result rolls back the writes made before it and comes back as it was", async () => {
    const campaign = campaignOf(alice, "Refused half-way");
    const refusal = { ok: false as const, error: { failure: "bad_request" as const, detail: "no" } };
    const result = await store.withTransaction(async (tx) => {
      await tx.campaigns.insert(campaign);
      return refusal;
    });
    expect(result).toEqual({ ok: false, error: { failure: "bad_request", detail: "no" } });
    expect(await store.campaigns.get(campaign.id)).toBeNull();
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

  test("characters: round trip, search by name/alias/misspelling, filters, delete", async () => {
    const campaign = campaignOf(alice, "Compendium");
    await store.campaigns.insert(campaign);
    const base = { campaign_id: campaign.id, player_name: null, player_handle: null, speaker_id: null, description: null, backstory: null, image: null, tcg_image: null, approved: true, merge: false, created_at: at(), updated_at: null };
    const grog = { ...base, id: uuidV7.next(), character_name: "Grog Strongjaw", character_aliases: ["The Big Guy"], type: "PC" as const, created_at: at(1) };
    const kima = { ...base, id: uuidV7.next(), character_name: "Kima", character_aliases: [], type: "NPC" as const, approved: false, created_at: at(2) };
    await store.characters.insert(grog);
    await store.characters.insert(kima);
    expect(await store.characters.get(grog.id)).toEqual(grog);
    await store.characters.replace({ ...grog, description: "Goliath", updated_at: at(5) });
    expect((await store.characters.get(grog.id))?.description).toBe("Goliath");
    const page = { page: 1, size: 10 };
    expect((await store.characters.list(campaign.id, { approvedOnly: false }, page)).rows.map((c) => c.character_name)).toEqual(["Kima", "Grog Strongjaw"]);
    expect((await store.characters.list(campaign.id, { approvedOnly: true }, page)).total).toBe(1);
    expect((await store.characters.list(campaign.id, { approvedOnly: false, type: "NPC" }, page)).rows.map((c) => c.id)).toEqual([kima.id]);
    for (const search of ["grog", "big guy", "Strongjw", "PC"])
      expect((await store.characters.list(campaign.id, { approvedOnly: false, search }, page)).rows[0]?.id).toBe(grog.id);
    expect((await store.characters.list(campaign.id, { approvedOnly: false, search: "zzzz" }, page)).total).toBe(0);
    expect(await store.characters.delete(kima.id)).toBe(true);
    expect(await store.characters.get(kima.id)).toBeNull();
  });

  test("entities: kinds kept apart, ancestry walks up to the root", async () => {
    const campaign = campaignOf(alice, "Places");
    await store.campaigns.insert(campaign);
    const place = (name: string, parent_id: string | null) => ({ id: uuidV7.next(), campaign_id: campaign.id, kind: "location" as const, name, aliases: [], description: null, type: null, image: null, tcg_image: null, parent_id, merge: false, created_at: at(), updated_at: null });
    const world = place("Exandria", null);
    const city = place("Emon", world.id);
    const keep = place("Greyskull Keep", city.id);
    for (const p of [world, city, keep]) await store.entities.insert(p);
    await store.entities.insert({ ...place("Clasp", null), kind: "faction" });
    expect(await store.entities.ancestry(keep.id)).toEqual(new Map([[keep.id, city.id], [city.id, world.id], [world.id, null]]));
    expect((await store.entities.list(campaign.id, "location", {}, { page: 1, size: 10 })).total).toBe(3);
    expect((await store.entities.list(campaign.id, "faction", {}, { page: 1, size: 10 })).total).toBe(1);
    expect((await store.entities.list(campaign.id, "location", { search: "Greyskul" }, { page: 1, size: 10 })).rows[0]?.id).toBe(keep.id);
    await store.entities.delete(city.id);
    expect((await store.entities.get(keep.id))?.parent_id).toBeNull();
  });

  test("links: upsert on source and alias key, conflicts on rename, pruning and cleanup", async () => {
    const campaign = campaignOf(alice, "Links");
    await store.campaigns.insert(campaign);
    const link = (alias: string, to_id: string, origin: "api" | "wikilink" = "api") => ({
      id: uuidV7.next(), campaign_id: campaign.id, from_id: "src", from_type: "Character" as const, to_id, to_type: "Character" as const,
      alias, alias_key: alias.toLowerCase(), origin, created_at: at(),
    });
    const first = await store.links.upsert(link("Mira", "t1"));
    const replaced = await store.links.upsert(link("MIRA", "t2"));
    expect(replaced.id).toBe(first.id);
    expect(replaced.to_id).toBe("t2");
    const second = await store.links.upsert(link("Captain", "t3", "wikilink"));
    expect(await store.links.updateAlias(second.id, "mira", "mira")).toBe("conflict");
    expect(await store.links.updateAlias("missing", "x", "x")).toBeNull();
    await store.links.upsert(link("Gone", "t4", "wikilink"));
    expect(await store.links.pruneWikilinks("Character", "src", ["captain"])).toBe(1);
    expect((await store.links.list(campaign.id, {}, { page: 1, size: 10 }, null)).total).toBe(2);
    await store.links.retarget([second.id], "Item", "t9");
    expect(await store.links.get(second.id)).toMatchObject({ to_type: "Item", to_id: "t9" });
    expect(await store.links.deleteTouching("src")).toBe(2);
  });

  test("lookup: records by type, names by alias key, texts mentioning a word, text write-back", async () => {
    const campaign = campaignOf(alice, "Lookup", at(), { summary: "We met Whitestone folk" });
    await store.campaigns.insert(campaign);
    const base = { campaign_id: campaign.id, player_name: null, player_handle: null, speaker_id: null, backstory: null, image: null, tcg_image: null, approved: true, merge: false, created_at: at(), updated_at: null, type: "NPC" as const };
    const npc = { ...base, id: uuidV7.next(), character_name: "Cassandra", character_aliases: ["Lady de Rolo"], description: "Lives in Whitestone" };
    await store.characters.insert(npc);
    expect(await store.lookup.findRecord("Character", npc.id)).toMatchObject({ type: "Character", id: npc.id, campaign_id: campaign.id, name: "Cassandra" });
    expect(await store.lookup.findRecord("Backstory", npc.id)).toMatchObject({ id: npc.id });
    expect(await store.lookup.findRecord("Item", npc.id)).toBeNull();
    expect(await store.lookup.findRecord("World", campaign.id)).toMatchObject({ name: "Lookup" });
    const beat = { id: uuidV7.next(), campaign_id: campaign.id, label: "The heist", type: "major" as const, description: null, index: 0, parent_id: null, metadata: null, game_session_ids: [], created_at: at(), updated_at: null };
    await store.beats.insert(beat);
    expect(await store.lookup.findRecord("Beat", beat.id)).toEqual({ type: "Beat", id: beat.id, campaign_id: campaign.id, name: "The heist" });
    const moment = { id: uuidV7.next(), campaign_id: campaign.id, session_id: null, label: "A toast", content: null, image: null, index: null, categories: [], kind: "legacy", metadata: null, created_at: at(), updated_at: null };
    await store.moments.insert(moment);
    expect(await store.lookup.findRecord("Moment", moment.id)).toEqual({ type: "Moment", id: moment.id, campaign_id: campaign.id, name: "A toast" });
    expect(await store.lookup.findRecord("Beat", moment.id)).toBeNull();
    expect(await store.lookup.findRecord("Moment", beat.id)).toBeNull();
    expect((await store.lookup.resolveNames(campaign.id, ["lady de rolo"])).map((r) => r.id)).toEqual([npc.id]);
    const texts = await store.lookup.textsMentioning(campaign.id, "whitestone");
    expect(texts.map((t) => t.field).sort()).toEqual(["campaigns.summary", "characters.description"]);
    await store.lookup.writeText(texts.find((t) => t.field === "characters.description")!, "Lives in [[Whitestone]]", at(9));
    expect((await store.characters.get(npc.id))?.description).toBe("Lives in [[Whitestone]]");
  });

  test("search index: ranked buckets, misspellings, per-type limit, removal", async () => {
    const campaign = campaignOf(alice, "Search");
    await store.campaigns.insert(campaign);
    for (let i = 0; i < 12; i++) await store.search.upsert({ campaign_id: campaign.id, doc_type: "items", doc_id: `potion-${i}`, title: `Potion ${i}`, body: "heals wounds" }, at());
    await store.search.upsert({ campaign_id: campaign.id, doc_type: "locations", doc_id: "k", title: "Kraghammer", body: "A dwarven city in the mountains" }, at());
    const hits = await store.search.search(campaign.id, "potion", ["items", "locations"], 10, alice);
    expect(hits.get("items")).toHaveLength(10);
    expect(hits.get("locations")).toBeUndefined();
    expect((await store.search.search(campaign.id, "Kragammer", ["locations"], 10, alice)).get("locations")?.[0]?.doc_id).toBe("k");
    expect((await store.search.search(campaign.id, "mountain", ["locations"], 10, alice)).get("locations")?.[0]?.snippet).toContain("<mark>");
    await store.search.remove("locations", "k");
    expect((await store.search.search(campaign.id, "Kraghammer", ["locations"], 10, alice)).size).toBe(0);
    expect((await store.search.search("other-campaign", "potion", ["items"], 10, alice)).size).toBe(0);
  });

  test("search fallback (no full-text hit): substring before similar, journal rule, campaign and types kept", async () => {
    const campaign = campaignOf(alice, "Fallback");
    await store.campaigns.insert(campaign);
    const doc = (doc_type: string, doc_id: string, title: string, visibility?: { author_id: string; is_public: boolean; shared_with: string[] }) =>
      store.search.upsert({ campaign_id: campaign.id, doc_type, doc_id, title, body: "", ...(visibility ? { visibility } : {}) }, at());
    await doc("locations", "sub", "Underkraghammerhold");
    await doc("locations", "sim", "Kraghammer");
    await doc("items", "other-type", "Kraghammer");
    await doc("journals", "hidden", "Kraghammer notes", { author_id: bob, is_public: false, shared_with: [] });
    await doc("journals", "shared", "Kraghammer diary", { author_id: bob, is_public: false, shared_with: [alice] });
    // "raghammerh" is no word of any title (full text finds nothing): the substring hit scores 1 + similarity.
    const hits = await store.search.search(campaign.id, "raghammerh", ["locations", "journals"], 10, alice);
    expect(hits.get("locations")?.map((h) => h.doc_id)).toEqual(["sub", "sim"]);
    expect(hits.get("locations")?.[0]?.score).toBeGreaterThan(1);
    expect(hits.get("journals")?.map((h) => h.doc_id)).toEqual(["shared"]);
    expect(hits.get("items")).toBeUndefined();
    expect((await store.search.search(campaign.id, "raghammerh", ["journals"], 10, bob)).get("journals")?.map((h) => h.doc_id).sort()).toEqual(["hidden", "shared"]);
    expect((await store.search.search("other-campaign", "raghammerh", ["locations"], 10, alice)).size).toBe(0);
  });

  test("tasks: each ready task is claimed by exactly one worker, then finished", async () => {
    const ids = [uuidV7.next(), uuidV7.next(), uuidV7.next()];
    for (const [i, id] of ids.entries()) await store.tasks.insert({ id, campaign_id: null, kind: "link_maintenance", payload: { operation: "add", campaign_id: `c${i}`, target_id: `t${i}` }, created_by: null, created_at: at(100 + i) });
    const claims = await Promise.all(ids.map(() => store.tasks.claim(at(200), at(10_000))));
    const claimed = claims.filter(Boolean).map((t) => t!.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    let next = await store.tasks.claim(at(200), at(10_000));
    while (next) {
      claimed.push(next.id);
      next = await store.tasks.claim(at(200), at(10_000));
    }
    expect(claimed.sort()).toEqual([...ids].sort());
    await store.tasks.finish(ids[0]!, "succeeded", { n: 1 }, null, at(300));
    expect(await store.tasks.get(ids[0]!)).toMatchObject({ status: "succeeded", result: { n: 1 }, attempts: 1, finished_at: at(300) });
    // A running task whose lease ran out is taken again (its worker died).
    expect((await store.tasks.claim(at(20_000), at(30_000)))?.status).toBe("running");
  });

  test("journals: the visibility query agrees with the domain permission rule", async () => {
    const campaign = campaignOf(alice, "Journal rule");
    await store.campaigns.insert(campaign);
    const users = [alice, bob];
    const carol = (await store.users.insert({ id: uuidV7.next(), name: "Carol J", email: "carol.j@example.test", role: "user", created_at: at() }))!.id;
    users.push(carol);
    const arbitrary = fc.array(
      fc.record({
        author: fc.constantFrom(...users),
        isPublic: fc.boolean(),
        shares: fc.dictionary(fc.constantFrom(...users), fc.constantFrom("view", "comment", "edit", "manage")),
      }),
      { minLength: 1, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async (specs) => {
        const created: { id: string; spec: (typeof specs)[number] }[] = [];
        for (const spec of specs) {
          const id = await insertShared(store, campaign.id, spec);
          created.push({ id, spec });
        }
        for (const viewer of users) {
          const visible = new Set((await store.journals.listVisible(campaign.id, viewer, {}, { page: 1, size: 100 })).rows.map((e) => e.id));
          for (const { id, spec } of created) {
            const expected = journalPermission({ authorId: spec.author, isPublic: spec.isPublic, shares: new Map(Object.entries(spec.shares)) as Map<string, PermissionLevel> }, viewer) !== null;
            expect(visible.has(id)).toBe(expected);
          }
        }
        for (const { id } of created) await store.journals.delete(id);
      }),
      { numRuns: 15 },
    );
  });

  test("links: a viewer's list leaves out links from journal entries the domain rule hides, totals included", async () => {
    const campaign = campaignOf(alice, "Journal links rule");
    await store.campaigns.insert(campaign);
    const carol = (await store.users.insert({ id: uuidV7.next(), name: "Carol L", email: "carol.l@example.test", role: "user", created_at: at() }))!.id;
    const users = [alice, bob, carol];
    const arbitrary = fc.array(
      fc.record({
        author: fc.constantFrom(...users),
        isPublic: fc.boolean(),
        shares: fc.dictionary(fc.constantFrom(...users), fc.constantFrom("view", "comment", "edit", "manage")),
        links: fc.integer({ min: 1, max: 3 }),
      }),
      { minLength: 1, maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async (specs) => {
        // One link from a character, always visible, and `links` from each entry.
        const plain = await store.links.upsert({
          id: uuidV7.next(), campaign_id: campaign.id, from_id: "char-1", from_type: "Character", to_id: "t", to_type: "Character", alias: "x", alias_key: "x", origin: "api", created_at: at(),
        });
        const fromEntry = new Map<string, string>();
        const created: { id: string; spec: (typeof specs)[number] }[] = [];
        for (const spec of specs) {
          const id = await insertShared(store, campaign.id, spec);
          for (let i = 0; i < spec.links; i++) {
            const link = await store.links.upsert({
              id: uuidV7.next(), campaign_id: campaign.id, from_id: id, from_type: "Journal", to_id: `t${i}`, to_type: "Character", alias: `a${i}`, alias_key: `a${i}`, origin: "wikilink", created_at: at(),
            });
            fromEntry.set(link.id, id);
          }
          created.push({ id, spec });
        }
        for (const viewer of users) {
          const sees = new Set(
            created
              .filter(({ spec }) => journalPermission({ authorId: spec.author, isPublic: spec.isPublic, shares: new Map(Object.entries(spec.shares)) as Map<string, PermissionLevel> }, viewer) !== null)
              .map(({ id }) => id),
          );
          const expected = [plain.id, ...[...fromEntry].filter(([, entry]) => sees.has(entry)).map(([link]) => link)].sort();
          const listed = await store.links.list(campaign.id, {}, { page: 1, size: 100 }, viewer);
          expect(listed.rows.map((l) => l.id).sort()).toEqual(expected);
          expect(listed.total).toBe(expected.length);
          // Paging past the first row still counts only what the viewer may see.
          expect((await store.links.list(campaign.id, {}, { page: 2, size: 1 }, viewer)).total).toBe(expected.length);
        }
        expect((await store.links.list(campaign.id, {}, { page: 1, size: 100 }, null)).total).toBe(1 + fromEntry.size);
        for (const { id } of created) {
          await store.links.deleteTouching(id);
          await store.journals.delete(id);
        }
        await store.links.delete(plain.id);
      }),
      { numRuns: 15 },
    );
  });

  test("journals: shares, token totals, chunks, folder moves", async () => {
    const campaign = campaignOf(alice, "Journal storage");
    await store.campaigns.insert(campaign);
    const folder = { id: uuidV7.next(), campaign_id: campaign.id, parent_id: null, name: "Lore", path: "Lore", description: null, position: 0, metadata: { color: "red" }, created_at: at(), updated_at: null };
    expect(await store.folders.insert(folder)).toBe(true);
    expect(await store.folders.insert({ ...folder, id: uuidV7.next() })).toBe(false);
    const child = { ...folder, id: uuidV7.next(), parent_id: folder.id, path: "Lore/NPCs", name: "NPCs" };
    await store.folders.insert(child);
    expect(await store.folders.get(folder.id)).toEqual(folder);
    expect(await store.folders.ancestry(child.id)).toEqual(new Map([[child.id, folder.id], [folder.id, null]]));
    const entry = {
      id: uuidV7.next(), campaign_id: campaign.id, title: "E", summary: null, content: "abc", content_rich: { root: { children: [] } }, content_metadata: { words: 1 },
      tags: ["x"], token_count: 7, cover_image: null, is_pinned: true, is_public: false, status: "published" as const, published_at: at(1), archived_at: null,
      folder_id: child.id, author_id: alice, last_edited_by_id: alice, created_at: at(), updated_at: null,
    };
    await store.journals.insert(entry);
    expect(await store.journals.get(entry.id)).toEqual(entry);
    expect(await store.journals.campaignTokens(campaign.id, null)).toBe(7);
    expect(await store.journals.campaignTokens(campaign.id, entry.id)).toBe(0);
    await store.journals.putShare(entry.id, { user_id: bob, level: "view" }, at());
    await store.journals.putShare(entry.id, { user_id: bob, level: "edit" }, at());
    expect(await store.journals.shares(entry.id)).toEqual([{ user_id: bob, level: "edit" }]);
    await store.journals.replaceChunks(entry.id, campaign.id, [{ position: 0, text: "a", token_count: 1 }, { position: 1, text: "b", token_count: 1 }]);
    await store.journals.replaceChunks(entry.id, campaign.id, [{ position: 0, text: "c", token_count: 1 }]);
    expect(await store.journals.chunks(entry.id)).toEqual([{ position: 0, text: "c", token_count: 1 }]);
    expect(await store.journals.moveFolderEntriesToRoot(child.id)).toBe(1);
    expect(await store.folders.reparentChildren(folder.id, null, at())).toBe(1);
    expect((await store.folders.get(child.id))?.parent_id).toBeNull();
    await store.journals.delete(entry.id);
    expect(await store.journals.chunks(entry.id)).toEqual([]);
    expect(await store.journals.shares(entry.id)).toEqual([]);
  });

  test("sessions are numbered by date; quests list in order with filters", async () => {
    const campaign = campaignOf(alice, "Sessions and quests");
    await store.campaigns.insert(campaign);
    const session = (title: string, date: string) => ({ id: uuidV7.next(), campaign_id: campaign.id, type: "chatVoice" as const, title, summary: null, notes: null, session_date: date, image: null, public: false, pbp_start_msg_url: null, pbp_end_msg_url: null, created_at: at(), updated_at: null });
    const late = session("Late", at(50_000));
    const early = session("Early", at(10_000));
    await store.sessions.insert(late);
    await store.sessions.insert(early);
    const refs = await store.sessions.refs(campaign.id, [late.id, early.id, "missing"]);
    expect(refs.get(early.id)).toEqual({ id: early.id, number: 1, title: "Early", session_date: at(10_000) });
    expect(refs.get(late.id)?.number).toBe(2);
    expect(refs.has("missing")).toBe(false);

    const quest = (name: string, order_index: number, status: "planned" | "done") => ({
      id: uuidV7.next(), campaign_id: campaign.id, order_index, quest_name: name, quest_giver: null, quest_giver_id: null, quest_category: "main" as const, status,
      success_definition: `Win ${name}`, failure_conditions: null, next_action: null, resolution: null,
      objectives: [{ id: "o", text: "obj", status: "pending" as const, order: 0 }], progress_log_entries: [], related_entity_refs: [], created_at: at(), updated_at: null,
    });
    expect(await store.quests.nextOrderIndex(campaign.id)).toBe(0);
    await store.quests.insert(quest("Second", 1, "done"));
    await store.quests.insert(quest("First", 0, "planned"));
    expect(await store.quests.nextOrderIndex(campaign.id)).toBe(2);
    const page = { page: 1, size: 10 };
    expect((await store.quests.list(campaign.id, {}, page)).rows.map((q) => q.quest_name)).toEqual(["First", "Second"]);
    expect((await store.quests.list(campaign.id, { status: "done" }, page)).rows.map((q) => q.quest_name)).toEqual(["Second"]);
    // Substring, case-insensitive.
    expect((await store.quests.list(campaign.id, { search: "win sec" }, page)).rows.map((q) => q.quest_name)).toEqual(["Second"]);
    expect((await store.quests.list(campaign.id, { search: "sec win" }, page)).total).toBe(0);
    const [first] = (await store.quests.list(campaign.id, { search: "first" }, page)).rows;
    expect(first?.objectives).toEqual([{ id: "o", text: "obj", status: "pending", order: 0 }]);
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

test("every backend is accounted for", () => {
  expect(backends.map((b) => b.name)).toEqual(["pglite", "postgres"]);
  if (process.env.CI && process.env.REQUIRE_POSTGRES !== "0") {
    // CI has a PostgreSQL server: a silent skip there would hide a broken backend.
    expect(backends.find((b) => b.name === "postgres")?.skipReason ?? null).toBeNull();
  }
});
