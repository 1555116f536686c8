// Markdown (Obsidian) import: our own export.zip round trip, a hand-made vault (tests/fixtures/vault), and refusals, on each record backend.
import { expect, test } from "bun:test";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { parse } from "yaml";
import { forEachBackend } from "../support/backends.ts";
import { png } from "../support/images.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { scratchDatabase } from "../support/postgres.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "vault", "Tal'Dorei");

/** The fixture folder as a zip under its own name, as the CLI sends it. */
function zipDir(dir: string, root: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`);
      else files[`${root}/${prefix}${name}`] = new Uint8Array(readFileSync(full));
    }
  };
  walk(dir, "");
  return zipSync(files);
}

/** Width × height and format of image bytes, as sharp reads them. */
const shape = async (bytes: Uint8Array) => {
  const meta = await sharp(bytes).metadata();
  return `${meta.format} ${meta.width}x${meta.height}`;
};

await forEachBackend("Markdown import", (backend) => {
let service: InProcessService;
let owner: { id: string; key: string };
let key: string;

const as = (who: string, method: string, path: string, body?: unknown) => service.must(method, path, who, body);
const zipOf = async (path: string) => new Uint8Array(await (await service.request("GET", path, { key, must: true })).arrayBuffer());
const importZip = (zip: Uint8Array, query = "") =>
  service.app.handle(
    new Request(`http://localhost/internal/v1/campaigns/import-markdown?owner_id=${owner.id}${query}`, {
      method: "POST",
      headers: { "x-api-key": service.adminKey, "content-type": "application/zip" },
      body: new Blob([zip as Uint8Array<ArrayBuffer>]),
    }),
  );
