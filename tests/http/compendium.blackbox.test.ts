// Black-box: characters, factions, locations, items, the picker, links, wikilinks, maintenance and search.
import { beforeAll, describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import { expectRefused } from "../support/refusals.ts";
import { waitForTask, type Client } from "../support/client.ts";
import type { TestServer } from "../support/server.ts";

await forEachBackend("compendium over HTTP", (backend) => {
  let server: TestServer;
  let gm: User;
  let stranger: User;
  let admin: Client;
  let campaign: any;
  let otherCampaign: any;

  serverWithUsers(backend, ["Matt", "Stranger"], async (fixture) => {
    ({ server, admin, users: { Matt: gm, Stranger: stranger } } = fixture);
    campaign = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body;
    otherCampaign = (await stranger.api.post("/v1/campaigns", { title: "Elsewhere" })).body;
  });

  const character = async (body: Record<string, unknown>) => {
    const reply = await gm.api.post("/v1/characters", { campaign_id: campaign.id, ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const entity = async (plural: string, body: Record<string, unknown>, api = gm.api, campaignId = campaign.id) => {
    const reply = await api.post(`/v1/${plural}`, { campaign_id: campaignId, ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  describe("characters", () => {
    test("create with every field; aliases merged from all three spellings; system fields ignored", async () => {
      const reply = await gm.api.post("/v1/characters", {
        campaign_id: campaign.id,
        character_name: "  Vex'ahlia  ",
        character_aliases: ["Vex", " vex "],
        characterAliases: ["ignored because character_aliases wins"],
        character_alias: "Lady Briarwood, Vex",
        description: "A half-elf ranger",
        backstory: "Raised in Syngorn",
        type: "PC",
        image: "https://example.com/vex.png",
        id: "mine",
        merge: true,
        player: { name: "spoofed" },
        created_at: "2000-01-01T00:00:00Z",
      });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({
        campaign_id: campaign.id,
        character_name: "Vex'ahlia",
        character_aliases: ["Vex", "Lady Briarwood"],
        character_alias: "Vex",
        description: "A half-elf ranger",
        backstory: "Raised in Syngorn",
        type: "PC",
        merge: false,
        player: null,
        approved: true,
      });
      expect(reply.body.id).not.toBe("mine");
      const camel = await character({ character_name: "Scanlan", characterAliases: ["Scanlan Shorthalt"], speakerId: null });
      expect(camel.character_aliases).toEqual(["Scanlan Shorthalt"]);
      expect((await gm.api.get(`/v1/characters/${reply.body.id}`)).body).toEqual(reply.body);
    });

    test("validation: name required, type enum, https images, campaign required", async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ campaign_id: campaign.id }, "character_name", "Field required"],
        [{ campaign_id: campaign.id, character_name: "   " }, "character_name", "Character name cannot be empty"],
        [{ campaign_id: campaign.id, character_name: "X", type: "Villain" }, "type", "Input should be 'PC', 'NPC', 'Other'"],
        [{ campaign_id: campaign.id, character_name: "X", image: "http://example.com/x.png" }, "image", "Image must be an HTTPS URL of at most 2048 characters"],
        [{ character_name: "X" }, "campaign_id", "Field required"],
      ];
      for (const [body, field, msg] of cases) expectRefused(await gm.api.post("/v1/characters", body), 422, ["body", field], msg);
    });

    test("speakers: the player object, same-campaign rule, and the name clash rule", async () => {
      const speaker = await admin.post(`/internal/v1/campaigns/${campaign.id}/speakers`, { name: "Laura", handle: "@laura", roles: ["player"] });
      expect(speaker.status).toBe(201);
      const foreign = await admin.post(`/internal/v1/campaigns/${otherCampaign.id}/speakers`, { name: "Someone" });
      expectRefused(await admin.post(`/internal/v1/campaigns/${campaign.id}/speakers`, { name: "laura" }), 409, "This campaign already has a speaker with that name");

      const pc = await character({ character_name: "Vex the Second", speaker_id: speaker.body.id, type: "PC" });
      expect(pc.player).toEqual({ id: speaker.body.id, name: "Laura", handle: "@laura", roles: ["player"], campaign_id: campaign.id, created_at: speaker.body.created_at });
      expect(pc.player_name).toBe("Laura");

      const wrongCampaign = await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "X", speaker_id: foreign.body.id });
      expectRefused(wrongCampaign, 422, ["body", "speaker_id"], "Speaker must belong to the same campaign");

      const clash = await gm.api.patch(`/v1/characters/${pc.id}`, { character_name: "LAURA" });
      expectRefused(clash, 400, "Character name cannot be the same as the linked player's (speaker's) name");
      expect((await gm.api.get(`/v1/characters/${pc.id}`)).body.character_name).toBe("Vex the Second");

      const gmSpeaker = await gm.api.get(`/v1/characters?campaign_id=${campaign.id}&size=100`);
      expect(gmSpeaker.status).toBe(200);
    });

    test("patch changes only what is sent; deprecated fields still accepted", async () => {
      const grog = await character({ character_name: "Grog", description: "Goliath barbarian", type: "PC" });
      const patched = await gm.api.patch(`/v1/characters/${grog.id}`, { player_name: "Travis", character_alias: "Grog Strongjaw" });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ character_name: "Grog", description: "Goliath barbarian", player_name: "Travis", character_aliases: ["Grog Strongjaw"], type: "PC" });
      expect(patched.body.updated_at).not.toBeNull();
      expectRefused(await gm.api.patch(`/v1/characters/${grog.id}`, { type: "Boss" }), 422, ["body", "type"]);
    });

    test("list: type and card filters, approval default, pagination", async () => {
      await character({ character_name: "Kima", type: "NPC" });
      const npcs = await gm.api.get(`/v1/characters?campaign_id=${campaign.id}&character_type=NPC&size=100`);
      expect(npcs.body.data.every((c: any) => c.type === "NPC")).toBe(true);
      expect(npcs.body.data.some((c: any) => c.character_name === "Kima")).toBe(true);
      const cards = await gm.api.get(`/v1/characters?campaign_id=${campaign.id}&fields=card&size=2`);
      expect(cards.body.size).toBe(2);
      for (const card of cards.body.data) expect(Object.keys(card).sort()).toEqual(["character_name", "id", "image", "type"]);
      expect((await gm.api.get(`/v1/characters?campaign_id=${campaign.id}&approved_only=false`)).status).toBe(200);
      expectRefused(await gm.api.get(`/v1/characters`), 422, ["query", "campaign_id"]);
      expectRefused(await gm.api.get(`/v1/characters?campaign_id=${campaign.id}&size=101`), 422, ["query", "size"]);
    });
  });

  describe("factions, locations, items", () => {
    test("CRUD for each kind, with aliases and cards", async () => {
      for (const [plural, noun] of [["factions", "Faction"], ["locations", "Location"], ["items", "Item"]] as const) {
        const created = await entity(plural, { name: `Test ${plural}`, aliases: ["One", "one", "Two"], type: "kind", description: "d" });
        expect(created).toMatchObject({ name: `Test ${plural}`, aliases: ["One", "Two"], type: "kind", merge: false, campaign_id: campaign.id });
        expect("parent_id" in created).toBe(plural === "locations");
        expect((await gm.api.get(`/v1/${plural}/${created.id}`)).body).toEqual(created);
        const patched = await gm.api.patch(`/v1/${plural}/${created.id}`, { description: "new", merge: true });
        expect(patched.body).toMatchObject({ description: "new", name: `Test ${plural}`, merge: false });
        const listed = await gm.api.get(`/v1/${plural}?campaign_id=${campaign.id}&fields=card&size=100`);
        expect(listed.body.data.find((c: any) => c.id === created.id)).toEqual({ id: created.id, name: `Test ${plural}`, type: "kind", image: null });
        expect((await gm.api.delete(`/v1/${plural}/${created.id}`)).status).toBe(204);
        expectRefused(await gm.api.get(`/v1/${plural}/${created.id}`), 404, `${noun} not found`);
      }
      // An id of one kind is not found as another.
      const faction = await entity("factions", { name: "Clasp" });
      expectRefused(await gm.api.get(`/v1/items/${faction.id}`), 404, "Item not found");
    });

    test("locations nest; never their own ancestor; parents from the same campaign only", async () => {
      const world = await entity("locations", { name: "Exandria" });
      const continent = await entity("locations", { name: "Tal'Dorei", parent_id: world.id });
      const city = await entity("locations", { name: "Emon", parent_id: continent.id });
      expect(city.parent_id).toBe(continent.id);
      const cycle = await gm.api.patch(`/v1/locations/${world.id}`, { parent_id: city.id });
      expectRefused(cycle, 422, ["body", "parent_id"], "A location cannot be its own ancestor");
      expectRefused(await gm.api.patch(`/v1/locations/${world.id}`, { parent_id: world.id }), 422, ["body", "parent_id"], "A location cannot be its own ancestor");
      const foreign = await entity("locations", { name: "Far away" }, stranger.api, otherCampaign.id);
      expectRefused(await gm.api.patch(`/v1/locations/${city.id}`, { parent_id: foreign.id }), 422, ["body", "parent_id"], "Parent must be a location of the same campaign");
      const faction = await entity("factions", { name: "Not a place" });
      expectRefused(await gm.api.post("/v1/locations", { campaign_id: campaign.id, name: "X", parent_id: faction.id }), 422, ["body", "parent_id"], "Parent must be a location of the same campaign");
      expect((await gm.api.patch(`/v1/locations/${city.id}`, { parent_id: null })).body.parent_id).toBeNull();
      expect((await gm.api.delete(`/v1/locations/${continent.id}`)).status).toBe(204);
    });

    test("the entities picker uses limit and answers results/hasMore/page/pages/total", async () => {
      const own = await gm.api.post("/v1/campaigns", { title: "Picker" });
      for (const name of ["Alpha", "Beta", "Gamma"]) await entity("items", { name }, gm.api, own.body.id);
      const page1 = await gm.api.get(`/v1/entities?campaign_id=${own.body.id}&type=items&limit=2`);
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ hasMore: true, page: 1, pages: 2, total: 3 });
      expect(page1.body.results).toHaveLength(2);
      expect(Object.keys(page1.body.results[0]).sort()).toEqual(["id", "image", "name", "type"]);
      const page2 = await gm.api.get(`/v1/entities?campaign_id=${own.body.id}&type=items&limit=2&page=2`);
      expect(page2.body).toMatchObject({ hasMore: false, page: 2, pages: 2, total: 3 });
      const characters = await gm.api.get(`/v1/entities?campaign_id=${campaign.id}&type=characters&search=grog`);
      expect(characters.body.results[0]).toMatchObject({ name: "Grog" });
      expectRefused(await gm.api.get(`/v1/entities?campaign_id=${own.body.id}&type=items&limit=101`), 422, ["query", "limit"]);
      expectRefused(await gm.api.get(`/v1/entities?campaign_id=${own.body.id}&type=spells`), 422, ["query", "type"]);
      expectRefused(await gm.api.get(`/v1/entities?campaign_id=${own.body.id}`), 422, ["query", "type"]);
    });
  });

  describe("links and wikilinks", () => {
    test("the issue's scenario: markup becomes a link, reads strip it, removing it drops the link", async () => {
      const mira = await character({ character_name: "Mira" });
      const other = await character({ character_name: "Dockhand", description: "Met [[Mira]] at the docks" });
      expect(other.description).toBe("Met Mira at the docks");
      expect((await gm.api.get(`/v1/characters/${other.id}`)).body.description).toBe("Met Mira at the docks");
      expect((await gm.api.get(`/v1/characters/${other.id}?with_links=true`)).body.description).toBe("Met [[Mira]] at the docks");
      const links = await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${other.id}`);
      expect(links.body.data).toEqual([expect.objectContaining({ from_type: "Character", from_id: other.id, to_type: "Character", to_id: mira.id, alias: "Mira" })]);

      await gm.api.patch(`/v1/characters/${other.id}`, { description: "Met someone at the docks" });
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${other.id}`)).body.total).toBe(0);
    });

    test("backstory links are kept apart from description links; aliases and shown text resolve", async () => {
      const keep = await entity("locations", { name: "Whitestone", aliases: ["the White Stone"] });
      const guild = await entity("factions", { name: "The Clasp" });
      const percy = await character({
        character_name: "Percy",
        description: "Works against [[The Clasp|the thieves]]",
        backstory: "Heir of [[the white stone]]; hunts [[Nobody Known]]",
      });
      const links = (await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${percy.id}&size=100`)).body.data;
      expect(links).toHaveLength(2);
      expect(links.find((l: any) => l.from_type === "Backstory")).toMatchObject({ to_id: keep.id, to_type: "Location", alias: "the white stone" });
      expect(links.find((l: any) => l.from_type === "Character")).toMatchObject({ to_id: guild.id, to_type: "Faction" });
      expect(percy.backstory).toBe("Heir of the white stone; hunts Nobody Known");

      await gm.api.patch(`/v1/characters/${percy.id}`, { backstory: "No more links" });
      const after = (await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${percy.id}`)).body.data;
      expect(after.map((l: any) => l.from_type)).toEqual(["Character"]);

      const summary = await gm.api.patch(`/v1/campaigns/${campaign.id}`, { summary: "The party defends [[Whitestone]]." });
      expect(summary.body.summary).toBe("The party defends Whitestone.");
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}?with_links=true`)).body.summary).toContain("[[Whitestone]]");
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_type=World`)).body.data[0]).toMatchObject({ to_id: keep.id });
    });

    test("create is an upsert on source and normalized alias; update and delete", async () => {
      const a = await character({ character_name: "Pike" });
      const b = await character({ character_name: "Trinket" });
      const c = await entity("items", { name: "Plate armor" });
      const first = await gm.api.post(`/v1/campaigns/${campaign.id}/links`, { from_id: a.id, from_type: "Character", to_id: b.id, to_type: "Character", alias: "  Best   Friend " });
      expect(first.status).toBe(201);
      expect(first.body.alias).toBe("Best Friend");
      const again = await gm.api.post(`/v1/campaigns/${campaign.id}/links`, { from_id: a.id, from_type: "Character", to_id: c.id, to_type: "Item", alias: "best friend" });
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.body).toMatchObject({ to_id: c.id, to_type: "Item" });
      const defaulted = await gm.api.post(`/v1/worlds/${campaign.id}/links`, { from_id: a.id, from_type: "Character", to_id: b.id, to_type: "Character" });
      expect(defaulted.body.alias).toBe("Trinket");
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${a.id}`)).body.total).toBe(2);
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?alias=BEST%20FRIEND`)).body.total).toBe(1);

      const renamed = await gm.api.patch(`/v1/campaigns/${campaign.id}/links/${first.body.id}`, { alias: "Armor" });
      expect(renamed.body.alias).toBe("Armor");
      expectRefused(await gm.api.patch(`/v1/campaigns/${campaign.id}/links/${first.body.id}`, { alias: "  " }), 422, ["body", "alias"]);
      expectRefused(await gm.api.patch(`/v1/campaigns/${campaign.id}/links/${first.body.id}`, { alias: "trinket" }), 409, "Another link from the same record already uses this alias");
      expect((await gm.api.delete(`/v1/worlds/${campaign.id}/links/${first.body.id}`)).status).toBe(204);
      expectRefused(await gm.api.delete(`/v1/campaigns/${campaign.id}/links/${first.body.id}`), 404, "Link not found");

      // Deleting a record takes its links with it, both directions.
      await gm.api.post(`/v1/campaigns/${campaign.id}/links`, { from_id: b.id, from_type: "Character", to_id: a.id, to_type: "Character" });
      expect((await gm.api.delete(`/v1/characters/${a.id}`)).status).toBe(204);
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?to_id=${a.id}`)).body.total).toBe(0);
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${a.id}`)).body.total).toBe(0);
    });

    test("link validation: types, missing ends (404), other campaigns (422)", async () => {
      const a = await character({ character_name: "Tiberius" });
      const foreign = await entity("items", { name: "Foreign" }, stranger.api, otherCampaign.id);
      const post = (body: Record<string, unknown>) => gm.api.post(`/v1/campaigns/${campaign.id}/links`, body);
      expectRefused(await post({ from_id: a.id, from_type: "Spell", to_id: a.id, to_type: "Character" }), 422, ["body", "from_type"]);
      expectRefused(await post({ from_id: a.id, from_type: "Character", to_id: a.id, to_type: "World" }), 422, ["body", "to_type"]);
      expectRefused(await post({ from_id: a.id, from_type: "Character", to_id: "missing", to_type: "Character" }), 404, "Link target Character missing not found");
      expectRefused(await post({ from_id: "missing", from_type: "Character", to_id: a.id, to_type: "Character" }), 404, "Link source Character missing not found");
      const cross = await post({ from_id: a.id, from_type: "Character", to_id: foreign.id, to_type: "Item" });
      expectRefused(cross, 422, ["body", "to_id"], "Link source and target must both belong to this campaign");
    });

    test("maintenance add, remove and update run as tasks and keep texts and links consistent", async () => {
      const own = (await gm.api.post("/v1/campaigns", { title: "Maintenance" })).body;
      const sylas = await entity("factions", { name: "Sylas" }, gm.api, own.id);
      const briarwoods = await entity("factions", { name: "The Briarwoods" }, gm.api, own.id);
      const note = (await gm.api.post("/v1/characters", { campaign_id: own.id, character_name: "Cassandra", description: "Sylas rules. sylas lies. Sylasian is a word." })).body;

      const add = await gm.api.post("/v1/factions/links/maintenance", { operation: "add", campaign_id: own.id, target_id: sylas.id, target_type: "Faction" });
      expect(add.status).toBe(202);
      expect(add.body).toEqual({ success: true, task_id: expect.any(String) });
      const added = await waitForTask(gm.api, add.body.task_id);
      expect(added).toMatchObject({ status: "succeeded", result: { texts_changed: 1, links_added: 1 } });
      expect((await gm.api.get(`/v1/characters/${note.id}?with_links=true`)).body.description).toBe("[[Sylas]] rules. [[Sylas|sylas]] lies. Sylasian is a word.");
      expect((await gm.api.get(`/v1/characters/${note.id}`)).body.description).toBe("Sylas rules. sylas lies. Sylasian is a word.");
      expect((await gm.api.get(`/v1/campaigns/${own.id}/links?to_id=${sylas.id}`)).body.total).toBe(1);

      const update = await gm.api.post("/v1/factions/links/maintenance", { operation: "update", worldId: own.id, targetId: sylas.id, newTargetId: briarwoods.id });
      expect((await waitForTask(gm.api, update.body.task_id)).status).toBe("succeeded");
      expect((await gm.api.get(`/v1/characters/${note.id}?with_links=true`)).body.description).toBe("[[The Briarwoods|Sylas]] rules. [[The Briarwoods|sylas]] lies. Sylasian is a word.");
      expect((await gm.api.get(`/v1/campaigns/${own.id}/links?to_id=${briarwoods.id}`)).body.total).toBe(1);
      expect((await gm.api.get(`/v1/campaigns/${own.id}/links?to_id=${sylas.id}`)).body.total).toBe(0);

      const remove = await gm.api.post("/v1/factions/links/maintenance", { operation: "remove", campaign_id: own.id, target_id: briarwoods.id });
      expect((await waitForTask(gm.api, remove.body.task_id)).status).toBe("succeeded");
      expect((await gm.api.get(`/v1/characters/${note.id}?with_links=true`)).body.description).toBe("Sylas rules. sylas lies. Sylasian is a word.");
      expect((await gm.api.get(`/v1/campaigns/${own.id}/links?to_id=${briarwoods.id}`)).body.total).toBe(0);

      expectRefused(await gm.api.post("/v1/factions/links/maintenance", { operation: "add", campaign_id: own.id, target_id: "missing" }), 404, "Faction missing not found in this campaign");
      expectRefused(await gm.api.post("/v1/factions/links/maintenance", { operation: "explode", campaign_id: own.id, target_id: sylas.id }), 422, ["body", "operation"]);
      expectRefused(await gm.api.post("/v1/factions/links/maintenance", { operation: "add", target_id: sylas.id }), 422, ["body", "campaign_id"]);
      expectRefused(await stranger.api.post("/v1/factions/links/maintenance", { operation: "add", campaign_id: own.id, target_id: sylas.id }), 403, "Write access denied for this campaign");
      expectRefused(await stranger.api.get(`/v1/tasks/${add.body.task_id}`), 403, "Access denied to this campaign");
      expectRefused(await gm.api.get(`/v1/tasks/missing`), 404, "Task not found");
    });
  });

  describe("search", () => {
    // Hand-made fixtures from the first ten Critical Role episodes (CRD3, CC BY-SA 4.0).
    const PEOPLE = [
      ["Grog Strongjaw", "PC", "Goliath barbarian of Vox Machina"],
      ["Vex'ahlia", "PC", "Half-elf ranger with a bear companion, Trinket"],
      ["Vax'ildan", "PC", "Half-elf rogue, Vex's twin brother"],
      ["Keyleth", "PC", "Half-elf druid of the Air Ashari"],
      ["Percival de Rolo", "PC", "Human gunslinger"],
      ["Scanlan Shorthalt", "PC", "Gnome bard"],
      ["Pike Trickfoot", "PC", "Gnome cleric of Sarenrae"],
      ["Tiberius Stormwind", "PC", "Dragonborn sorcerer"],
      ["Kima of Vord", "NPC", "Halfling paladin of Bahamut"],
      ["Lady Allura Vysoren", "NPC", "Human wizard of the Tal'Dorei Council"],
      ["Clarota", "NPC", "Mind flayer who escaped the Underdark"],
      ["Nostoc Greyspine", "NPC", "Dwarf of Kraghammer"],
      ["Thordak", "NPC", "The Cinder King"],
    ] as const;
    const PLACES = [
      ["Kraghammer", "city", "Dwarven city carved into the mountains"],
      ["Emon", "city", "Capital of Tal'Dorei"],
      ["Greyskull Keep", "keep", "Vox Machina's stronghold near Emon"],
      ["Underdark", "region", "Caverns beneath Kraghammer where the mind flayers live"],
      ["Stilben", "town", "Port town"],
    ] as const;
    let searchCampaign: any;

    beforeAll(async () => {
      searchCampaign = (await gm.api.post("/v1/campaigns", { title: "CRD3 search" })).body;
      for (const [name, type, description] of PEOPLE) await gm.api.post("/v1/characters", { campaign_id: searchCampaign.id, character_name: name, type, description });
      for (const [name, type, description] of PLACES) await gm.api.post("/v1/locations", { campaign_id: searchCampaign.id, name, type, description });
      for (let i = 0; i < 14; i++) await gm.api.post("/v1/items", { campaign_id: searchCampaign.id, name: `Potion of Healing ${i + 1}`, type: "potion" });
    });

    test("misspellings still find: Kragammer, vex, Scanlin", async () => {
      const misspelled = await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=Kragammer`);
      expect(misspelled.status).toBe(200);
      expect(misspelled.body.locations[0].name).toBe("Kraghammer");
      const vex = await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=vex&types=characters`);
      expect(Object.keys(vex.body)).toEqual(["characters"]);
      expect(vex.body.characters[0].name).toBe("Vex'ahlia");
      expect((await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=Scanlin`)).body.characters[0].name).toBe("Scanlan Shorthalt");
    });

    test("every bucket is present, at most 10 hits each, with highlighted snippets", async () => {
      const reply = await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=potion`);
      expect(Object.keys(reply.body).sort()).toEqual(["beats", "characters", "factions", "items", "journals", "locations", "moments", "quests", "sessions"]);
      expect(reply.body.items).toHaveLength(10);
      for (const hit of reply.body.items) expect(hit).toMatchObject({ id: expect.any(String), type: "item", name: expect.stringContaining("Potion"), score: expect.any(Number) });
      const described = await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=mind%20flayers`);
      expect(described.body.locations[0]).toMatchObject({ name: "Underdark", snippet: "region Caverns beneath Kraghammer where the <mark>mind</mark> <mark>flayers</mark> live" });
      // The snippet is HTML: a record's own text in it is escaped.
      await gm.api.post("/v1/items", { campaign_id: searchCampaign.id, name: "Cursed scroll", description: `<img src=x onerror="alert(1)"> reads "Tiamat"` });
      expect((await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=tiamat&types=items`)).body.items[0].snippet).toBe(
        "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; reads &quot;<mark>Tiamat</mark>&quot;",
      );
      expectRefused(await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=x&types=spells`), 422, ["query", "types"]);
      expect((await gm.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=`)).body.characters).toEqual([]);
    });

    test("list search: full text, substring and misspelling, ranked", async () => {
      const byName = await gm.api.get(`/v1/characters?campaign_id=${searchCampaign.id}&search=vex`);
      expect(byName.body.data[0].character_name).toBe("Vex'ahlia");
      const byType = await gm.api.get(`/v1/characters?campaign_id=${searchCampaign.id}&search=NPC&size=100`);
      expect(byType.body.total).toBe(5);
      const locations = await gm.api.get(`/v1/locations?campaign_id=${searchCampaign.id}&search=Kragammer`);
      expect(locations.body.data[0].name).toBe("Kraghammer");
    });

    test("list search ranks the exact name, then names starting with the query, then other matches", async () => {
      const ranked = (await gm.api.post("/v1/campaigns", { title: "Ranking" })).body;
      // Created best match first, so the default newest-first order would invert them.
      for (const name of ["Grog", "Groggy Trinket", "Old Grog"]) await gm.api.post("/v1/characters", { campaign_id: ranked.id, character_name: name });
      await gm.api.post("/v1/characters", { campaign_id: ranked.id, character_name: "Earthbreaker", character_aliases: ["Grog's hammer"] });
      const names = (await gm.api.get(`/v1/characters?campaign_id=${ranked.id}&search=GROG`)).body.data.map((c: any) => c.character_name);
      expect(names.slice(0, 2)).toEqual(["Grog", "Groggy Trinket"]);
      expect(names.slice(2).sort()).toEqual(["Earthbreaker", "Old Grog"]);
      const second = (await gm.api.get(`/v1/characters?campaign_id=${ranked.id}&search=grog&size=2&page=2`)).body;
      expect({ names: second.data.map((c: any) => c.character_name), total: second.total, pages: second.pages }).toEqual({ names: names.slice(2), total: 4, pages: 2 });
      const beyond = (await gm.api.get(`/v1/characters?campaign_id=${ranked.id}&search=grog&size=2&page=5`)).body;
      expect({ data: beyond.data, total: beyond.total }).toEqual({ data: [], total: 4 });
      for (const name of ["Emon", "Emon Docks", "Old Emon"]) await gm.api.post("/v1/locations", { campaign_id: ranked.id, name });
      expect((await gm.api.get(`/v1/locations?campaign_id=${ranked.id}&search=emon`)).body.data.map((l: any) => l.name)).toEqual(["Emon", "Emon Docks", "Old Emon"]);
    });

    test("search never crosses campaigns", async () => {
      expectRefused(await stranger.api.get(`/v1/campaigns/${searchCampaign.id}/search?q=Grog`), 403, "Access denied to this campaign");
      const own = await stranger.api.get(`/v1/campaigns/${otherCampaign.id}/search?q=Grog`);
      expect(own.body.characters).toEqual([]);
    });
  });

  describe("access across campaigns", () => {
    test("a stranger neither reads, lists, changes, deletes nor links another campaign's records", async () => {
      const secret = await character({ character_name: "Secret NPC", description: "hidden" });
      const place = await entity("locations", { name: "Hidden place" });
      expectRefused(await stranger.api.get(`/v1/characters/${secret.id}`), 403, "Access denied to this campaign");
      expectRefused(await stranger.api.get(`/v1/characters?campaign_id=${campaign.id}`), 403, "Access denied to this campaign");
      expectRefused(await stranger.api.patch(`/v1/characters/${secret.id}`, { description: "mine" }), 403, "Write access denied for this campaign");
      expectRefused(await stranger.api.delete(`/v1/characters/${secret.id}`), 403, "Write access denied for this campaign");
      expectRefused(await stranger.api.get(`/v1/locations/${place.id}`), 403, "Access denied to this campaign");
      expectRefused(await stranger.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Intruder" }), 403, "Write access denied for this campaign");
      expectRefused(await stranger.api.get(`/v1/campaigns/${campaign.id}/links`), 403, "Access denied to this campaign");
      expectRefused(await stranger.api.get(`/v1/entities?campaign_id=${campaign.id}&type=characters`), 403, "Access denied to this campaign");
      // Linking from their own campaign to a record of ours is refused, not silently accepted.
      const theirs = await entity("items", { name: "Their item" }, stranger.api, otherCampaign.id);
      const link = await stranger.api.post(`/v1/campaigns/${otherCampaign.id}/links`, { from_id: theirs.id, from_type: "Item", to_id: secret.id, to_type: "Character" });
      expectRefused(link, 422, ["body", "to_id"], "Link source and target must both belong to this campaign");
      const location = await stranger.api.post("/v1/locations", { campaign_id: otherCampaign.id, name: "X", parent_id: place.id });
      expectRefused(location, 422, ["body", "parent_id"], "Parent must be a location of the same campaign");
      expect((await gm.api.get(`/v1/characters/${secret.id}`)).body.description).toBe("hidden");
    });

    test("a viewer reads but cannot write", async () => {
      await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: stranger.id, role: "viewer" });
      try {
        expect((await stranger.api.get(`/v1/characters?campaign_id=${campaign.id}`)).status).toBe(200);
        expectRefused(await stranger.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Nope" }), 403, "Write access denied for this campaign");
      } finally {
        await admin.delete(`/internal/v1/campaigns/${campaign.id}/members/${stranger.id}`);
      }
    });
  });

  test("campaign stats count the compendium", async () => {
    const own = (await gm.api.post("/v1/campaigns", { title: "Counting" })).body;
    await gm.api.post("/v1/characters", { campaign_id: own.id, character_name: "A" });
    await gm.api.post("/v1/characters", { campaign_id: own.id, character_name: "B" });
    await entity("factions", { name: "F" }, gm.api, own.id);
    await entity("locations", { name: "L" }, gm.api, own.id);
    await entity("items", { name: "I" }, gm.api, own.id);
    expect((await gm.api.get(`/v1/campaigns/${own.id}/stats`)).body).toMatchObject({ characters: 2, factions: 1, locations: 1, items: 1, sessions: 0 });
    expect((await gm.api.delete(`/v1/campaigns/${own.id}`)).status).toBe(204);
  });
});
