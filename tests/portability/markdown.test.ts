// The Obsidian-compatible Markdown export: a zip with a folder per kind, YAML front matter, wikilinks intact.
import { expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import { parse } from "yaml";
import { inProcessService } from "../support/inprocess.ts";

test("export.zip holds one note per record with front matter and its [[wikilinks]], journals in their folder tree", async () => {
  const service = await inProcessService();
  try {
    const as = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await service.request(method, path, { key, body });
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response;
    };
    const user = await (await as(service.adminKey, "POST", "/internal/v1/users", { name: "Matt", email: "m@example.test" })).json();
    const key = (await (await as(service.adminKey, "POST", `/internal/v1/users/${user.id}/keys`, {})).json()).key;
    const campaign = await (await as(key, "POST", "/v1/campaigns", { title: "Vox: Machina" })).json();
    const grog = await (await as(key, "POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Grog", character_aliases: ["Grog Strongjaw"], description: "Friend of [[Pike]] from [[Emon|the city]]" })).json();
    await as(key, "POST", "/v1/locations", { campaign_id: campaign.id, name: "Emon" });
    const folder = await (await as(key, "POST", "/v1/journal-folders", { world_id: campaign.id, name: "Gods", path: "Lore/Gods" })).json();
    await as(key, "POST", "/v1/journals", { world_id: campaign.id, title: "Sarenrae?", content: "Dawn [[Grog]]", tags: ["gods"], folder_id: folder.id ?? folder.data?.id });

    const response = await as(key, "GET", `/v1/campaigns/${campaign.id}/export.zip?format=markdown`);
    expect(response.headers.get("content-type")).toBe("application/zip");
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    const names = Object.keys(files).sort();
    expect(names).toEqual(["Vox Machina/Characters/Grog.md", "Vox Machina/Journals/Lore/Gods/Sarenrae.md", "Vox Machina/Locations/Emon.md", "Vox Machina/Vox Machina.md"].sort());
    const note = strFromU8(files["Vox Machina/Characters/Grog.md"]!);
    const [, front, body] = /^---\n([\s\S]*?)---\n\n([\s\S]*)$/.exec(note)!;
    expect(parse(front!)).toEqual({ id: grog.id, type: "character", aliases: ["Grog Strongjaw"], tags: ["npc"] });
    expect(body).toBe("Friend of [[Pike]] from [[Emon|the city]]\n");
    expect(strFromU8(files["Vox Machina/Journals/Lore/Gods/Sarenrae.md"]!)).toContain("Dawn [[Grog]]");
  } finally {
    await service.close();
  }
});