const exported = async (campaignId: string) => (await as(service.adminKey, "GET", `/internal/v1/campaigns/${campaignId}/export`)).records;
const count = async (table: string) => (await service.db.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;
const campaignCount = () => count("campaigns");
/** What a URL serves: the bytes, or the status when it is not 200. */
const served = async (url: string) => {
  const response = await service.app.handle(new Request(url));
  return response.status === 200 ? new Uint8Array(await response.arrayBuffer()) : response.status;
};

inProcessOn(backend, async (made) => {
  service = made;
  owner = await service.newUser("Matt", `matt-${backend.name}@example.test`);
  key = owner.key;
});

test("export.zip → import-markdown → export.zip gives the same vault (up to ids)", async () => {
  const c = await as(key, "POST", "/v1/campaigns", { title: "Vox Machina", description: "Tal'Dorei adventures" });
  const cid = c.id;
  await as(key, "POST", "/v1/characters", { campaign_id: cid, character_name: "Grog", character_aliases: ["Grog Strongjaw"], description: "Friend of [[Pike]] from [[Emon|the city]]", backstory: "Exiled from the [[Herd of Storms]]." });
  await as(key, "POST", "/v1/characters", { campaign_id: cid, character_name: "Pike", type: "PC", player_name: "Ashley", description: "Cleric of [[Sarenrae]]." });
  const taldorei = await as(key, "POST", "/v1/locations", { campaign_id: cid, name: "Tal'Dorei", aliases: ["The Continent"] });
  await as(key, "POST", "/v1/locations", { campaign_id: cid, name: "Emon", type: "city", description: "Capital; home of [[Grog]].", parent_id: taldorei.id });
  await as(key, "POST", "/v1/factions", { campaign_id: cid, name: "Herd of Storms", description: "Goliath raiders." });
  await as(key, "POST", "/v1/items", { campaign_id: cid, name: "Titanstone Knuckles", description: "Worn by [[Grog]]." });
  const folder = await as(key, "POST", "/v1/journal-folders", { world_id: cid, name: "Gods", path: "Lore/Gods" });
  await as(key, "POST", "/v1/journals", { world_id: cid, title: "Sarenrae", summary: "The Everlight", content: "Dawn goddess; [[Pike]] prays to her.", tags: ["gods"], folder_id: folder.id, is_public: true });
  await as(key, "POST", "/v1/journals", { world_id: cid, title: "Loose note", content: "Ask [[Grog]] about the [[Titanstone Knuckles]]." });
  const session = await as(service.adminKey, "POST", "/internal/v1/sessions", { campaign_id: cid, title: "Arrival", session_date: "2015-03-12T19:00:00.000Z", type: "chatVoice", summary: "The party reaches [[Emon]]." });
  const arc = await as(key, "POST", "/v1/beats", { campaign_id: cid, label: "The Briarwoods", type: "major", description: "Villains of [[Tal'Dorei]]", game_session_ids: [session.id] });
  await as(key, "POST", "/v1/beats", { campaign_id: cid, label: "Whitestone", type: "minor", parent_id: arc.id });
  await as(key, "POST", "/v1/moments", { campaign_id: cid, label: "Grog's entrance", content: "[[Grog]] kicks the door.", session_id: session.id, categories: ["funny"] });
  await as(key, "POST", "/v1/quests", { campaign_id: cid, quest_name: "Find the hammer", quest_giver: "Grog", status: "in-progress", quest_category: "side", success_definition: "The hammer is found", next_action: "Ask in [[Emon]]" });

  const first = await zipOf(`/v1/campaigns/${cid}/export.zip?format=markdown`);
  const response = await importZip(first);
  expect(response.status).toBe(201);
  const imported = await response.json();
  expect(imported.counts).toEqual({ session: 1, character: 2, location: 2, faction: 1, item: 1, beat: 2, moment: 1, quest: 1, journal: 2, journal_folder: 2, image: 0 });
  expect(imported.id).not.toBe(cid);

  const second = await zipOf(`/v1/campaigns/${imported.id}/export.zip?format=markdown`);
  const notesOf = (zip: Uint8Array) => {
    const files = unzipSync(zip);
    const ids = new Map<string, string>();
    const notes = Object.entries(files).map(([path, bytes]) => {
      const [, front, body] = /^---\n([\s\S]*?)---\n\n([\s\S]*)$/.exec(strFromU8(bytes))!;
      const fields = parse(front!) as Record<string, unknown>;
      ids.set(String(fields.id), path);
      return { path, fields, body };
    });
    // Ids differ between the two campaigns: compare what they name (the note's path).
    for (const note of notes) for (const field of ["id", "parent", "session"]) if (typeof note.fields[field] === "string" && ids.has(note.fields[field] as string)) note.fields[field] = ids.get(note.fields[field] as string);
    return notes.sort((a, b) => a.path.localeCompare(b.path));
  };
  const before = notesOf(first);
  expect(before.map((n) => n.path)).toContain("Vox Machina/Locations/Emon.md");
  expect(notesOf(second)).toEqual(before);

  // The stored records and links, not only the vault: the wikilinks made the same links.
  const [a, b] = [await exported(cid), await exported(imported.id)];
  const linkNames = (records: Record<string, Record<string, unknown>[]>) => {
    const names = new Map<string, string>();
    for (const section of ["campaign", "characters", "locations", "factions", "items", "journal_entries", "sessions", "beats", "moments"])
      for (const row of records[section] ?? []) names.set(String(row.id), String(row.character_name ?? row.name ?? row.title ?? row.label));
    return records.links!.map((l) => `${names.get(String(l.from_id))} -[${l.alias}]-> ${names.get(String(l.to_id))}`).sort();
  };
  // Every link of the source, and more: the import resolves wikilinks once every record exists, while
  // the source's Grog was written before Pike, Emon and the Herd were (link maintenance adds those later).
  expect(linkNames(b)).toEqual([
    "Arrival -[Emon]-> Emon",
    "Emon -[Grog]-> Grog",
    "Grog -[Emon]-> Emon",
    "Grog -[Herd of Storms]-> Herd of Storms",
    "Grog -[Pike]-> Pike",
    "Grog's entrance -[Grog]-> Grog",
    "Loose note -[Grog]-> Grog",
    "Loose note -[Titanstone Knuckles]-> Titanstone Knuckles",
    "Sarenrae -[Pike]-> Pike",
    "The Briarwoods -[Tal'Dorei]-> Tal'Dorei",
    "Titanstone Knuckles -[Grog]-> Grog",
  ]);
  for (const link of linkNames(a)) expect(linkNames(b)).toContain(link);
  expect(b.characters.map((c: Record<string, unknown>) => [c.character_name, c.type, c.player_name, c.backstory])).toEqual([
    ["Grog", "NPC", null, "Exiled from the [[Herd of Storms]]."],
    ["Pike", "PC", "Ashley", null],
  ]);
  expect(b.journal_entries.find((j: Record<string, unknown>) => j.title === "Sarenrae")).toMatchObject({ summary: "The Everlight", content: "Dawn goddess; [[Pike]] prays to her.", is_public: true, author_id: owner.id });
  expect(b.quests.map((q: Record<string, unknown>) => [q.quest_name, q.quest_giver, q.quest_giver_id === b.characters[0].id, q.status, q.quest_category, q.success_definition, q.next_action])).toEqual([
    ["Find the hammer", "Grog", true, "in-progress", "side", "The hammer is found", "Ask in [[Emon]]"],
  ]);
  expect(b.beats.map((x: Record<string, unknown>) => [x.label, x.type, x.parent_id === b.beats[0].id, (x.game_session_ids as string[]).length])).toEqual([
    ["The Briarwoods", "major", false, 1],
    ["Whitestone", "minor", true, 0],
  ]);
  expect(b.moments.map((m: Record<string, unknown>) => [m.label, m.session_id === b.sessions[0].id, m.categories])).toEqual([["Grog's entrance", true, ["funny"]]]);
  expect(b.sessions.map((x: Record<string, unknown>) => [x.title, x.type, x.session_date])).toEqual([["Arrival", "chatVoice", "2015-03-12T19:00:00+00:00"]]);
  // Searchable at once.
  const found = await as(key, "GET", `/v1/campaigns/${imported.id}/search?q=Titanstone`);
  expect(found.items.map((hit: { name: string }) => hit.name)).toEqual(["Titanstone Knuckles"]);
}, 30_000); // the first journal entry starts the tokenizer thread: seconds on a loaded machine

test("a hand-made Obsidian vault: kinds from folders, journals for the rest, aliases, embedded pictures, [[a|b]] and [[a#h]] linked", async () => {
  const response = await importZip(zipDir(FIXTURE, "Tal'Dorei"));
  expect(response.status).toBe(201);
  const { id, counts } = await response.json();
  expect(counts).toEqual({ character: 2, faction: 2, item: 1, journal: 3, location: 2, journal_folder: 2, image: 3 });
  const records = await exported(id);
  expect(records.campaign[0].title).toBe("Tal'Dorei");
  expect(records.characters.map((c: Record<string, unknown>) => [c.character_name, c.character_aliases, c.type])).toEqual([
    ["Grog Strongjaw", [], "NPC"],
    ["Pike Trickfoot", ["Pike", "The Cleric"], "NPC"],
  ]);
  const pike = records.characters[1];
  expect(pike.description).toBe("A gnome cleric of [[Sarenrae]], friend of [[Grog Strongjaw|Grog]].\n\n![[pike.png]]\n\nShe grew up in [[Emon#The Slums]].");
  expect(records.locations.map((l: Record<string, unknown>) => [l.name, l.aliases])).toEqual([
    ["Emon", ["City of Fellowship"]],
    ["Greyskull Keep", []],
  ]);
  expect(records.factions.map((f: Record<string, unknown>) => [f.name, f.type])).toEqual([
    ["Council of Tal'Dorei", null],
    ["Vox Machina", "adventurers"],
  ]);
  expect(records.journal_folders.map((f: Record<string, unknown>) => f.path)).toEqual(["Lore", "Lore/Gods"]);
  const folderPath = new Map(records.journal_folders.map((f: Record<string, unknown>) => [f.id, f.path]));
  expect(records.journal_entries.map((j: Record<string, unknown>) => [j.title, folderPath.get(j.folder_id) ?? null, j.tags, j.is_public]).sort()).toEqual([
    ["Calendar", "Lore", [], false],
    ["Sarenrae", "Lore/Gods", ["gods", "dawn"], false],
    ["Welcome", null, [], false],
  ]);
  expect(records.journal_entries.find((j: Record<string, unknown>) => j.title === "Welcome").content).toBe("Start here. ![[map.png]]");

  const names = new Map<string, string>();
  for (const section of ["characters", "locations", "factions", "items", "journal_entries"]) for (const row of records[section]) names.set(row.id, row.character_name ?? row.name ?? row.title);
  expect(records.links.map((l: Record<string, unknown>) => `${names.get(l.from_id as string)} -> ${names.get(l.to_id as string)}`).sort()).toEqual([
    "Calendar -> Emon",
    "Council of Tal'Dorei -> Emon",
    "Emon -> Council of Tal'Dorei",
    "Greyskull Keep -> Emon",
    "Greyskull Keep -> Vox Machina",
    "Grog Strongjaw -> Titanstone Knuckles",
    "Grog Strongjaw -> Vox Machina",
    "Pike Trickfoot -> Emon",
    "Pike Trickfoot -> Grog Strongjaw",
    "Sarenrae -> Pike Trickfoot",
    "Titanstone Knuckles -> Grog Strongjaw",
    "Vox Machina -> Greyskull Keep",
    "Vox Machina -> Grog Strongjaw",
    "Vox Machina -> Pike Trickfoot",
  ]);
  // Pictures: each record's first embedded picture file is its managed image (re-encoded, served at
  // its URL); `![[pike.png]]` is the shortest of two pike.png; `![[maps/emon-map.jpg|300]]` a path's
  // tail; `![…](../../attachments/greyskull%20keep.png)` relative to the note. Vox Machina's
  // `![[banner.png]]` names no file; a journal note (Welcome) has no image field: no image for either.
  const fixtureBytes = (path: string) => new Uint8Array(readFileSync(join(FIXTURE, path)));
  expect(await shape(fixtureBytes("attachments/old/pike.png"))).toBe("png 8x8");
  const pictures = [
    ["characters", "Pike Trickfoot", "character", "png 4x4", "pike.png"],
    ["locations", "Emon", "location", "jpeg 6x4", "emon-map.jpg"],
    ["locations", "Greyskull Keep", "location", "png 5x5", "greyskull-keep.png"],
  ] as const;
  for (const [section, name, type, expected, file] of pictures) {
    const row = records[section].find((r: Record<string, unknown>) => (r.character_name ?? r.name) === name);
    expect(row.image).toStartWith(service.deps.images.store.publicUrl(`campaigns/${id}/${type}/`));
    expect(row.image).toEndWith(`-${file}`);
    const bytes = await served(row.image);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(await shape(bytes as Uint8Array)).toBe(expected);
  }
  expect(records.images.map((i: Record<string, unknown>) => [i.entity_type, names.get(i.entity_id as string), i.status, i.attached, i.origin, i.created_by, i.content_type]).sort()).toEqual([
    ["character", "Pike Trickfoot", "ready", true, "upload", owner.id, "image/png"],
    ["location", "Emon", "ready", true, "upload", owner.id, "image/jpeg"],
    ["location", "Greyskull Keep", "ready", true, "upload", owner.id, "image/png"],
  ]);
  for (const image of records.images) expect([...records.characters, ...records.locations].find((r: Record<string, unknown>) => r.id === image.entity_id).image).toBe(image.url);
  expect(records.factions.map((f: Record<string, unknown>) => f.image)).toEqual([null, null]);
  expect(records.factions[1].description).toEndWith("![[banner.png]]");
  expect(records.locations[1].description).toBe("Home of [[Vox Machina]], outside [[Emon]].\n\n![The keep](../../attachments/greyskull%20keep.png)");

  // Journal entries are not link targets (spec: to_type is Character, Faction, Location, Item or
  // Moment): Pike's [[Sarenrae]] names a journal note and stays intact text, linking nothing.
  const pikeRead = await as(key, "GET", `/v1/characters/${pike.id}?with_links=true`);
  expect(pikeRead.description).toStartWith("A gnome cleric of [[Sarenrae]], friend of");
  expect((await as(key, "GET", `/v1/characters/${pike.id}`)).description).toStartWith("A gnome cleric of Sarenrae, friend of Grog.");
  const pikeLinks = await as(key, "GET", `/v1/campaigns/${id}/links?from_id=${pike.id}`);
  expect(pikeLinks.data.map((l: Record<string, unknown>) => [l.to_type, l.alias]).sort()).toEqual([["Character", "Grog Strongjaw"], ["Location", "Emon#The Slums"]]);
  expect(records.links.some((l: Record<string, unknown>) => l.to_type === "Journal")).toBe(false);
});

test("bad input names the note and creates nothing", async () => {
  const before = await campaignCount();
  const refusal = async (zip: Uint8Array) => {
    const response = await importZip(zip);
    expect(response.status).toBe(422);
    const { detail } = await response.json();
    return typeof detail === "string" ? detail : (detail[0].msg as string);
  };
  expect(await refusal(zipSync({ "V/Characters/Ok.md": strToU8("fine"), "V/Characters/Bad.md": strToU8("---\naliases: [unclosed\n---\ntext") }))).toStartWith(
    "Characters/Bad.md: the front matter is not valid YAML (",
  );
  expect(await refusal(zipSync({ "V/Notes/List.md": strToU8("---\n- a\n- b\n---\ntext") }))).toBe("Notes/List.md: the front matter must be a map of fields (key: value); nothing was imported");
  expect(await refusal(zipSync({ "V/Notes/Latin1.md": new Uint8Array([0x63, 0x61, 0x66, 0xe9]) }))).toBe("Notes/Latin1.md: is not UTF-8 text; nothing was imported");
  expect(await refusal(zipSync({ "V/picture.png": new Uint8Array([1, 2, 3]) }))).toBe("The vault holds no Markdown notes (.md); nothing was imported");
  expect(await refusal(strToU8("not a zip"))).toStartWith("The body is not a zip archive (");
  expect(await campaignCount()).toBe(before);
});

test("journal notes keep the journal limits: an entry over 50,000 tokens, or a vault over 1,000,000, is refused whole", async () => {
  const before = await campaignCount();
  const charactersBefore = (await service.db.query<{ n: number }>("select count(*)::int as n from characters"))[0]!.n;
  const words = (n: number) => strToU8(Array(n).fill("a").join(" ")); // "a a a …": one token a word
  const refused = async (zip: Uint8Array) => {
    const response = await importZip(zip);
    expect(response.status).toBe(422);
    return (await response.json()).detail[0].msg as string;
  };
  expect(await refused(zipSync({ "V/Characters/Grog.md": strToU8("A goliath."), "V/Notes/Long.md": words(50_001) }))).toBe(
    "Notes/Long.md: the note has 50,001 tokens, over the journal entry limit of 50,000; nothing was imported",
  );
  // Twenty notes at the entry limit fit; the 21st passes the campaign's total after a character and
  // twenty entries were written: the whole import is rolled back.
  const notes: Record<string, Uint8Array> = { "V/Characters/Grog.md": strToU8("A goliath.") };
  for (let i = 1; i <= 21; i++) notes[`V/Notes/Part ${String(i).padStart(2, "0")}.md`] = words(50_000);
  expect(await refused(zipSync(notes))).toBe(
    "Notes/Part 21.md: the journal notes reach 1,050,000 tokens here, over the campaign limit of 1,000,000; nothing was imported",
  );
  expect(await campaignCount()).toBe(before);
  expect((await service.db.query<{ n: number }>("select count(*)::int as n from characters"))[0]!.n).toBe(charactersBefore);
  expect((await service.db.query<{ n: number }>("select count(*)::int as n from journal_entries where title like 'Part %'"))[0]!.n).toBe(0);
});

test("a quest whose giver names nobody in the vault is kept without a giver, the name left in its text", async () => {
  const response = await importZip(
    zipSync({
      "V/Characters/Grog.md": strToU8("A goliath."),
      "V/Quests/Hammer.md": strToU8("---\ngiver: Nobody\ntags: [side]\n---\nFind the hammer."),
      "V/Quests/Bare.md": strToU8("---\ngiver: \"[[Lady Kima|Kima]]\"\n---\n"),
      "V/Quests/Known.md": strToU8("---\ngiver: \"[[Grog]]\"\n---\nHelp Grog."),
    }),
  );
  expect(response.status).toBe(201);
  const { id, counts } = await response.json();
  expect(counts).toEqual({ character: 1, quest: 3, journal_folder: 0, image: 0 });
  const records = await exported(id);
  const grog = records.characters[0].id;
  expect(records.quests.map((q: Record<string, unknown>) => [q.quest_name, q.quest_giver, q.quest_giver_id === grog, q.quest_category, q.success_definition])).toEqual([
    ["Bare", null, false, "n/a", "Giver: Lady Kima"],
    ["Hammer", null, false, "side", "Find the hammer.\n\nGiver: Nobody"],
    ["Known", "Grog", true, "n/a", "Help Grog."],
  ]);
});

test("nested location folders: a folder note (Emon.md beside or inside Emon/) is the parent of the folder's locations", async () => {
  const response = await importZip(
    zipSync({
      "V/Locations/Tal'Dorei.md": strToU8("A continent."),
      "V/Locations/Tal'Dorei/Whitestone.md": strToU8("A city."),
      "V/Locations/Tal'Dorei/Emon/Emon.md": strToU8("The capital."),
      "V/Locations/Tal'Dorei/Emon/The Slayer's Take.md": strToU8("A guild hall."),
      "V/Locations/Wildemount/Rexxentrum.md": strToU8("No folder note for Wildemount."),
    }),
  );
  expect(response.status).toBe(201);
  const { id, counts } = await response.json();
  expect(counts).toEqual({ location: 5, journal_folder: 0, image: 0 });
  const records = await exported(id);
  const nameOf = new Map(records.locations.map((l: Record<string, unknown>) => [l.id, l.name]));
  expect(records.locations.map((l: Record<string, unknown>) => [l.name, nameOf.get(l.parent_id) ?? null])).toEqual([
    ["Tal'Dorei", null],
    ["Emon", "Tal'Dorei"],
    ["The Slayer's Take", "Emon"],
    ["Whitestone", "Tal'Dorei"],
    ["Rexxentrum", null],
  ]);
});

test("front matter parent naming a record of another kind, or nothing, gives way to the folder note; a name or [[link]] of the same kind is kept", async () => {
  const response = await importZip(
    zipSync({
      "V/Characters/Grog.md": strToU8("---\nid: grog-old\n---\nA goliath."),
      "V/Locations/Tal'Dorei.md": strToU8("---\nid: taldorei-old\n---\nA continent."),
      "V/Locations/Tal'Dorei/Emon.md": strToU8("---\nparent: grog-old\n---\nAn id of a character: the folder note instead."),
      "V/Locations/Tal'Dorei/Kraghammer.md": strToU8("---\nparent: \"[[Grog]]\"\n---\nA character's name: the folder note instead."),
      "V/Locations/Tal'Dorei/Whitestone.md": strToU8("---\nparent: \"[[Emon]]\"\n---\nA location's [[link]]: kept."),
      "V/Locations/Tal'Dorei/Westruun.md": strToU8("---\nparent: Nowhere\n---\nNames nothing: the folder note."),
      "V/Locations/Wildemount/Rexxentrum.md": strToU8("---\nparent: grog-old\n---\nNo folder note: no parent."),
      "V/Items/Hammer.md": strToU8("---\nparent: taldorei-old\n---\nAn item under a location: none (items have no folder notes)."),
    }),
  );
  expect(response.status).toBe(201);
  const { id } = await response.json();
  const records = await exported(id);
  const nameOf = new Map(records.locations.map((l: Record<string, unknown>) => [l.id, l.name]));
  expect(records.locations.map((l: Record<string, unknown>) => [l.name, nameOf.get(l.parent_id) ?? null])).toEqual([
    ["Tal'Dorei", null],
    ["Emon", "Tal'Dorei"],
    ["Kraghammer", "Tal'Dorei"],
    ["Westruun", "Tal'Dorei"],
    ["Whitestone", "Emon"],
    ["Rexxentrum", null],
  ]);
  expect(records.items.map((i: Record<string, unknown>) => [i.name, i.parent_id])).toEqual([["Hammer", null]]);
});

test("pictures: front matter image first, then the first embed found; the note's folder first; kinds without an image keep only text", async () => {
  const [inFolder, atRoot, webp, gif, other] = await Promise.all([
    png(10, 10),
    png(2, 2),
    sharp({ create: { width: 7, height: 3, channels: 3, background: "#aa0000" } }).webp().toBuffer(),
    sharp({ create: { width: 9, height: 2, channels: 3, background: "#00aa00" } }).gif().toBuffer(),
    png(3, 3),
  ]);
  const objectsBefore = (await service.deps.images.store.list("campaigns/")).length;
  const response = await importZip(
    zipSync({
      "V/Characters/Grog.md": strToU8("![[missing.png]] then ![[grog.png]] and ![[other.png]]"),
      "V/Characters/grog.png": inFolder,
      "V/grog.png": atRoot,
      "V/Items/Hammer.md": strToU8('---\nimage: "[[hammer.webp]]"\n---\n![[other.png]]'),
      "V/art/hammer.webp": webp,
      "V/art/other.png": other,
      "V/Sessions/2024-03-01 The Heist.md": strToU8("![plan](<../maps/heist plan.gif> \"the plan\") ![](https://example.com/x.png)"),
      "V/maps/heist plan.gif": gif,
      "V/Moments/Boom.md": strToU8("![[boom.svg]] ![](https://example.com/boom.png)"),
      "V/boom.svg": strToU8("<svg xmlns='http://www.w3.org/2000/svg'/>"),
      "V/Quests/Heist.md": strToU8("![[other.png]]"),
      "V/Notes/Lore.md": strToU8("![[other.png]]"),
    }),
  );
  expect(response.status).toBe(201);
  const { id, counts } = await response.json();
  expect(counts).toEqual({ session: 1, character: 1, item: 1, moment: 1, quest: 1, journal: 1, journal_folder: 1, image: 3 });
  const records = await exported(id);
  const shown = async (url: string | null) => (url ? shape((await served(url)) as Uint8Array) : null);
  expect(await shown(records.characters[0].image)).toBe("png 10x10");
  expect(await shown(records.items[0].image)).toBe("webp 7x3");
  expect(await shown(records.sessions[0].image)).toBe("gif 9x2");
  expect(records.moments[0].image).toBeNull();
  expect(records.moments[0].content).toBe("![[boom.svg]] ![](https://example.com/boom.png)");
  expect(records.images.map((i: Record<string, unknown>) => i.entity_type).sort()).toEqual(["character", "item", "session"]);
  // Exactly the three objects, under the new campaign.
  const objects = await service.deps.images.store.list(`campaigns/${id}/`);
  expect(objects.sort()).toEqual(records.images.map((i: Record<string, unknown>) => i.object_key).sort());
  expect((await service.deps.images.store.list("campaigns/")).length).toBe(objectsBefore + 3);
});

test("a picture that is not an image, too large or too many pixels is refused by name; nothing is written, no object kept", async () => {
  const before = { campaigns: await campaignCount(), images: await count("images"), characters: await count("characters"), objects: (await service.deps.images.store.list("campaigns/")).length };
  const refused = async (files: Record<string, Uint8Array>) => {
    const response = await importZip(zipSync(files));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.detail[0].loc).toEqual(["body", body.detail[0].msg.split(" (embedded")[0]]);
    return body.detail[0].msg as string;
  };
  const good = await png(4, 4);
  // A good picture stored first (Characters/A.md sorts first) is taken back when a later one is refused.
  expect(await refused({ "V/Characters/A.md": strToU8("![[a.png]]"), "V/a.png": good, "V/Characters/B.md": strToU8("![[b.png]]"), "V/pics/b.png": strToU8("just words") })).toBe(
    "pics/b.png (embedded in Characters/B.md): the uploaded file is not an image, or it is damaged (JPEG, PNG, WebP, GIF or AVIF expected); nothing was imported",
  );
  expect(await refused({ "V/Places/Keep.md": strToU8("![[bomb.png]]"), "V/bomb.png": new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "images", "bomb-50000x50000.png"))) })).toBe(
    "bomb.png (embedded in Places/Keep.md): the image is 50,000 × 50,000 pixels; at most 40,000,000 pixels are accepted; nothing was imported",
  );
  const settings = service.deps.images.settings;
  const maxBytes = settings.maxBytes;
  settings.maxBytes = 100;
  try {
    expect(await refused({ "V/Items/Map.md": strToU8("![](map.png)"), "V/Items/map.png": await png(64, 64) })).toMatch(/^Items\/map\.png \(embedded in Items\/Map\.md\): the image is [\d,]+ bytes; at most 100 are accepted; nothing was imported$/);
  } finally {
    settings.maxBytes = maxBytes;
  }
  // Refused after the pictures were stored (a journal note over its token limit): they are taken back too.
  const words = strToU8(Array(50_001).fill("a").join(" "));
  const late = await importZip(zipSync({ "V/Characters/A.md": strToU8("![[a.png]]"), "V/a.png": good, "V/Notes/Long.md": words }));
  expect(late.status).toBe(422);
  expect((await late.json()).detail[0].msg).toBe("Notes/Long.md: the note has 50,001 tokens, over the journal entry limit of 50,000; nothing was imported");
  expect({ campaigns: await campaignCount(), images: await count("images"), characters: await count("characters"), objects: (await service.deps.images.store.list("campaigns/")).length }).toEqual(before);
});

