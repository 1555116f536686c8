// Black-box: links follow journal permissions; links from and to every allowed kind; beats keep
// every session they are given and merge their metadata.
import { describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import { waitForTask, type Client } from "../support/client.ts";
import { connectMcp, payload } from "../support/mcp.ts";
import type { TestServer } from "../support/server.ts";


const byAlias = (links: any[]) => links.map((l) => ({ from_type: l.from_type, from_id: l.from_id, to_type: l.to_type, to_id: l.to_id, alias: l.alias })).sort((a, b) => a.alias.localeCompare(b.alias));

await forEachBackend("links, journals and beats over HTTP", (backend) => {
  let server: TestServer;
  let admin: Client;
  let owner: User;
  let playerA: User;
  let playerB: User;

  serverWithUsers(backend, ["Owner", "PlayerA", "PlayerB"], (fixture) => {
    ({ server, admin, users: { Owner: owner, PlayerA: playerA, PlayerB: playerB } } = fixture);
  });

  /** A campaign of its own for each test, so link totals start at zero. */
  const newCampaign = async (title: string) => {
    const campaign = (await owner.api.post("/v1/campaigns", { title })).body;
    for (const player of [playerA, playerB]) expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: player.id, role: "player" })).status).toBeLessThan(300);
    return campaign.id as string;
  };
  const newSession = async (campaignId: string, title: string, date: string) => {
    const reply = await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title, session_date: date });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };

  describe("links from a journal entry follow the entry's permissions", () => {
    test("a private entry's links: only its author (and those it is shared with) list, rename or delete them", async () => {
      const cid = await newCampaign("Private links");
      const grog = (await owner.api.post("/v1/characters", { campaign_id: cid, character_name: "Grog Strongjaw", character_aliases: ["Grog"] })).body;
      const emon = (await owner.api.post("/v1/locations", { campaign_id: cid, name: "Emon" })).body;
      const created = await playerA.api.post("/v1/journals", { world_id: cid, title: "A's secret", content: "[[Grog]] hid the map in [[Emon]]" });
      expect(created.status).toBe(201);
      const entry = created.body.id as string;
      const apiLink = await playerA.api.post(`/v1/campaigns/${cid}/links`, { from_id: entry, from_type: "Journal", to_id: grog.id, to_type: "Character", alias: "the big guy" });
      expect(apiLink.status).toBe(201);
      expect(apiLink.body).toEqual({ id: expect.any(String), campaign_id: cid, from_id: entry, from_type: "Journal", to_id: grog.id, to_type: "Character", alias: "the big guy", created_at: expect.any(String) });
      const linkId = apiLink.body.id as string;
      // One link that is not a journal's, which everyone sees.
      expect((await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: grog.id, from_type: "Character", to_id: emon.id, to_type: "Location" })).status).toBe(201);

      const entryLinks = [
        { from_type: "Journal", from_id: entry, to_type: "Location", to_id: emon.id, alias: "Emon" },
        { from_type: "Journal", from_id: entry, to_type: "Character", to_id: grog.id, alias: "Grog" },
        { from_type: "Journal", from_id: entry, to_type: "Character", to_id: grog.id, alias: "the big guy" },
      ].sort((a, b) => a.alias.localeCompare(b.alias));
      const grogLink = { from_type: "Character", from_id: grog.id, to_type: "Location", to_id: emon.id, alias: "Emon" };

      const fromEntry = `/v1/campaigns/${cid}/links?from_type=Journal&from_id=${entry}&size=100`;
      const mine = (await playerA.api.get(fromEntry)).body;
      expect(byAlias(mine.data)).toEqual(entryLinks);
      expect(mine.total).toBe(3);
      expect((await playerA.api.get(`/v1/campaigns/${cid}/links?size=100`)).body.total).toBe(4);

      for (const other of [playerB, owner]) {
        for (const path of [`/v1/campaigns/${cid}/links`, `/v1/worlds/${cid}/links`]) {
          const all = (await other.api.get(`${path}?size=100`)).body;
          expect(byAlias(all.data)).toEqual([grogLink]);
          expect(all.total).toBe(1);
          expect((await other.api.get(`${path}?from_type=Journal`)).body).toEqual({ data: [], total: 0, page: 1, size: 20, pages: 0 });
          expect((await other.api.get(`${path}?to_id=${grog.id}`)).body.total).toBe(0);
          // A later page counts only what the caller may see.
          expect((await other.api.get(`${path}?size=1&page=3`)).body).toMatchObject({ data: [], total: 1 });
        }
        // Writing from the entry, or to its links, answers as if the entry did not exist.
        const create = await other.api.post(`/v1/campaigns/${cid}/links`, { from_id: entry, from_type: "Journal", to_id: emon.id, to_type: "Location", alias: "sneaky" });
        expect(create.status).toBe(404);
        expect(create.body).toEqual({ detail: `Link source Journal ${entry} not found` });
        const missing = await other.api.post(`/v1/campaigns/${cid}/links`, { from_id: "no-such-entry", from_type: "Journal", to_id: emon.id, to_type: "Location" });
        expect(missing.body).toEqual({ detail: "Link source Journal no-such-entry not found" });
        // A bad target does not tell an unseen entry from a missing one either.
        const badTarget = await other.api.post(`/v1/campaigns/${cid}/links`, { from_id: entry, from_type: "Journal", to_id: "nobody", to_type: "Character" });
        expect(badTarget.body).toEqual({ detail: `Link source Journal ${entry} not found` });
        const rename = await other.api.patch(`/v1/campaigns/${cid}/links/${linkId}`, { alias: "renamed" });
        expect(rename.status).toBe(404);
        expect(rename.body).toEqual({ detail: "Link not found" });
        const remove = await other.api.delete(`/v1/campaigns/${cid}/links/${linkId}`);
        expect(remove.status).toBe(404);
        expect(remove.body).toEqual({ detail: "Link not found" });
      }
      expect(byAlias((await playerA.api.get(fromEntry)).body.data)).toEqual(entryLinks);

      // MCP says the same as REST.
      const mcpB = await connectMcp(server.url, playerB.key);
      const mcpA = await connectMcp(server.url, playerA.key);
      try {
        const seenByB = payload(await mcpB.callTool({ name: "list_links", arguments: { campaign_id: cid, from_type: "Journal" } }));
        expect(seenByB).toEqual({ data: [], total: 0, page: 1, size: 20, pages: 0 });
        const allByB = payload(await mcpB.callTool({ name: "list_links", arguments: { campaign_id: cid, size: 100 } }));
        expect(byAlias(allByB.data)).toEqual([grogLink]);
        expect(allByB.total).toBe(1);
        const seenByA = payload(await mcpA.callTool({ name: "list_links", arguments: { campaign_id: cid, from_type: "Journal", size: 100 } }));
        expect(byAlias(seenByA.data)).toEqual(entryLinks);
        expect(seenByA.total).toBe(3);
        const deniedB = await mcpB.callTool({ name: "delete_link", arguments: { campaign_id: cid, link_id: linkId } });
        expect(deniedB.isError).toBe(true);
        expect(payload(deniedB)).toEqual({ status: 404, detail: "Link not found" });
      } finally {
        await mcpA.close();
        await mcpB.close();
      }

      // Shared for viewing: B lists the links but may not change them.
      expect((await playerA.api.put("/v1/journals", { id: entry, permissions: { add: [{ user_id: playerB.id, level: "view" }] } })).status).toBe(200);
      const viewed = (await playerB.api.get(fromEntry)).body;
      expect(byAlias(viewed.data)).toEqual(entryLinks);
      expect(viewed.total).toBe(3);
      expect((await owner.api.get(fromEntry)).body.total).toBe(0);
      const needsEdit = { detail: "This needs edit permission on the journal entry; you have view" };
      for (const reply of [
        await playerB.api.patch(`/v1/campaigns/${cid}/links/${linkId}`, { alias: "renamed" }),
        await playerB.api.delete(`/v1/campaigns/${cid}/links/${linkId}`),
        await playerB.api.post(`/v1/campaigns/${cid}/links`, { from_id: entry, from_type: "Journal", to_id: emon.id, to_type: "Location", alias: "sneaky" }),
      ]) {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual(needsEdit);
      }

      // Shared for editing: B renames and deletes.
      expect((await playerA.api.put("/v1/journals", { id: entry, permissions: { add: [{ user_id: playerB.id, level: "edit" }] } })).status).toBe(200);
      const renamed = await playerB.api.patch(`/v1/campaigns/${cid}/links/${linkId}`, { alias: "Strongjaw" });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: linkId, from_id: entry, from_type: "Journal", alias: "Strongjaw" });
      expect((await playerB.api.delete(`/v1/campaigns/${cid}/links/${linkId}`)).status).toBe(204);
      expect((await playerA.api.get(fromEntry)).body.total).toBe(2);
      const byB = await playerB.api.post(`/v1/campaigns/${cid}/links`, { from_id: entry, from_type: "Journal", to_id: emon.id, to_type: "Location", alias: "the city" });
      expect(byB.status).toBe(201);
      expect(byB.body).toMatchObject({ from_id: entry, from_type: "Journal", to_id: emon.id, alias: "the city" });
      expect((await playerA.api.get(fromEntry)).body.total).toBe(3);

      // Unshared again: B sees nothing of it.
      expect((await playerA.api.put("/v1/journals", { id: entry, permissions: { remove: [{ user_id: playerB.id }] } })).status).toBe(200);
      expect((await playerB.api.get(fromEntry)).body).toEqual({ data: [], total: 0, page: 1, size: 100, pages: 0 });

      // Public: every member lists them; viewing is still not editing.
      expect((await playerA.api.put("/v1/journals", { id: entry, is_public: true })).status).toBe(200);
      for (const other of [playerB, owner]) {
        const listed = (await other.api.get(fromEntry)).body;
        expect(listed.total).toBe(3);
        expect(byAlias(listed.data).map((l) => l.alias)).toEqual(["Emon", "Grog", "the city"]);
        const rename = await other.api.patch(`/v1/campaigns/${cid}/links/${byB.body.id}`, { alias: "x" });
        expect(rename.status).toBe(403);
        expect(rename.body).toEqual(needsEdit);
      }
    });

    test("link maintenance leaves links from entries the requester cannot edit as they are", async () => {
      const cid = await newCampaign("Private links and maintenance");
      const emon = (await owner.api.post("/v1/locations", { campaign_id: cid, name: "Emon" })).body;
      const entry = (await playerA.api.post("/v1/journals", { world_id: cid, title: "Travel notes", content: "We rested in [[Emon]]" })).body.id as string;
      const fromEntry = `/v1/campaigns/${cid}/links?from_type=Journal&from_id=${entry}`;
      expect((await playerA.api.get(fromEntry)).body.data).toEqual([expect.objectContaining({ to_id: emon.id, alias: "Emon" })]);

      const byOwner = await owner.api.post("/v1/locations/links/maintenance", { operation: "update", campaign_id: cid, target_id: emon.id, alias: "Emon", new_alias: "Emon City" });
      expect(byOwner.status).toBe(202);
      const ownerTask = await waitForTask(owner.api, byOwner.body.task_id);
      expect(ownerTask).toMatchObject({ status: "succeeded", result: { texts_changed: 0, links_added: 0, links_removed: 0, links_updated: 0 } });
      const removeByOwner = await owner.api.post("/v1/locations/links/maintenance", { operation: "remove", campaign_id: cid, target_id: emon.id });
      expect((await waitForTask(owner.api, removeByOwner.body.task_id)).result).toEqual({ texts_changed: 0, links_added: 0, links_removed: 0, links_updated: 0 });
      expect((await playerA.api.get(fromEntry)).body.data).toEqual([expect.objectContaining({ to_id: emon.id, alias: "Emon" })]);

      const byAuthor = await playerA.api.post("/v1/locations/links/maintenance", { operation: "update", campaign_id: cid, target_id: emon.id, alias: "Emon", new_alias: "Emon City" });
      expect((await waitForTask(playerA.api, byAuthor.body.task_id)).result).toEqual({ texts_changed: 0, links_added: 0, links_removed: 0, links_updated: 1 });
      expect((await playerA.api.get(fromEntry)).body.data).toEqual([expect.objectContaining({ to_id: emon.id, alias: "Emon City" })]);
    });
  });

  describe("links from and to every allowed kind", () => {
    test("each from_type and to_type links, lists back, and a missing record of each kind is 404", async () => {
      const cid = await newCampaign("Every kind");
      const post = async (path: string, body: Record<string, unknown>) => {
        const reply = await owner.api.post(path, body);
        expect(reply.status).toBe(201);
        return reply.body;
      };
      const vex = await post("/v1/characters", { campaign_id: cid, character_name: "Vex'ahlia" });
      const clasp = await post("/v1/factions", { campaign_id: cid, name: "The Clasp" });
      const emon = await post("/v1/locations", { campaign_id: cid, name: "Emon" });
      const bow = await post("/v1/items", { campaign_id: cid, name: "Fenthras" });
      const toast = await post("/v1/moments", { campaign_id: cid, label: "A toast to Vox Machina" });
      const heist = await post("/v1/beats", { campaign_id: cid, label: "The heist", type: "major" });
      const session = await newSession(cid, "Into the Underdark", "2015-04-02T19:00:00Z");
      const entry = (await owner.api.post("/v1/journals", { world_id: cid, title: "GM notes" })).body.id as string;

      const sources: Record<string, string> = {
        Character: vex.id, Faction: clasp.id, Location: emon.id, Item: bow.id, Moment: toast.id,
        GameSession: session, Beat: heist.id, Backstory: vex.id, Journal: entry, World: cid,
      };
      for (const [fromType, fromId] of Object.entries(sources)) {
        const link = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: fromId, from_type: fromType, to_id: bow.id, to_type: "Item", alias: `from ${fromType}` });
        expect(link.status).toBe(201);
        expect(link.body).toEqual({ id: expect.any(String), campaign_id: cid, from_id: fromId, from_type: fromType, to_id: bow.id, to_type: "Item", alias: `from ${fromType}`, created_at: expect.any(String) });
        const listed = (await owner.api.get(`/v1/campaigns/${cid}/links?from_type=${fromType}&from_id=${fromId}`)).body;
        expect(listed.data).toEqual([link.body]);
        expect(listed.total).toBe(1);
        const missing = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: `missing-${fromType}`, from_type: fromType, to_id: bow.id, to_type: "Item" });
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ detail: `Link source ${fromType} missing-${fromType} not found` });
      }
      // An id of the wrong kind is not found either.
      const wrongKind = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: toast.id, from_type: "Beat", to_id: bow.id, to_type: "Item" });
      expect(wrongKind.body).toEqual({ detail: `Link source Beat ${toast.id} not found` });

      const targets: [string, string, string][] = [
        ["Character", vex.id, "Vex'ahlia"], ["Faction", clasp.id, "The Clasp"], ["Location", emon.id, "Emon"], ["Item", bow.id, "Fenthras"], ["Moment", toast.id, "A toast to Vox Machina"],
      ];
      const escape = await post("/v1/beats", { campaign_id: cid, label: "The escape", type: "major" });
      for (const [toType, toId, name] of targets) {
        const link = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: escape.id, from_type: "Beat", to_id: toId, to_type: toType });
        expect(link.status).toBe(201);
        expect(link.body).toEqual({ id: expect.any(String), campaign_id: cid, from_id: escape.id, from_type: "Beat", to_id: toId, to_type: toType, alias: name, created_at: expect.any(String) });
        expect((await owner.api.get(`/v1/campaigns/${cid}/links?to_type=${toType}&to_id=${toId}&from_id=${escape.id}`)).body.data).toEqual([link.body]);
        const missing = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: escape.id, from_type: "Beat", to_id: `missing-${toType}`, to_type: toType });
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ detail: `Link target ${toType} missing-${toType} not found` });
      }

      // The beat's hierarchy node lists what it links to.
      await owner.api.patch(`/v1/beats/${escape.id}`, { game_session_ids: [session] });
      const [node] = (await owner.api.get(`/v1/beats?session_id=${session}&include_hierarchy=true`)).body;
      expect(node.linkedEntities).toEqual({ characters: [vex.id], factions: [clasp.id], locations: [emon.id], items: [bow.id] });

      // Maintenance on a moment changes its links, never text: wikilinks cannot name a moment.
      const addToMoment = await owner.api.post("/v1/moments/links/maintenance", { operation: "add", campaign_id: cid, target_id: toast.id });
      expect(addToMoment.status).toBe(422);
      expect(addToMoment.body.detail[0]).toMatchObject({ loc: ["body", "target_type"], msg: "Wikilinks name characters, factions, locations and items; mentions cannot be linked to a Moment" });
      await owner.api.patch(`/v1/campaigns/${cid}`, { summary: "Raise [[A toast to Vox Machina]]" });
      const removeMoment = await owner.api.post("/v1/moments/links/maintenance", { operation: "remove", campaign_id: cid, target_id: toast.id });
      expect(removeMoment.status).toBe(202);
      expect((await waitForTask(owner.api, removeMoment.body.task_id)).result).toEqual({ texts_changed: 0, links_added: 0, links_removed: 1, links_updated: 0 });
      expect((await owner.api.get(`/v1/campaigns/${cid}/links?to_id=${toast.id}`)).body.total).toBe(0);
      expect((await owner.api.get(`/v1/campaigns/${cid}?with_links=true`)).body.summary).toBe("Raise [[A toast to Vox Machina]]");
      const toMoment = await owner.api.post("/v1/characters/links/maintenance", { operation: "update", campaign_id: cid, target_id: vex.id, new_target_id: toast.id });
      expect(toMoment.status).toBe(404);
      expect(toMoment.body).toEqual({ detail: `New target ${toast.id} not found in this campaign` });

      // Beats and moments of another campaign are refused as sources.
      const elsewhere = await newCampaign("Elsewhere");
      const foreignBeat = (await owner.api.post("/v1/beats", { campaign_id: elsewhere, label: "Far away", type: "major" })).body;
      const foreign = await owner.api.post(`/v1/campaigns/${cid}/links`, { from_id: foreignBeat.id, from_type: "Beat", to_id: bow.id, to_type: "Item" });
      expect(foreign.status).toBe(422);
      expect(foreign.body.detail[0]).toMatchObject({ loc: ["body", "from_id"], msg: "Link source and target must both belong to this campaign", input: foreignBeat.id });
    });
  });

  describe("beats: every session kept, metadata merged", () => {
    test("game_session_ids on create and patch keep every id, in order, without repeats; the first is game_session_id", async () => {
      const cid = await newCampaign("Beat sessions");
      const s1 = await newSession(cid, "One", "2015-03-12T19:00:00Z");
      const s2 = await newSession(cid, "Two", "2015-03-19T19:00:00Z");
      const s3 = await newSession(cid, "Three", "2015-03-26T19:00:00Z");
      const other = await newCampaign("Other sessions");
      const foreign = await newSession(other, "Elsewhere", "2015-03-26T19:00:00Z");

      const created = await owner.api.post("/v1/beats", { campaign_id: cid, label: "Across sessions", type: "major", game_session_ids: [s2, s3] });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ game_session_ids: [s2, s3], game_session_id: s2 });
      const id = created.body.id as string;
      expect((await owner.api.get(`/v1/beats/${id}`)).body).toMatchObject({ game_session_ids: [s2, s3], game_session_id: s2 });
      for (const [session, expected] of [[s1, []], [s2, [id]], [s3, [id]]] as const)
        expect((await owner.api.get(`/v1/beats?session_id=${session}`)).body.data.map((b: any) => b.id)).toEqual(expected);

      const repeated = await owner.api.post("/v1/beats", { campaign_id: cid, label: "Repeats", type: "major", game_session_ids: [s3, s1, s3, s1] });
      expect(repeated.body).toMatchObject({ game_session_ids: [s3, s1], game_session_id: s3 });
      const both = await owner.api.post("/v1/beats", { campaign_id: cid, label: "Both", type: "major", game_session_id: s1, game_session_ids: [s2, s1, s3] });
      expect(both.body).toMatchObject({ game_session_ids: [s1, s2, s3], game_session_id: s1 });
      const single = await owner.api.post("/v1/beats", { campaign_id: cid, label: "Single", type: "major", game_session_id: s2 });
      expect(single.body).toMatchObject({ game_session_ids: [s2], game_session_id: s2 });

      const patched = await owner.api.patch(`/v1/beats/${id}`, { game_session_ids: [s3, s1, s2] });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ game_session_ids: [s3, s1, s2], game_session_id: s3 });
      expect((await owner.api.get(`/v1/beats/${id}`)).body).toMatchObject({ game_session_ids: [s3, s1, s2], game_session_id: s3 });
      // game_session_id alone moves that session first and keeps the others.
      expect((await owner.api.patch(`/v1/beats/${id}`, { game_session_id: s2 })).body).toMatchObject({ game_session_ids: [s2, s3, s1], game_session_id: s2 });

      // A session of another campaign, or none at all, is refused and changes nothing.
      for (const [bad, at] of [[foreign, 1], ["no-such-session", 2]] as const) {
        const list = at === 1 ? [s1, bad] : [s1, s2, bad];
        const refused = await owner.api.patch(`/v1/beats/${id}`, { label: "Renamed", game_session_ids: list });
        expect(refused.status).toBe(422);
        expect(refused.body).toEqual({ detail: [{ type: "value_error", loc: ["body", "game_session_ids", at], msg: "Session must belong to the same campaign", input: bad }] });
        const onCreate = await owner.api.post("/v1/beats", { campaign_id: cid, label: "Refused", type: "major", game_session_ids: list });
        expect(onCreate.status).toBe(422);
        expect(onCreate.body.detail[0].loc).toEqual(["body", "game_session_ids", at]);
      }
      const refusedFirst = await owner.api.patch(`/v1/beats/${id}`, { game_session_id: foreign });
      expect(refusedFirst.body).toEqual({ detail: [{ type: "value_error", loc: ["body", "game_session_id"], msg: "Session must belong to the same campaign", input: foreign }] });
      expect((await owner.api.get(`/v1/beats/${id}`)).body).toMatchObject({ label: "Across sessions", game_session_ids: [s2, s3, s1] });
      expect((await owner.api.get(`/v1/beats?campaign_id=${cid}&size=100`)).body.data.map((b: any) => b.label).sort()).toEqual(["Across sessions", "Both", "Repeats", "Single"]);
      expect((await owner.api.patch(`/v1/beats/${id}`, { game_session_ids: ["x", 3] })).status).toBe(422);

      expect((await owner.api.patch(`/v1/beats/${id}`, { game_session_ids: null })).body).toMatchObject({ game_session_ids: [], game_session_id: null });
      expect((await owner.api.patch(`/v1/beats/${id}`, { game_session_ids: [s1] })).body).toMatchObject({ game_session_ids: [s1], game_session_id: s1 });
      expect((await owner.api.patch(`/v1/beats/${id}`, { game_session_ids: [] })).body).toMatchObject({ game_session_ids: [], game_session_id: null });
    });

    test("PATCH merges metadata keys as moments do: a key set to null is removed, null clears all", async () => {
      const cid = await newCampaign("Beat metadata");
      const beat = (await owner.api.post("/v1/beats", { campaign_id: cid, label: "Meta", type: "major", metadata: { mood: "tense", color: "#f00", nested: { a: 1 } } })).body;
      expect(beat.metadata).toEqual({ mood: "tense", color: "#f00", nested: { a: 1 } });
      const merged = await owner.api.patch(`/v1/beats/${beat.id}`, { metadata: { color: null, act: 2, nested: { b: 2 } } });
      expect(merged.status).toBe(200);
      expect(merged.body.metadata).toEqual({ mood: "tense", act: 2, nested: { b: 2 } });
      expect((await owner.api.patch(`/v1/beats/${beat.id}`, { label: "Meta 2" })).body.metadata).toEqual({ mood: "tense", act: 2, nested: { b: 2 } });
      expect((await owner.api.get(`/v1/beats/${beat.id}`)).body.metadata).toEqual({ mood: "tense", act: 2, nested: { b: 2 } });
      expect((await owner.api.patch(`/v1/beats/${beat.id}`, { metadata: null })).body.metadata).toBeNull();
      expect((await owner.api.patch(`/v1/beats/${beat.id}`, { metadata: { fresh: true } })).body.metadata).toEqual({ fresh: true });
      // The same patch on a moment gives the same result.
      const moment = (await owner.api.post("/v1/moments", { campaign_id: cid, label: "M", metadata: { mood: "tense", color: "#f00" } })).body;
      expect((await owner.api.patch(`/v1/moments/${moment.id}`, { metadata: { color: null, act: 2 } })).body.metadata).toEqual({ mood: "tense", act: 2 });
    });
  });
});
