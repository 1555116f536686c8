// Markdown (Obsidian) import: our own export.zip round trip, a hand-made vault (tests/fixtures/vault), and refusals.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { inProcessService } from "../support/inprocess.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "vault", "Tal'Dorei");

let service: Awaited<ReturnType<typeof inProcessService>>;
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
const campaignCount = async () => (await service.db.query<{ n: number }>("select count(*)::int as n from campaigns"))[0]!.n;

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

beforeAll(async () => {
  service = await inProcessService();
  owner = await service.newUser("Matt", "matt@example.test");
  key = owner.key;
});
afterAll(() => service.close());

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
  expect(imported.counts).toEqual({ session: 1, character: 2, location: 2, faction: 1, item: 1, beat: 2, moment: 1, quest: 1, journal: 2, journal_folder: 2 });
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
});

test("a hand-made Obsidian vault: kinds from folders, journals for the rest, aliases, embeds kept, [[a|b]] and [[a#h]] linked", async () => {
  const response = await importZip(zipDir(FIXTURE, "Tal'Dorei"));
  expect(response.status).toBe(201);
  const { id, counts } = await response.json();
  expect(counts).toEqual({ character: 2, faction: 2, item: 1, journal: 3, location: 2, journal_folder: 2 });
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
  expect(counts).toEqual({ character: 1, quest: 3, journal_folder: 0 });
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
  expect(counts).toEqual({ location: 5, journal_folder: 0 });
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

test("bun run cms campaigns import-markdown DIR --owner imports a folder; a path that is not a folder is refused", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cms-vault-"));
  try {
    const cli = (args: string[]) => {
      const result = Bun.spawnSync([process.execPath, "infra/cli.ts", ...args], { cwd: join(import.meta.dir, "..", ".."), env: { ...process.env, LOG_LEVEL: "warn", DATA_DIR: dataDir, DATABASE_URL: "" } });
      return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
    };
    const user = JSON.parse(cli(["users", "create", "--name", "Matt", "--email", "matt@example.test"]).stdout);
    const imported = cli(["campaigns", "import-markdown", FIXTURE, "--owner", user.id]);
    expect(imported.stderr).toBe("");
    expect(JSON.parse(imported.stdout).counts).toEqual({ character: 2, faction: 2, item: 1, journal: 3, location: 2, journal_folder: 2 });
    const notDir = cli(["campaigns", "import-markdown", join(FIXTURE, "Welcome.md"), "--owner", user.id]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toBe(`cms: not a directory: ${join(FIXTURE, "Welcome.md")}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