test("the store failing mid-way (its second write): 500, and the picture already stored is taken back", async () => {
  const store = service.deps.images.store;
  const before = { campaigns: await campaignCount(), objects: (await store.list("campaigns/")).length };
  const put = store.put;
  let writes = 0;
  // Fault injection: the real store, whose second write fails as an unreachable S3 would.
  store.put = async (...args: Parameters<typeof put>) => {
    if (++writes === 2) throw new Error("store unreachable");
    return put.apply(store, args);
  };
  try {
    const response = await importZip(zipSync({ "V/Characters/A.md": strToU8("![[a.png]]"), "V/Characters/B.md": strToU8("![[a.png]]"), "V/a.png": await png(4, 4) }));
    expect(response.status).toBe(500);
  } finally {
    store.put = put;
  }
  expect(writes).toBe(2);
  expect({ campaigns: await campaignCount(), objects: (await store.list("campaigns/")).length }).toEqual(before);
});

test("pictures round trip: export.zip?include_images=true → import-markdown → export.zip gives the same notes and pictures; without it, the URLs are copied from this service", async () => {
  const campaign = await as(key, "POST", "/v1/campaigns", { title: "Whitestone" });
  const cid = campaign.id;
  const vex = await as(key, "POST", "/v1/characters", { campaign_id: cid, character_name: "Vex", description: "Ranger. ![[not in the vault.png]]" });
  const emonFaction = await as(key, "POST", "/v1/factions", { campaign_id: cid, name: "Emon" });
  const emonPlace = await as(key, "POST", "/v1/locations", { campaign_id: cid, name: "Emon" });
  await as(key, "POST", "/v1/items", { campaign_id: cid, name: "Fenthras", image: "https://cdn.example.test/fenthras.png" });
  // Uploaded as the owner does: init, PUT the bytes, complete.
  for (const [entity_type, entity_id] of [["campaign", cid], ["character", vex.id], ["faction", emonFaction.id], ["location", emonPlace.id]]) {
    const grant = await as(key, "POST", `/v1/campaigns/${cid}/images/init`, { entity_type, entity_id, file_name: "p.png", content_type: "image/png" });
    expect((await service.app.handle(new Request(grant.upload_url, { method: "PUT", body: await png(), headers: { "content-type": "image/png" } }))).status).toBe(200);
    await as(key, "POST", `/v1/campaigns/${cid}/images/complete`, { object_key: grant.object_key, entity_type, entity_id, attach: true });
  }

  type Note = { path: string; fields: Record<string, unknown>; body: string };
  const vaultOf = async (zip: Uint8Array) => {
    const files = unzipSync(zip);
    const ids = new Map<string, string>();
    const notes: Note[] = [];
    const pictures: Record<string, string> = {};
    for (const [path, bytes] of Object.entries(files)) {
      if (!path.endsWith(".md")) {
        // Pixels, not bytes: each import re-encodes (PNG is lossless, so the pixels must match).
        pictures[path] = `${await shape(bytes)} ${Bun.hash(await sharp(bytes).raw().toBuffer()).toString(36)}`;
        continue;
      }
      const [, front, body] = /^---\n([\s\S]*?)---\n\n([\s\S]*)$/.exec(strFromU8(bytes))!;
      const fields = parse(front!) as Record<string, unknown>;
      ids.set(String(fields.id), path);
      notes.push({ path, fields, body: body! });
    }
    for (const note of notes) note.fields.id = ids.get(String(note.fields.id));
    return { notes: notes.sort((a, b) => a.path.localeCompare(b.path)), pictures };
  };

  const first = await vaultOf(await zipOf(`/v1/campaigns/${cid}/export.zip?format=markdown&include_images=true`));
  expect(Object.keys(first.pictures).sort()).toEqual(["Whitestone/Images/Emon (2).png", "Whitestone/Images/Emon.png", "Whitestone/Images/Vex.png", "Whitestone/Images/Whitestone.png"]);
  expect(first.notes.map((n) => [n.path, n.fields.image])).toEqual([
    ["Whitestone/Characters/Vex.md", "[[Images/Vex.png]]"],
    ["Whitestone/Factions/Emon.md", "[[Images/Emon.png]]"],
    ["Whitestone/Items/Fenthras.md", "https://cdn.example.test/fenthras.png"],
    ["Whitestone/Locations/Emon.md", "[[Images/Emon (2).png]]"],
    ["Whitestone/Whitestone.md", "[[Images/Whitestone.png]]"],
  ]);
  expect(first.notes[0]!.body).toBe("Ranger. ![[not in the vault.png]]\n");

  const response = await importZip(await zipOf(`/v1/campaigns/${cid}/export.zip?format=markdown&include_images=true`));
  expect(response.status).toBe(201);
  const imported = await response.json();
  expect(imported.counts).toEqual({ character: 1, faction: 1, location: 1, item: 1, journal_folder: 0, image: 4 });
  expect(await vaultOf(await zipOf(`/v1/campaigns/${imported.id}/export.zip?format=markdown&include_images=true`))).toEqual(first);
  const records = await exported(imported.id);
  expect(records.items[0].image).toBe("https://cdn.example.test/fenthras.png");
  expect(records.images.map((i: Record<string, unknown>) => i.entity_type).sort()).toEqual(["campaign", "character", "faction", "location"]);
  for (const row of [records.campaign[0], records.characters[0], ...records.factions, ...records.locations]) {
    expect(row.image).toStartWith(service.deps.images.store.publicUrl(`campaigns/${imported.id}/`));
    expect(await shape((await served(row.image)) as Uint8Array)).toBe("png 32x32");
  }

  // Without include_images the notes name the images by URL; the import copies them while this service holds them.
  const byUrl = await vaultOf(await zipOf(`/v1/campaigns/${cid}/export.zip?format=markdown`));
  expect(Object.keys(byUrl.pictures)).toEqual([]);
  const vexUrl = (await as(key, "GET", `/v1/characters/${vex.id}`)).image;
  expect(byUrl.notes[0]!.fields.image).toBe(vexUrl);
  const again = await importZip(await zipOf(`/v1/campaigns/${cid}/export.zip?format=markdown`));
  expect(again.status).toBe(201);
  const copy = await again.json();
  expect(copy.counts.image).toBe(4);
  const copied = await exported(copy.id);
  expect(copied.characters[0].image).toStartWith(service.deps.images.store.publicUrl(`campaigns/${copy.id}/character/`));
  expect(await served(copied.characters[0].image)).toEqual(await served(vexUrl));
}, 30_000);

