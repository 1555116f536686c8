// Whole-campaign export and import: the round trip over generated campaigns (fast-check), a player's
// export, and refused files (truncated, tampered, dangling references) that create nothing.
import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

type Service = InProcessService;

const name = fc.stringMatching(/^[A-Z][a-z]{2,9}$/);
const words = fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 0, maxLength: 6 }).map((w) => w.join(" "));

const campaignModel = fc.record({
  characters: fc.uniqueArray(fc.record({ name, description: words }), { maxLength: 4, selector: (c) => c.name.toLowerCase() }),
  locations: fc.uniqueArray(fc.record({ name, parent: fc.option(fc.nat(5), { nil: null }) }), { maxLength: 4, selector: (l) => l.name.toLowerCase() }),
  sessions: fc.array(fc.record({ title: name, lines: fc.array(fc.tuple(fc.constantFrom("MATT", "LAURA", "SAM"), words.filter((w) => w.length > 0)), { minLength: 1, maxLength: 5 }) }), { maxLength: 2 }),
  beats: fc.array(fc.record({ label: name, parent: fc.option(fc.nat(5), { nil: null }) }), { maxLength: 4 }),
  moments: fc.array(fc.record({ label: name, linkTo: fc.option(fc.nat(5), { nil: null }) }), { maxLength: 3 }),
  quests: fc.array(fc.record({ name, giver: fc.option(fc.nat(5), { nil: null }) }), { maxLength: 2 }),
  folders: fc.uniqueArray(fc.record({ name, parent: fc.option(fc.nat(5), { nil: null }) }), { maxLength: 3, selector: (f) => f.name }),
  journals: fc.array(
    fc.record({ title: name, content: words, isPublic: fc.boolean(), byPlayer: fc.boolean(), share: fc.boolean(), folder: fc.option(fc.nat(5), { nil: null }) }),
    { maxLength: 4 },
  ),
});
type Model = typeof campaignModel extends fc.Arbitrary<infer T> ? T : never;

const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(:.*)?$/;

/** The export up to ids and timestamps: ids become their order of first appearance, `*_at` fields go, the header and checksum too. */
function normalized(document: any): unknown {
  const tokens = new Map<string, string>();
  const walk = (value: unknown): unknown => {
    const match = typeof value === "string" ? UUID.exec(value) : null;
    if (match) return (tokens.get(match[1]!) ?? tokens.set(match[1]!, `#${tokens.size + 1}`).get(match[1]!)) + (match[2] ?? "");
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !key.endsWith("_at"))
          .map(([key, item]) => [walk(key) as string, walk(item)]),
      );
    return value;
  };
  return { records: walk(document.records), counts: document.trailer.counts };
}

