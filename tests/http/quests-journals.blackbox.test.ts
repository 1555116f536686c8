// Black-box: the quest log, journal entries with permissions, and journal folders.
import { describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import { expectRefused } from "../support/refusals.ts";
import { newUser, type Client } from "../support/client.ts";
import type { TestServer } from "../support/server.ts";


await forEachBackend("quests and journals over HTTP", (backend) => {
  let server: TestServer;
  let owner: User;
  let playerA: User;
  let playerB: User;
  let admin: Client;
  let campaign: any;
  let grog: any;
  let clasp: any;
  let emon: any;

  serverWithUsers(backend, ["Owner", "PlayerA", "PlayerB"], async (fixture) => {
    ({ server, admin, users: { Owner: owner, PlayerA: playerA, PlayerB: playerB } } = fixture);
    campaign = (await owner.api.post("/v1/campaigns", { title: "Quests and journals" })).body;
    for (const player of [playerA, playerB]) await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: player.id, role: "player" });
    grog = (await owner.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog Strongjaw", character_aliases: ["Grog"] })).body;
    clasp = (await owner.api.post("/v1/factions", { campaign_id: campaign.id, name: "The Clasp" })).body;
    emon = (await owner.api.post("/v1/locations", { campaign_id: campaign.id, name: "Emon" })).body;
  });

  const newQuest = async (body: Record<string, unknown> = {}) => {
    const reply = await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Find the Vestige", ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  describe("quests", () => {
    test("create: objectives as strings or objects get ids and order; status derived, a sent status ignored", async () => {
      const quest = await newQuest({ objectives: ["Reach Vasselheim", { text: "Win the trial", status: "completed" }], status: "failed", quest_category: "main" });
      expect(quest.objectives).toEqual([
        { id: expect.any(String), text: "Reach Vasselheim", status: "pending", order: 0 },
        { id: expect.any(String), text: "Win the trial", status: "completed", order: 1 },
      ]);
      expect(quest.status).toBe("in-progress");
      expect(quest).toMatchObject({ quest_category: "main", objective_count: 2, completed_objective_count: 1, progress_entry_count: 0, related_entity_count: 0, first_session: null, last_session: null });
      expect((await newQuest({ status: "blocked" })).status).toBe("blocked");
      expect((await newQuest()).status).toBe("planned");
    });

    test("status derivation over every mix of two objective statuses", async () => {
      const quest = await newQuest();
      const statuses = ["pending", "in-progress", "completed", "failed", "blocked"];
      const expected: Record<string, string> = {};
      for (const a of statuses) for (const b of statuses) {
        const mix = [a, b];
        const derived = mix.every((s) => s === "completed") ? "done" : mix.includes("in-progress") ? "in-progress" : mix.includes("blocked") ? "blocked" : mix.filter((s) => s !== "completed").every((s) => s === "failed") ? "failed" : mix.includes("completed") ? "in-progress" : "planned";
        expected[`${a}+${b}`] = derived;
        const reply = await owner.api.patch(`/v1/quests/${quest.id}`, { objectives: mix.map((status, i) => ({ text: `o${i}`, status })) });
        expect(reply.body.status).toBe(derived);
      }
      expect(Object.keys(expected)).toHaveLength(25);
    });

    test("the six patch rules, before and after", async () => {
      const before = await newQuest({
        objectives: ["a", "b"],
        progress_log: ["Met the giver"],
        related_entity_refs: [{ entity_type: "character", entity_id: grog.id }, { entity_type: "location", label: "Emon" }],
        next_action: "Travel",
      });
      expect(before.related_characters).toEqual(["Grog Strongjaw"]);
      expect(before.related_entity_refs[1]).toMatchObject({ entity_type: "location", entity_id: emon.id, label: "Emon" });

      // 1. omitted fields are untouched
      const r1 = (await owner.api.patch(`/v1/quests/${before.id}`, { resolution: "Pending" })).body;
      expect({ ...r1, resolution: null, updated_at: null }).toEqual({ ...before, updated_at: null });
      // 2. objectives replace the list and recompute status
      const r2 = (await owner.api.patch(`/v1/quests/${before.id}`, { objectives: [{ text: "only", status: "completed" }] })).body;
      expect(r2.objectives.map((o: any) => o.text)).toEqual(["only"]);
      expect(r2.status).toBe("done");
      // 6. status applies only when objectives are omitted
      expect((await owner.api.patch(`/v1/quests/${before.id}`, { status: "blocked", objectives: ["x"] })).body.status).toBe("planned");
      expect((await owner.api.patch(`/v1/quests/${before.id}`, { status: "blocked" })).body.status).toBe("blocked");
      // 3. related_entity_refs replace the whole set
      const r3 = (await owner.api.patch(`/v1/quests/${before.id}`, { related_entity_refs: [{ entity_type: "faction", entity_id: clasp.id }] })).body;
      expect(r3.related_entity_refs.map((r: any) => r.entity_type)).toEqual(["faction"]);
      expect(r3.related_characters).toEqual([]);
      // 4. a per-type array replaces only its own bucket
      const r4 = (await owner.api.patch(`/v1/quests/${before.id}`, { related_characters: ["Pike", "Scanlan"] })).body;
      expect(r4.related_factions).toEqual(["The Clasp"]);
      expect(r4.related_characters).toEqual(["Pike", "Scanlan"]);
      expect(r4.related_entity_count).toBe(3);
      // 5. progress_log replaces the progress list
      const r5 = (await owner.api.patch(`/v1/quests/${before.id}`, { progress_log: ["One", "Two"] })).body;
      expect(r5.progress_log).toEqual(["One", "Two"]);
      expect(r5.progress_log_entries.map((e: any) => e.order)).toEqual([0, 1]);
      expect(r5.related_factions).toEqual(["The Clasp"]);
    });

    test("giver must be an approved character or faction; related ids must exist in the campaign", async () => {
      const byAlias = await newQuest({ quest_giver: "grog" });
      expect(byAlias.quest_giver_id).toBe(grog.id);
      expect((await newQuest({ quest_giver: "The Clasp" })).quest_giver_id).toBe(clasp.id);
      const bad = await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Q", quest_giver: "Nobody" });
      expectRefused(bad, 400, "quest_giver \"Nobody\" must name an approved character or faction of this campaign");
      expectRefused(await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Q", quest_giver: "Emon" }), 400, "quest_giver \"Emon\" must name an approved character or faction of this campaign");
      const foreignCampaign = (await playerB.api.post("/v1/campaigns", { title: "B's own" })).body;
      const foreign = (await playerB.api.post("/v1/characters", { campaign_id: foreignCampaign.id, character_name: "Stranger" })).body;
      const badRef = await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Q", related_entity_refs: [{ entity_type: "character", entity_id: foreign.id }] });
      expectRefused(badRef, 400, `Related character ${foreign.id} not found in this campaign`);
      const wrongType = await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Q", related_entity_refs: [{ entity_type: "item", entity_id: grog.id }] });
      expectRefused(wrongType, 400, `Related item ${grog.id} not found in this campaign`);
      const empty = await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "   " });
      expectRefused(empty, 400, "quest_name cannot be empty");
      expect((await owner.api.patch(`/v1/quests/${byAlias.id}`, { quest_name: "" })).body.detail).toBe("quest_name cannot be empty");
      expectRefused(await owner.api.post("/v1/quests", { campaign_id: campaign.id }), 422, ["body", "quest_name"]);
      expectRefused(await owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Q", quest_category: "epic" }), 422, ["body", "quest_category"]);
    });

    test("progress entries cite sessions, which fill session fields and first/last session", async () => {
      const s1 = (await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Arrival", session_date: "2026-01-05T19:00:00Z" })).body;
      const s2 = (await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Ambush", session_date: "2026-01-12T19:00:00Z" })).body;
      const quest = await newQuest({ progress_log: [{ text: "Ambushed", session_id: s2.id }, { text: "Arrived", session_id: s1.id }, "No session"] });
      expect(quest.progress_log_entries[0]).toMatchObject({ session_id: s2.id, session_number: 2, session_title: "Ambush", session_date: "2026-01-12T19:00:00.000Z" });
      expect(quest.progress_log_entries[2]).toMatchObject({ session_id: null, session_number: null });
      expect(quest.first_session).toEqual({ id: s1.id, number: 1, title: "Arrival", session_date: "2026-01-05T19:00:00.000Z" });
      expect(quest.last_session).toMatchObject({ id: s2.id, number: 2 });
      const listed = (await owner.api.get(`/v1/quests?campaign_id=${campaign.id}&search=Ambushed`)).body.data;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ id: quest.id, progress_entry_count: 3, first_session: { number: 1 }, last_session: { number: 2 } });
      expect(listed[0].objectives).toBeUndefined();
      expectRefused(await newQuestRaw({ progress_log: [{ text: "x", session_id: "missing" }] }), 400, "Session missing not found in this campaign");
    });

    const newQuestRaw = (body: Record<string, unknown>) => owner.api.post("/v1/quests", { campaign_id: campaign.id, quest_name: "Raw", ...body });

    test("list: order_index order, filters, summaries with counts; delete", async () => {
      const own = (await owner.api.post("/v1/campaigns", { title: "Quest list" })).body;
      const make = (body: Record<string, unknown>) => owner.api.post("/v1/quests", { campaign_id: own.id, ...body });
      const q1 = (await make({ quest_name: "First", quest_category: "main", objectives: [{ text: "x", status: "completed" }] })).body;
      const q2 = (await make({ quest_name: "Second", quest_category: "side", quest_giver: null, success_definition: "Rescue the dragon egg" })).body;
      expect([q1.order_index, q2.order_index]).toEqual([0, 1]);
      const all = (await owner.api.get(`/v1/quests?campaign_id=${own.id}`)).body;
      expect(all.data.map((q: any) => q.quest_name)).toEqual(["First", "Second"]);
      expect(all.data[0]).toMatchObject({ objective_count: 1, completed_objective_count: 1 });
      expect((await owner.api.get(`/v1/quests?campaign_id=${own.id}&status=done`)).body.data.map((q: any) => q.id)).toEqual([q1.id]);
      expect((await owner.api.get(`/v1/quests?campaign_id=${own.id}&quest_category=side`)).body.data.map((q: any) => q.id)).toEqual([q2.id]);
      expect((await owner.api.get(`/v1/quests?campaign_id=${own.id}&search=dragon%20egg`)).body.data.map((q: any) => q.id)).toEqual([q2.id]);
      expectRefused(await owner.api.get(`/v1/quests?campaign_id=${own.id}&status=unknown`), 422, ["query", "status"]);
      expect((await owner.api.delete(`/v1/quests/${q1.id}`)).status).toBe(204);
      expectRefused(await owner.api.get(`/v1/quests/${q1.id}`), 404, "Quest not found");
      expectRefused(await playerB.api.get(`/v1/quests?campaign_id=${own.id}`), 403, "Access denied to this campaign");
    });
  });

  describe("journal entries", () => {
    const entry = async (api: Client, body: Record<string, unknown>) => {
      const reply = await api.post("/v1/journals", { world_id: campaign.id, ...body });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({ success: true, id: expect.any(String) });
      return reply.body.id as string;
    };

    test("A's private entry: invisible to B and to the owner until shared; B can view, then edit, never manage", async () => {
      const id = await entry(playerA.api, { title: "A's secret", content: "Vax is the Raven Queen's champion" });
      const mine = await playerA.api.get(`/v1/journals/${id}`);
      expect(mine.body).toMatchObject({ title: "A's secret", content: "Vax is the Raven Queen's champion", permission_level: "manage", author_id: playerA.id, is_public: false, status: "draft" });
      for (const other of [playerB, owner]) {
        expectRefused(await other.api.get(`/v1/journals/${id}`), 404, "Journal entry not found");
        expect((await other.api.get(`/v1/journals?campaign_id=${campaign.id}&size=100`)).body.data.some((e: any) => e.id === id)).toBe(false);
      }
      expect((await owner.api.get(`/v1/campaigns/${campaign.id}/search?q=Raven&types=journals`)).body.journals).toEqual([]);

      expect((await playerA.api.put("/v1/journals", { id, permissions: { add: [{ user_id: playerB.id, level: "view" }] } })).status).toBe(200);
      const shared = await playerB.api.get(`/v1/journals/${id}`);
      expect(shared.body.permission_level).toBe("view");
      expect((await playerB.api.get(`/v1/journals?campaign_id=${campaign.id}&size=100`)).body.data.some((e: any) => e.id === id)).toBe(true);
      expect((await playerB.api.get(`/v1/campaigns/${campaign.id}/search?q=Raven&types=journals`)).body.journals[0].id).toBe(id);
      expectRefused(await owner.api.get(`/v1/journals/${id}`), 404, "Journal entry not found");

      const viewOnly = await playerB.api.put("/v1/journals", { id, title: "B was here" });
      expectRefused(viewOnly, 403, "This needs edit permission on the journal entry; you have view");
      await playerA.api.put("/v1/journals", { id, permissions: { add: [{ user_id: playerB.id, level: "edit" }] } });
      expect((await playerB.api.put("/v1/journals", { id, title: "B was here" })).status).toBe(200);
      expectRefused(await playerB.api.put("/v1/journals", { id, permissions: { add: [{ user_id: owner.id, level: "view" }] } }), 403, "This needs manage permission on the journal entry; you have edit");
      expectRefused(await playerB.api.delete(`/v1/journals?id=${id}`), 403, "This needs manage permission on the journal entry; you have edit");

      const removeOwner = await playerA.api.put("/v1/journals", { id, permissions: { remove: [{ user_id: playerA.id }] } });
      expectRefused(removeOwner, 400, "Cannot remove the current owner from this journal entry.");

      // A hands the entry to B: B manages it, A keeps edit, and B (now owner) cannot be removed.
      expect((await playerA.api.put("/v1/journals", { id, author_id: playerB.id })).status).toBe(200);
      expect((await playerB.api.get(`/v1/journals/${id}`)).body).toMatchObject({ author_id: playerB.id, permission_level: "manage" });
      expect((await playerA.api.get(`/v1/journals/${id}`)).body.permission_level).toBe("edit");
      expectRefused(await playerB.api.put("/v1/journals", { id, permissions: { remove: [{ user_id: playerB.id }] } }), 400, "Cannot remove the current owner from this journal entry.");
      expectRefused(await playerA.api.put("/v1/journals", { id, author_id: playerA.id }), 403, "This needs manage permission on the journal entry; you have edit");
      expectRefused(await playerB.api.put("/v1/journals", { id, author_id: "not-a-member" }), 400, "The new author must be a member of this campaign");

      expect((await playerB.api.delete(`/v1/journals?id=${id}`)).body).toEqual({ success: true });
      expectRefused(await playerB.api.get(`/v1/journals/${id}`), 404, "Journal entry not found");
    });

    test("public entries are visible to every member; list omits content; cards", async () => {
      const id = await entry(owner.api, { title: "Campaign lore", summary: "About [[Emon]]", content: "Emon is the capital", is_public: true, tags: ["lore"] });
      const seen = await playerB.api.get(`/v1/journals/${id}`);
      expect(seen.body.permission_level).toBe("view");
      expect(seen.body.summary).toBe("About Emon");
      const listed = (await playerB.api.get(`/v1/journals?campaign_id=${campaign.id}&size=100`)).body.data.find((e: any) => e.id === id);
      expect(listed).toMatchObject({ title: "Campaign lore", tags: ["lore"], token_count: 5 });
      expect(listed.content).toBeUndefined();
      expect(listed.content_rich).toBeUndefined();
      const card = (await playerB.api.get(`/v1/journals?campaign_id=${campaign.id}&fields=card&size=100`)).body.data.find((e: any) => e.id === id);
      expect(Object.keys(card).sort()).toEqual(["folder_id", "id", "summary", "title", "updated_at"]);
      expect((await owner.api.get(`/v1/campaigns/${campaign.id}/links?from_type=Journal&from_id=${id}`)).body.total).toBe(0);
    });

    test("content_rich is canonical; status moves stamp their times; wikilinks in content become links", async () => {
      const rich = { root: { type: "root", children: [{ type: "paragraph", children: [{ type: "text", text: "Grog met " }, { type: "text", text: "[[Grog|himself]]" }] }] } };
      const id = await entry(playerA.api, { title: "Rich", content: "ignored plain text", content_rich: rich, status: "published" });
      const detail = (await playerA.api.get(`/v1/journals/${id}?with_links=true`)).body;
      expect(detail.content).toBe("Grog met [[Grog|himself]]");
      expect(detail.content_rich).toEqual(rich);
      expect(detail.published_at).not.toBeNull();
      expect((await playerA.api.get(`/v1/journals/${id}`)).body.content).toBe("Grog met himself");
      const links = (await playerA.api.get(`/v1/campaigns/${campaign.id}/links?from_type=Journal&from_id=${id}`)).body.data;
      expect(links).toEqual([expect.objectContaining({ to_id: grog.id, to_type: "Character" })]);
      await playerA.api.put("/v1/journals", { id, status: "archived" });
      const archived = (await playerA.api.get(`/v1/journals/${id}`)).body;
      expect(archived.archived_at).not.toBeNull();
      expect(archived.published_at).toBe(detail.published_at);
      await playerA.api.put("/v1/journals", { id, status: "published", published_at: "2026-02-01T00:00:00Z" });
      expect((await playerA.api.get(`/v1/journals/${id}`)).body.published_at).toBe("2026-02-01T00:00:00.000Z");
      expectRefused(await playerA.api.put("/v1/journals", { id, status: "deleted" }), 422, ["body", "status"]);
    });

    test("token limits at the documented sizes, with nothing saved when hit", async () => {
      const own = (await owner.api.post("/v1/campaigns", { title: "Token limits" })).body;
      const post = (content: string, title = "Big") => owner.api.post("/v1/journals", { world_id: own.id, title, content });
      // Counted by o200k_base: "a" then " a" n times is n + 1 tokens (each " a" is one), 2n + 1 characters.
      const words = (tokens: number, letter = "a") => letter + ` ${letter}`.repeat(tokens - 1);
      expect((await post(words(50_000), "Exactly at the entry limit")).status).toBe(201);
      const over = await post(words(50_001));
      expectRefused(over, 400, "Journal entry exceeds the limit of 50,000 tokens (50,001 tokens)");
      for (let i = 0; i < 4; i++) expect((await post(words(50_000, "b"), `Fill ${i}`)).status).toBe(201);
      // 5 × 50,000 = 250,000 tokens so far; fill up to exactly 1,000,000.
      for (let i = 0; i < 15; i++) expect((await post(words(50_000, "c"), `More ${i}`)).status).toBe(201);
      const full = await post("d");
      expectRefused(full, 400, "Journal entries of this campaign would exceed the limit of 1,000,000 tokens (1,000,001 tokens)");
      const listed = (await owner.api.get(`/v1/journals?campaign_id=${own.id}&size=100`)).body;
      expect(listed.total).toBe(20);
      expect(listed.data.reduce((sum: number, e: any) => sum + e.token_count, 0)).toBe(1_000_000);
      const tooLong = await post("e".repeat(2_000_001));
      expectRefused(tooLong, 400, "Journal content exceeds the limit of 2,000,000 characters per request");
      expect((await owner.api.get(`/v1/journals?campaign_id=${own.id}&size=100`)).body.total).toBe(20);
      // An edit that would cross the limit is refused and leaves the entry as it was.
      const first = listed.data.find((e: any) => e.title === "Exactly at the entry limit");
      expectRefused(await owner.api.put("/v1/journals", { id: first.id, content: words(50_001, "f") }), 400, "Journal entry exceeds the limit of 50,000 tokens (50,001 tokens)");
      expect((await owner.api.get(`/v1/journals/${first.id}`)).body.token_count).toBe(50_000);
    });

    test("validation: world_id and title required, folder must be in the campaign", async () => {
      expectRefused(await owner.api.post("/v1/journals", { title: "x" }), 422, ["body", "world_id"]);
      expectRefused(await owner.api.post("/v1/journals", { world_id: campaign.id }), 422, ["body", "title"]);
      const missingFolder = await owner.api.post("/v1/journals", { world_id: campaign.id, title: "x", folder_id: "nope" });
      expectRefused(missingFolder, 404, "Journal folder not found");
      expectRefused(await owner.api.put("/v1/journals", { title: "x" }), 422, ["body", "id"]);
      expectRefused(await owner.api.put("/v1/journals", { id: "missing", title: "x" }), 404, "Journal entry not found");
      expectRefused(await owner.api.delete(`/v1/journals`), 422, ["query", "id"]);
    });
  });

  describe("journal folders", () => {
    const folder = async (body: Record<string, unknown>) => {
      const reply = await owner.api.post("/v1/journal-folders", { world_id: campaign.id, ...body });
      expect(reply.status).toBe(201);
      return reply.body.id as string;
    };

    test("paths are normalized and unique; parents same-campaign; never own parent or descendant's child", async () => {
      const lore = await folder({ name: "Lore", path: "/Lore//" });
      const npcs = await folder({ name: "NPCs", path: "/Lore//NPCs/", parent_id: lore });
      const villains = await folder({ name: "Villains", path: "Lore/NPCs/Villains", parent_id: npcs });
      expect((await owner.api.get(`/v1/journal-folders/${npcs}`)).body).toMatchObject({ path: "Lore/NPCs", parent_id: lore, name: "NPCs", position: 0 });
      const dup = await owner.api.post("/v1/journal-folders", { world_id: campaign.id, name: "Again", path: "Lore/NPCs" });
      expectRefused(dup, 400, "Folder path already exists for this campaign");
      const own = await owner.api.put("/v1/journal-folders", { id: lore, parent_id: lore });
      expect(own.body.detail).toBe("Folder cannot be its own parent");
      expect((await owner.api.put("/v1/journal-folders", { id: lore, parent_id: villains })).body.detail).toBe("Folder cannot be its own parent");
      const foreignCampaign = (await playerB.api.post("/v1/campaigns", { title: "Other folders" })).body;
      const foreign = (await playerB.api.post("/v1/journal-folders", { world_id: foreignCampaign.id, name: "X", path: "X" })).body.id;
      const invalid = await owner.api.post("/v1/journal-folders", { world_id: campaign.id, name: "Y", path: "Y", parent_id: foreign });
      expectRefused(invalid, 400, "Invalid parent folder");
      expectRefused(await owner.api.post("/v1/journal-folders", { world_id: campaign.id, name: "Z", path: "///" }), 400, "Folder path cannot be empty");

      const list = (await owner.api.get(`/v1/journal-folders?campaign_id=${campaign.id}`)).body;
      expect(Object.keys(list)).toEqual(["data"]);
      expect(list.data.map((f: any) => f.path)).toEqual(["Lore", "Lore/NPCs", "Lore/NPCs/Villains"]);
      expect((await owner.api.get(`/v1/journal-folders?campaign_id=${campaign.id}&parent_id=${lore}`)).body.data.map((f: any) => f.id)).toEqual([npcs]);
      expect((await owner.api.put("/v1/journal-folders", { id: villains, path: " Villains ", position: 3 })).body).toEqual({ success: true, id: villains });
      expect((await owner.api.get(`/v1/journal-folders/${villains}`)).body).toMatchObject({ path: "Villains", position: 3 });
    });

    test("deleting a folder moves its entries to the root and its children up one level", async () => {
      const top = await folder({ name: "Top", path: "Top" });
      const middle = await folder({ name: "Middle", path: "Top/Middle", parent_id: top });
      const bottom = await folder({ name: "Bottom", path: "Top/Middle/Bottom", parent_id: middle });
      const filed = (await owner.api.post("/v1/journals", { world_id: campaign.id, title: "Filed", folder_id: middle })).body.id;
      expect((await owner.api.get(`/v1/journals?campaign_id=${campaign.id}&folder_id=${middle}`)).body.data.map((e: any) => e.id)).toEqual([filed]);
      expect((await owner.api.delete(`/v1/journal-folders?id=${middle}`)).body).toEqual({ success: true });
      expect((await owner.api.get(`/v1/journals/${filed}`)).body.folder_id).toBeNull();
      expect((await owner.api.get(`/v1/journal-folders/${bottom}`)).body.parent_id).toBe(top);
      expectRefused(await owner.api.get(`/v1/journal-folders/${middle}`), 404, "Journal folder not found");
    });

    test("strangers see no folders", async () => {
      const outsider = await newUser(server.url, server.adminKey, "Outsider");
      expectRefused(await outsider.api.get(`/v1/journal-folders?campaign_id=${campaign.id}`), 403, "Access denied to this campaign");
    });
  });
});