test("bun run cms campaigns import-markdown DIR --owner imports a folder with its pictures; a path that is not a folder is refused", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cms-vault-"));
  // The CLI works directly on this backend's database: PGlite in DATA_DIR, or a fresh PostgreSQL one.
  const scratch = backend.name === "postgres" ? await scratchDatabase("cli", { migrated: true }) : null;
  try {
    const cli = (args: string[]) => {
      const result = Bun.spawnSync([process.execPath, "infra/cli.ts", ...args], { cwd: join(import.meta.dir, "..", ".."), env: { ...process.env, LOG_LEVEL: "warn", DATA_DIR: dataDir, DATABASE_URL: scratch?.url ?? "" } });
      return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
    };
    const user = JSON.parse(cli(["users", "create", "--name", "Matt", "--email", "matt@example.test"]).stdout);
    const imported = cli(["campaigns", "import-markdown", FIXTURE, "--owner", user.id]);
    expect(imported.stderr).toBe("");
    const { id, counts } = JSON.parse(imported.stdout);
    expect(counts).toEqual({ character: 2, faction: 2, item: 1, journal: 3, location: 2, journal_folder: 2, image: 3 });
    // The pictures are in the configured store (DATA_DIR/media) and travel in the export.
    const document = JSON.parse(cli(["campaigns", "export", id, "--include-images"]).stdout);
    const rows = document.records.images as { object_key: string; entity_id: string; url: string }[];
    expect(rows.map((row) => row.object_key.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-/, "/")).sort()).toEqual([
      `campaigns/${id}/character/pike.png`,
      `campaigns/${id}/location/emon-map.jpg`,
      `campaigns/${id}/location/greyskull-keep.png`,
    ]);
    const pike = document.records.characters.find((c: Record<string, unknown>) => c.character_name === "Pike Trickfoot");
    const pikeRow = rows.find((row) => row.entity_id === pike.id)!;
    expect(pike.image).toBe(pikeRow.url);
    const stored = new Uint8Array(readFileSync(join(dataDir, "media", pikeRow.object_key)));
    expect(await shape(stored)).toBe("png 4x4");
    const inline = document.images.find((i: Record<string, string>) => i.object_key === pikeRow.object_key);
    expect(Buffer.from(inline.data, "base64").equals(Buffer.from(stored))).toBe(true);
    // A picture that cannot be read (a dangling link) stops the command, named, before anything is sent;
    // files the import never reads (a PDF) are not sent at all.
    const broken = mkdtempSync(join(tmpdir(), "cms-broken-"));
    try {
      mkdirSync(join(broken, "V", "Characters"), { recursive: true });
      writeFileSync(join(broken, "V", "Characters", "Grog.md"), "![[gone.png]]");
      symlinkSync("/nonexistent/pdf", join(broken, "V", "rules.pdf"));
      expect(JSON.parse(cli(["campaigns", "import-markdown", join(broken, "V"), "--owner", user.id]).stdout).counts).toEqual({ character: 1, journal_folder: 0, image: 0 });
      symlinkSync("/nonexistent/png", join(broken, "V", "gone.png"));
      const unreadable = cli(["campaigns", "import-markdown", join(broken, "V"), "--owner", user.id]);
      expect(unreadable.code).toBe(1);
      expect(unreadable.stderr).toBe(`cms: cannot read ${join(broken, "V", "gone.png")} (ENOENT); nothing was imported\n`);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
    const notDir = cli(["campaigns", "import-markdown", join(FIXTURE, "Welcome.md"), "--owner", user.id]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toBe(`cms: not a directory: ${join(FIXTURE, "Welcome.md")}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}, 60_000);
});
