// The Obsidian-compatible Markdown export: a zip with a folder per kind, YAML front matter, wikilinks intact.
import { expect, test } from "bun:test";
import { strFromU8, unzipSync } from "fflate";
import { parse } from "yaml";
import { inProcessService } from "../support/inprocess.ts";

test("export.zip holds one note per record with front matter and its [[wikilinks]], journals in their folder tree", async () => {
  const service = await inProcessService();
  try {
    const { key } = await service.newUser("Matt", "m@example.test");
    const as = (who: string, method: string, path: string, body?: unknown) => service.must(method, path, who, body);
    const campaign = await as(key, "POST", "/v1/campaigns", { title: "Vox: Machina" });
    const grog = await as(key, "POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Grog", character_aliases: ["Grog Strongjaw"], description: "Friend of [[Pike]] from [[Emon|the city]]" });
    await as(key, "POST", "/v1/locations", { campaign_id: campaign.id, name: "Emon" });
    const folder = await as(key, "POST", "/v1/journal-folders", { world_id: campaign.id, name: "Gods", path: "Lore/Gods" });
    await as(key, "POST", "/v1/journals", { world_id: campaign.id, title: "Sarenrae?", content: "Dawn [[Grog]]", tags: ["gods"], folder_id: folder.id ?? folder.data?.id });

    const response = await service.request("GET", `/v1/campaigns/${campaign.id}/export.zip?format=markdown`, { key, must: true });
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