await forEachBackend("campaign export and import", (backend) => {
  let service: Service;
  const users: Record<string, { id: string; key: string }> = {};
  const call = async (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const key = who === "admin" ? service.adminKey : users[who]!.key;
    const response = await service.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { "x-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed, text, headers: response.headers };
  };
  const ok = async (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const reply = await call(who, method, path, body, headers);
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
    return reply.body;
  };
  const campaignCount = async () => Number((await service.db.query<{ n: number }>(`select count(*)::int as n from campaigns`))[0]!.n);

  inProcessOn(backend, async (made) => {
    service = made;
    for (const who of ["gm", "player", "importer"]) users[who] = await service.newUser(who, `${who}@example.test`);
  });

  /** A campaign with every kind the model names, made through the API. */
  async function build(model: Model): Promise<string> {
    const campaign = await ok("gm", "POST", "/v1/campaigns", { title: "Generated", summary: "A [[Tale]]" });
    const cid = campaign.id;
    await ok("admin", "POST", `/internal/v1/campaigns/${cid}/members`, { user_id: users.player!.id, role: "player" });
    const characters = [];
    for (const c of model.characters) characters.push(await ok("gm", "POST", "/v1/characters", { campaign_id: cid, character_name: c.name, description: c.description || null }));
    const locations: any[] = [];
    for (const l of model.locations)
      locations.push(await ok("gm", "POST", "/v1/locations", { campaign_id: cid, name: l.name, parent_id: l.parent !== null && locations.length ? locations[l.parent % locations.length].id : null }));
    await ok("gm", "POST", "/v1/factions", { campaign_id: cid, name: "Clasp", description: characters.length ? `Led by [[${model.characters[0]!.name}]]` : null });
    const sessions = [];
    for (const [i, s] of model.sessions.entries()) {
      const session = await ok("admin", "POST", "/internal/v1/sessions", { campaign_id: cid, type: "chatVoice", title: s.title, session_date: `2015-03-${10 + i}T19:00:00Z` });
      await ok("admin", "POST", `/internal/v1/sessions/${session.id}/transcript`, s.lines.map(([who, line]) => `${who}: ${line}`).join("\n"), { "content-type": "text/plain" });
      await ok("gm", "POST", "/v1/hero-awards", { session_id: session.id, title: `${s.title} award`, description: "Bravery" });
      await ok("gm", "POST", "/v1/quotes", { session_id: session.id, text: s.lines[0]![1], speaker: s.lines[0]![0] });
      sessions.push(session);
    }
    const beats: any[] = [];
    for (const b of model.beats) {
      const parent = b.parent !== null && beats.length ? beats[b.parent % beats.length] : null;
      beats.push(await ok("gm", "POST", "/v1/beats", { campaign_id: cid, label: b.label, type: parent ? "minor" : "major", parent_id: parent?.id ?? null, game_session_ids: sessions.map((s) => s.id) }));
    }
    for (const m of model.moments)
      await ok("gm", "POST", "/v1/moments", {
        campaign_id: cid,
        label: m.label,
        session_id: sessions[0]?.id ?? null,
        content: m.linkTo !== null && characters.length ? `With [[${model.characters[m.linkTo % characters.length]!.name}]]` : null,
      });
    for (const q of model.quests)
      await ok("gm", "POST", "/v1/quests", { campaign_id: cid, quest_name: q.name, quest_giver: q.giver !== null && characters.length ? model.characters[q.giver % characters.length]!.name : null, objectives: ["Find it"] });
    const folders: any[] = [];
    for (const f of model.folders) {
      const parent = f.parent !== null && folders.length ? folders[f.parent % folders.length] : null;
      const made = await ok("gm", "POST", "/v1/journal-folders", { world_id: cid, name: f.name, path: parent ? `${parent.path}/${f.name}` : f.name, parent_id: parent?.id ?? null });
      folders.push({ id: made.id ?? made.data?.id, path: parent ? `${parent.path}/${f.name}` : f.name });
    }
    for (const j of model.journals) {
      const author = j.byPlayer ? "player" : "gm";
      const entry = await ok(author, "POST", "/v1/journals", {
        world_id: cid,
        title: j.title,
        content: `${j.content} [[Clasp]]`,
        is_public: j.isPublic,
        folder_id: j.folder !== null && folders.length ? folders[j.folder % folders.length].id : null,
      });
      const other = j.byPlayer ? users.gm! : users.player!;
      if (j.share) await ok(author, "PUT", "/v1/journals", { id: entry.id, permissions: { add: [{ user_id: other.id, level: "view" }] } });
    }
    return cid;
  }

  const exportOf = async (who: string, cid: string, query = "") => {
    const reply = await call(who, "GET", `/v1/campaigns/${cid}/export${query}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toStartWith("application/json");
    return reply;
  };

  test("export → import as another user → export again is the same campaign up to ids and timestamps", async () => {
    await fc.assert(
      fc.asyncProperty(campaignModel, async (model) => {
        const cid = await build(model);
        const first = await exportOf("gm", cid);
        const imported = await call("admin", "POST", `/internal/v1/campaigns/import?owner_id=${users.importer!.id}`, first.text, { "content-type": "application/json" });
        if (imported.status !== 201) throw new Error(imported.text);
        expect(imported.body.id).not.toBe(cid);
        const second = await exportOf("importer", imported.body.id);
        const [a, b] = [JSON.parse(first.text), JSON.parse(second.text)];
        expect(b.records.campaign[0].owner_id).toBe(users.importer!.id);
        expect(normalized(b)).toEqual(normalized(a));
        // Nothing of the new campaign points into the old one.
        expect(second.text.includes(cid)).toBe(false);
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 600_000);

  describe("refusals and scopes", () => {
    let cid: string;
    let document: string;
    beforeAll(async () => {
      cid = await build({
        characters: [{ name: "Grog", description: "big" }],
        locations: [{ name: "Emon", parent: null }],
        sessions: [{ title: "One", lines: [["MATT", "hello there"]] }],
        beats: [],
        moments: [],
        quests: [],
        folders: [{ name: "Lore", parent: null }],
        journals: [
          { title: "GM secret", content: "twist", isPublic: false, byPlayer: false, share: false, folder: 0 },
          { title: "Player diary", content: "dear diary", isPublic: false, byPlayer: true, share: false, folder: null },
        ],
      });
      document = (await exportOf("gm", cid)).text;
    });
    const importing = (body: string) => call("admin", "POST", `/internal/v1/campaigns/import?owner_id=${users.importer!.id}`, body, { "content-type": "application/json" });

    test("a truncated file is refused with a sentence and creates nothing", async () => {
      const before = await campaignCount();
      const reply = await importing(document.slice(0, Math.floor(document.length / 2)));
      expect(reply.status).toBe(422);
      expect(reply.body.detail).toStartWith("The file is not valid JSON (is it truncated?)");
      expect(await campaignCount()).toBe(before);
    });

    test("a tampered file fails its checksum; without the checksum, the first bad record is named; nothing is created", async () => {
      const before = await campaignCount();
      const tampered = await importing(document.replace('"character_name":"Grog"', '"character_name":"Grug"'));
      expect(tampered.status).toBe(422);
      expect(tampered.body.detail[0].msg).toStartWith("trailer.records_sha256 does not match the records");
      const parsed = JSON.parse(document);
      delete parsed.trailer.records_sha256;
      parsed.records.characters[0].speaker_id = "00000000-0000-7000-8000-000000000000";
      let reply = await importing(JSON.stringify(parsed));
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0].msg).toBe("records.characters[0].speaker_id names a record that is not in the file; nothing was imported");
      parsed.records.characters[0].speaker_id = null;
      parsed.records.sessions[0].title = 42;
      reply = await importing(JSON.stringify(parsed));
      expect(reply.body.detail[0].msg).toBe("records.sessions[0].title must be a string; nothing was imported");
      parsed.records.sessions[0].title = "One";
      parsed.records.journal_entries[1].content = null;
      reply = await importing(JSON.stringify(parsed));
      expect(reply.body.detail[0].msg).toBe("records.journal_entries[1].content is required; nothing was imported");
      parsed.records.journal_entries[1].content = "x";
      parsed.header.format = "something-else";
      reply = await importing(JSON.stringify(parsed));
      expect(reply.status).toBe(422);
      expect(await campaignCount()).toBe(before);
      // The edited file, put right, imports.
      parsed.header.format = "campaign-memory-service/campaign-export";
      expect((await importing(JSON.stringify(parsed))).status).toBe(201);
    });

    test("journal token counts are recounted on import: an understated one is corrected, one over a limit is refused naming the entry, nothing is created", async () => {
      const before = await campaignCount();
      const parsed = JSON.parse(document);
      delete parsed.trailer.records_sha256;
      const entries = parsed.records.journal_entries;
      // o200k_base: "hello world" is 2 tokens; "a" then " a" n - 1 times is n tokens.
      const tokens = (n: number) => "a" + " a".repeat(n - 1);
      for (const entry of entries) entry.content = "hello world";
      entries[1].content = tokens(50_001);
      entries[1].token_count = 10;
      let reply = await importing(JSON.stringify(parsed));
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0].msg).toBe(
        `records.journal_entries[1].content (entry ${entries[1].id}) has 50,001 tokens, over the journal entry limit of 50,000 (the file says 10); nothing was imported`,
      );
      // Each entry under its limit, together over the campaign's: 2 + 2 + 21 × 48,000.
      entries[1].content = "hello world";
      for (let i = 0; i < 21; i++)
        entries.push({ ...entries[1], id: `0190a000-0000-7000-8000-${String(i).padStart(12, "0")}`, title: `Copy ${i}`, content: tokens(48_000), token_count: 1 });
      reply = await importing(JSON.stringify(parsed));
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0].msg).toBe(
        "records.journal_entries[22].content (entry 0190a000-0000-7000-8000-000000000020) brings the campaign's journal entries to 1,008,004 tokens, over the limit of 1,000,000; nothing was imported",
      );
      expect(await campaignCount()).toBe(before);
      // Within the limits, an understated count is replaced by the service's own.
      entries.splice(2);
      entries[1].token_count = 0;
      reply = await importing(JSON.stringify(parsed));
      expect(reply.status).toBe(201);
      const imported = JSON.parse((await exportOf("importer", reply.body.id)).text);
      expect(imported.records.journal_entries.map((e: any) => [e.title, e.token_count]).sort()).toEqual([["GM secret", 2], ["Player diary", 2]]);
      // Their chunks (not in the file) are made as a save makes them, so Ask's journal passages exist.
      const chunks = await service.db.query(`select text, token_count from journal_chunks where campaign_id = $1 order by entry_id`, [reply.body.id]);
      expect(chunks.map((c: any) => [c.text, Number(c.token_count)])).toEqual([["hello world", 2], ["hello world", 2]]);
      const passages = await service.db.query(`select count(*)::int as n from ask_passages where campaign_id = $1 and kind = 'journal'`, [reply.body.id]);
      expect(Number(passages[0]!.n)).toBe(2);
    }, 120_000);

    test("a player's export holds what they may read; the whole export needs manage access", async () => {
      const refused = await call("player", "GET", `/v1/campaigns/${cid}/export?scope=all`);
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toStartWith("Exporting the whole campaign needs owner or game-master");
      const mine = JSON.parse((await exportOf("player", cid, "?scope=mine")).text);
      expect(mine.header.scope).toBe("mine");
      expect(JSON.parse((await exportOf("player", cid)).text).header.scope).toBe("mine");
      expect(mine.records.journal_entries.map((e: any) => e.title)).toEqual(["Player diary"]);
      expect(JSON.stringify(mine.records.search_index)).not.toContain("GM secret");
      const all = JSON.parse(document);
      expect(all.records.journal_entries.map((e: any) => e.title).sort()).toEqual(["GM secret", "Player diary"]);
      expect(all.records.characters.map((c: any) => c.character_name)).toEqual(["Grog"]);
      expect(all.records.transcript_utterances.map((u: any) => u.text)).toEqual(["hello there"]);
      expect(all.trailer.counts.characters).toBe(1);
      expect((await call("importer", "GET", `/v1/campaigns/${cid}/export?scope=mine`)).status).toBe(403);
    });
  });
});
