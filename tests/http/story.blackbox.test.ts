// Black-box: sessions, transcripts of every format, cast analysis, handouts, beats, moments and recap cards.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";
import type { TestServer } from "../support/server.ts";

const CRD3 = join(import.meta.dir, "..", "fixtures", "crd3", "C1E001.json");

await forEachBackend("sessions and the story over HTTP", (backend) => {
  let server: TestServer;
  let gm: User;
  let stranger: User;
  let admin: Client;
  let campaign: any;

  serverWithUsers(backend, ["Matt", "Stranger"], async (fixture) => {
    ({ server, admin, users: { Matt: gm, Stranger: stranger } } = fixture);
    campaign = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body;
  });

  const newSession = async (body: Record<string, unknown> = {}) => {
    const reply = await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Arrival at Kraghammer", session_date: "2015-03-12T19:00:00Z", ...body });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const importBody = (sessionId: string, body: string, contentType: string, format?: string) =>
    admin.call("POST", `/internal/v1/sessions/${sessionId}/transcript${format ? `?format=${format}` : ""}`, body, { "content-type": contentType });

  describe("sessions", () => {
    test("first-party create; public list, detail and patch; no public create or delete", async () => {
      const s1 = await newSession({ title: "One", session_date: "2015-03-12T19:00:00Z", summary: "They reach [[Kraghammer]]" });
      const s2 = await newSession({ title: "Two", session_date: "2015-03-19T19:00:00Z", type: "rawNotes", notes: "GM notes" });
      expect(s2.notes).toBe("GM notes");
      expect((await newSession({ title: "Three", notes: "ignored" })).notes).toBeNull();
      const list = (await gm.api.get(`/v1/sessions?campaign_id=${campaign.id}&size=100`)).body;
      const byId = new Map(list.data.map((s: any) => [s.id, s]));
      expect((byId.get(s1.id) as any).index).toBeLessThan((byId.get(s2.id) as any).index);
      expect((await gm.api.get(`/v1/sessions?campaign_id=${campaign.id}&session_type=rawNotes`)).body.data.every((s: any) => s.type === "rawNotes")).toBe(true);
      expect((await gm.api.get(`/v1/sessions?campaign_id=${campaign.id}&session_type=bogus`)).status).toBe(422);
      const detail = (await gm.api.get(`/v1/sessions/${s1.id}`)).body;
      expect(detail).toMatchObject({ id: s1.id, summary: "They reach Kraghammer", beats: null, moments: null, public: false });
      expect((await gm.api.get(`/v1/sessions/${s1.id}?with_links=true`)).body.summary).toBe("They reach [[Kraghammer]]");

      const patched = await gm.api.patch(`/v1/sessions/${s1.id}`, { title: "One, renamed", type: "other", notes: "no", public: true, session_date: "2015-03-13T19:00:00Z" });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ title: "One, renamed", type: "chatVoice", notes: null, public: false, session_date: "2015-03-13T19:00:00.000Z" });
      expect((await gm.api.patch(`/v1/sessions/${s1.id}`, { session_date: "yesterday" })).status).toBe(422);
      expect((await gm.api.post("/v1/sessions", { campaign_id: campaign.id, title: "x" })).status).toBe(405);
      expect((await gm.api.delete(`/v1/sessions/${s1.id}`)).status).toBe(405);
      expect((await stranger.api.get(`/v1/sessions/${s1.id}`)).status).toBe(403);
      expect((await gm.api.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "x", session_date: "2015-01-01T00:00:00Z" })).status).toBe(403);
    });
  });

  describe("transcripts", () => {
    test("CRD3 JSON: every turn is an utterance; talk shares match an independent count; markdown renders", async () => {
      const session = await newSession();
      expect((await gm.api.get(`/v1/sessions/${session.id}/transcript`)).body).toEqual({ detail: "Transcript not found for this session" });
      expect((await gm.api.get(`/v1/sessions/${session.id}/cast-analysis`)).status).toBe(404);
      const raw = readFileSync(CRD3, "utf8");
      const imported = await importBody(session.id, raw, "application/json");
      expect(imported.status).toBe(201);
      const episode = JSON.parse(raw) as { TURNS: { NAMES: string[]; UTTERANCES: string[] }[] };
      const turns = episode.TURNS.filter((t) => t.UTTERANCES.join(" ").trim());
      expect(imported.body.utterance_count).toBe(turns.length);
      expect(imported.body.speakers).toContain("MATT");

      const transcript = (await gm.api.get(`/v1/sessions/${session.id}/transcript`)).body;
      expect(transcript.utterances).toHaveLength(turns.length);
      expect(transcript.stats.utterance_count).toBe(turns.length);
      expect(transcript.metadata).toMatchObject({ session_id: session.id, campaign_id: campaign.id, world_title: "Vox Machina", world_language: "en", source_type: "crd3", speaker_count: imported.body.speakers.length });
      expect(transcript.utterances[0]).toMatchObject({ speaker_label: "MATT", transcript: expect.stringMatching(/^Hello everyone\./), start: 0 });
      expect(Date.parse(transcript.utterances[1].said_at)).toBeGreaterThan(Date.parse(session.session_date));
      expect(transcript.utterances[1].start).toBeGreaterThan(transcript.utterances[0].end);
      expect(transcript.text.split("\n")).toHaveLength(turns.length);

      // Independent count: every named speaker of a turn said its words.
      const words: Record<string, number> = {};
      for (const turn of turns) {
        const count = turn.UTTERANCES.join(" ").split(/[ \n\t\r]+/).filter(Boolean).length;
        for (const name of turn.NAMES) words[name] = (words[name] ?? 0) + count;
      }
      const total = Object.values(words).reduce((a, b) => a + b, 0);
      const analysis = (await gm.api.get(`/v1/sessions/${session.id}/cast-analysis`)).body;
      expect(analysis).toMatchObject({ session_id: session.id, pdfSavedAt: null, pdfPageCount: null });
      expect(analysis.analysis.coreSessionMetrics.totalWords).toBe(total);
      for (const [name, count] of Object.entries(words)) expect(analysis.analysis.talkShare[name]).toBeCloseTo(count / total, 10);
      expect(Object.values(analysis.analysis.talkShare as Record<string, number>).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
      expect(analysis.analysis.dominance.topSpeaker).toBe("MATT");

      const markdown = await gm.api.call("GET", `/v1/sessions/${session.id}/transcript?format=markdown`);
      expect(markdown.status).toBe(200);
      expect(markdown.headers.get("content-type")).toContain("text/markdown");
      expect(markdown.text).toStartWith("# Transcript: Arrival at Kraghammer");
      expect(markdown.text).toContain(`- Speaker count: ${imported.body.speakers.length}`);
      expect(markdown.text).toContain(`- Utterances: ${turns.length}`);
      expect(markdown.text).toContain("**[00:00:00] MATT:** Hello everyone.");

      // Campaign speakers now include the transcript's voices; the import is idempotent.
      const again = await importBody(session.id, raw, "application/json");
      expect(again.body.utterance_count).toBe(turns.length);
      const second = (await gm.api.get(`/v1/sessions/${session.id}/transcript`)).body;
      expect(second.version).toBe(2);
      expect(second.utterances).toHaveLength(turns.length);
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/stats`)).body.sessions).toBeGreaterThan(0);
    });

    test("plain text, WebVTT and SRT; format by query or content type; a second import replaces the first", async () => {
      const session = await newSession({ title: "Formats" });
      const plain = await importBody(session.id, "Matt: You enter the tavern.\nLaura: I look for Trinket.\nMatt: He's asleep.", "text/plain");
      expect(plain.body).toEqual({ utterance_count: 3, speakers: ["Matt", "Laura"] });
      const vtt = await importBody(session.id, "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Sam>Is it a mimic?\n\n00:00:04.000 --> 00:00:05.000\nMatt: Yes.\n", "text/vtt");
      expect(vtt.body).toEqual({ utterance_count: 2, speakers: ["Sam", "Matt"] });
      const transcript = (await gm.api.get(`/v1/sessions/${session.id}/transcript`)).body;
      expect(transcript.utterances.map((u: any) => [u.speaker_label, u.start, u.end])).toEqual([["Sam", 1, 3], ["Matt", 4, 5]]);
      expect(transcript.metadata.source_type).toBe("vtt");
      // o200k_base: "Is it a mimic?" is 5 tokens ("Is", " it", " a", " mimic", "?"), "Yes." 2 (four characters a token said 4 + 1).
      expect(transcript.stats).toEqual({ char_count: 18, tokens: 7, utterance_count: 2 });
      const srt = await importBody(session.id, "1\n00:00:01,000 --> 00:00:02,000\nTaliesin: Percy aims.\n", "application/octet-stream", "srt");
      expect(srt.body.utterance_count).toBe(1);
      const bad = await importBody(session.id, "00:00:01.000 --> 00:00:02.000\nno header\n", "text/vtt");
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].msg).toContain("WEBVTT");
      expect((await gm.api.get(`/v1/sessions/${session.id}/transcript`)).body.utterances).toHaveLength(1);
      expect((await importBody(session.id, '{"TURNS": [', "application/json")).status).toBe(422);
      const notes = await newSession({ type: "rawNotes", notes: "n" });
      expect((await importBody(notes.id, "Matt: hi", "text/plain")).status).toBe(400);
      expect((await importBody("missing", "Matt: hi", "text/plain")).status).toBe(404);
      expect((await gm.api.call("POST", `/internal/v1/sessions/${session.id}/transcript`, "Matt: hi", { "content-type": "text/plain" })).status).toBe(403);
    });

    test("first-party analyzers may store their own cast analysis", async () => {
      const session = await newSession({ title: "Analyzed" });
      const put = await admin.put(`/internal/v1/sessions/${session.id}/cast-analysis`, { analysis: { coreSessionMetrics: { totalLines: 1 }, talkShare: { A: 1 } } });
      expect(put.status).toBe(200);
      expect((await gm.api.get(`/v1/sessions/${session.id}/cast-analysis`)).body.analysis).toEqual({ coreSessionMetrics: { totalLines: 1 }, talkShare: { A: 1 } });
      expect((await admin.put(`/internal/v1/sessions/${session.id}/cast-analysis`, { analysis: "nope" })).status).toBe(422);
    });
  });

  test("spotlight equity leaves out the campaign's gm speakers and the GM titles, and no one else by name", async () => {
    const table = (await gm.api.post("/v1/campaigns", { title: "Spotlight table" })).body;
    expect((await admin.post(`/internal/v1/campaigns/${table.id}/speakers`, { name: "Marisha", roles: ["gm"] })).status).toBe(201);
    const session = await newSession({ campaign_id: table.id });
    const text = "Marisha: You enter the hall.\nDM: Roll for it.\nMatt: I look around the room.\nSam: Twenty!";
    expect((await importBody(session.id, text, "text/plain")).status).toBe(201);
    const analysis = (await gm.api.get(`/v1/sessions/${session.id}/cast-analysis`)).body.analysis;
    expect(analysis.spotlightEquity.excluded).toEqual(["DM", "Marisha"]);
    // Players' words 5 (Matt) and 1 (Sam): mean absolute difference 8/4 over twice the mean 3 = 1/3.
    expect(analysis.spotlightEquity.gini).toBeCloseTo(1 / 3, 4);
  });

  describe("handouts", () => {
    test("generated from the transcript and records; stored when a first party sends one; validated", async () => {
      const session = await newSession({ title: "Handout session" });
      expect((await gm.api.get(`/v1/sessions/${session.id}/handout`)).body).toEqual({ detail: "Handout not found for this session" });
      await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog", description: "Goliath" });
      await gm.api.post("/v1/locations", { campaign_id: campaign.id, name: "Kraghammer", description: "Dwarven city" });
      await gm.api.post("/v1/beats", { campaign_id: campaign.id, label: "Arrive in the city", type: "major", game_session_id: session.id });
      await importBody(
        session.id,
        [
          "Matt: You arrive at the gates of Kraghammer, a dwarven city carved into the mountain, where the guards eye you warily.",
          "Travis: Grog wants to find the nearest tavern and drink all of the ale in Kraghammer tonight.",
          "Matt: As you walk the streets you notice the dwarven guards whispering about missing miners in the mines below the city.",
          "Laura: We should ask about the missing paladin, Lady Kima of Vord, before Grog finds the ale.",
        ].join("\n"),
        "text/plain",
      );
      const generated = await admin.post(`/internal/v1/sessions/${session.id}/handout`);
      expect(generated.status).toBe(201);
      const handout = (await gm.api.get(`/v1/sessions/${session.id}/handout`)).body;
      expect(Object.keys(handout).sort()).toEqual(
        ["characterSpotlight", "encounters", "items", "moments", "otherEntitySpotlight", "partyStatusAndNextSteps", "pdfPageCount", "pdfSavedAt", "sessionOutline", "summary", "valuableInformation"].sort(),
      );
      expect(handout.summary).toContain("Extractive");
      expect(handout.encounters[0].title).toBe("Arrive in the city");
      expect(handout.characterSpotlight.map((c: any) => c.name)).toContain("Grog");
      expect(handout.otherEntitySpotlight.map((e: any) => e.name)).toContain("Kraghammer");
      expect(handout.partyStatusAndNextSteps.partyStatus.bullets.length).toBeGreaterThan(0);
      expect(handout.pdfSavedAt).toBeNull();

      const mine = {
        summary: "A hand-written recap",
        sessionOutline: "Arrival; tavern; rumours",
        encounters: [],
        characterSpotlight: [{ name: "Grog", description: "Drank", bullets: ["All the ale"] }],
        otherEntitySpotlight: [],
        items: [],
        valuableInformation: [{ info: "Miners are missing" }],
        partyStatusAndNextSteps: { partyStatus: { summary: "Rested", bullets: [] }, nextSteps: { summary: "Go down the mines" } },
        moments: [],
      };
      expect((await admin.put(`/internal/v1/sessions/${session.id}/handout`, mine)).status).toBe(200);
      expect((await gm.api.get(`/v1/sessions/${session.id}/handout`)).body).toMatchObject(mine);
      const invalid = await admin.put(`/internal/v1/sessions/${session.id}/handout`, { ...mine, encounters: [{ title: 5 }] });
      expect(invalid.status).toBe(422);
      expect(invalid.body.detail[0].loc.slice(0, 2)).toEqual(["body", "encounters"]);
    });
  });

  describe("beats", () => {
    test("a three-level hierarchy, then its middle beat deleted", async () => {
      const session = await newSession({ title: "Beats" });
      const grog = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog Strongjaw" })).body;
      const create = async (body: Record<string, unknown>) => {
        const reply = await gm.api.post("/v1/beats", { campaign_id: campaign.id, game_session_id: session.id, ...body });
        expect(reply.status).toBe(201);
        return reply.body;
      };
      const top = await create({ label: "Into the mines", type: "major", index: 0 });
      const middle = await create({ label: "The duergar", type: "minor", parent_id: top.id, index: 0, description: "[[Grog Strongjaw]] charges" });
      const step = await create({ label: "Grog charges", type: "step", parent_id: middle.id, index: 0 });
      const sibling = await create({ label: "A second path", type: "minor", parent_id: top.id, index: 1 });
      expect(middle).toMatchObject({ game_session_id: session.id, game_session_ids: [session.id], description: "Grog Strongjaw charges" });

      const tree = (await gm.api.get(`/v1/beats?session_id=${session.id}&include_hierarchy=true`)).body;
      expect(Array.isArray(tree)).toBe(true);
      expect(tree.map((n: any) => n.id)).toEqual([top.id]);
      expect(tree[0].children.map((n: any) => n.id)).toEqual([middle.id, sibling.id]);
      expect(tree[0].children[0].children.map((n: any) => n.id)).toEqual([step.id]);
      expect(tree[0].children[0].linkedEntities).toEqual({ characters: [grog.id], factions: [], locations: [], items: [] });

      expect((await gm.api.patch(`/v1/beats/${top.id}`, { parent_id: step.id })).status).toBe(422);
      expect((await gm.api.post("/v1/beats", { campaign_id: campaign.id, label: "x", type: "major", parent_id: top.id })).status).toBe(422);
      expect((await gm.api.delete(`/v1/beats/${middle.id}`)).status).toBe(204);
      const after = (await gm.api.get(`/v1/beats?session_id=${session.id}&include_hierarchy=true`)).body;
      expect(after.map((n: any) => n.id).sort()).toEqual([top.id, step.id].sort());
      expect((await gm.api.get(`/v1/beats/${step.id}`)).body.parent_id).toBeNull();
      expect((await gm.api.get(`/v1/campaigns/${campaign.id}/links?from_id=${middle.id}`)).body.total).toBe(0);
    });

    test("merge-patch content type; flat lists by campaign (ordered by index) and by session; validation", async () => {
      const own = (await gm.api.post("/v1/campaigns", { title: "Beat lists" })).body;
      const b2 = (await gm.api.post("/v1/beats", { campaign_id: own.id, label: "Second", type: "major", index: 2, description: "keep", metadata: { mood: "grim" } })).body;
      const b1 = (await gm.api.post("/v1/beats", { campaign_id: own.id, label: "First", type: "major", index: 1 })).body;
      const merged = await gm.api.call("PATCH", `/v1/beats/${b2.id}`, { label: "Second, renamed", description: null }, { "content-type": "application/merge-patch+json" });
      expect(merged.status).toBe(200);
      expect(merged.body).toMatchObject({ label: "Second, renamed", description: null, index: 2, metadata: { mood: "grim" } });
      const list = (await gm.api.get(`/v1/beats?campaign_id=${own.id}`)).body;
      expect(list.data.map((b: any) => b.id)).toEqual([b1.id, b2.id]);
      expect(list).toMatchObject({ total: 2, page: 1 });
      expect((await gm.api.get(`/v1/beats`)).status).toBe(422);
      expect((await gm.api.post("/v1/beats", { campaign_id: own.id, label: "x", type: "epic" })).status).toBe(422);
      expect((await gm.api.post("/v1/beats", { campaign_id: own.id, type: "major" })).status).toBe(422);
      expect((await stranger.api.get(`/v1/beats?campaign_id=${own.id}`)).status).toBe(403);
      const foreignSession = (await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "other", title: "x", session_date: "2015-01-01T00:00:00Z" })).body;
      expect((await gm.api.post("/v1/beats", { campaign_id: own.id, label: "x", type: "major", game_session_id: foreignSession.id })).status).toBe(422);
    });
  });

  describe("moments", () => {
    test("filters: linked character (through a wikilink), key-moment category, label search, cards; metadata merges", async () => {
      const own = (await gm.api.post("/v1/campaigns", { title: "Moments" })).body;
      const session = (await admin.post("/internal/v1/sessions", { campaign_id: own.id, type: "chatVoice", title: "S", session_date: "2015-01-01T00:00:00Z" })).body;
      const pike = (await gm.api.post("/v1/characters", { campaign_id: own.id, character_name: "Pike" })).body;
      const create = async (body: Record<string, unknown>) => (await gm.api.post("/v1/moments", { campaign_id: own.id, ...body })).body;
      const healed = await create({ label: "Pike heals Grog", content: "[[Pike]] casts revivify", session_id: session.id, categories: ["key-moment", "Heroic"], style: "gilded", metadata: { variant: "wide" } });
      const other = await create({ label: "Scanlan sings" });
      expect(healed).toMatchObject({ kind: "legacy", categories: ["key-moment", "heroic"], metadata: { variant: "wide", style: "gilded" }, content: "Pike casts revivify" });

      const byCharacter = (await gm.api.get(`/v1/moments?campaign_id=${own.id}&character_ids=${pike.id}`)).body;
      expect(byCharacter.data.map((m: any) => m.id)).toEqual([healed.id]);
      expect((await gm.api.get(`/v1/moments?campaign_id=${own.id}&categories=key-moment`)).body.data.map((m: any) => m.id)).toEqual([healed.id]);
      expect((await gm.api.get(`/v1/moments?campaign_id=${own.id}&kind=key-moment`)).body.total).toBe(0);
      expect((await gm.api.get(`/v1/moments?campaign_id=${own.id}&search=sings`)).body.data.map((m: any) => m.id)).toEqual([other.id]);
      expect((await gm.api.get(`/v1/moments?session_id=${session.id}`)).body.data.map((m: any) => m.id)).toEqual([healed.id]);
      expect((await gm.api.get(`/v1/moments?campaign_id=${own.id}&session_ids=${session.id}`)).body.total).toBe(1);
      const cards = (await gm.api.get(`/v1/moments?campaign_id=${own.id}&fields=card`)).body.data;
      expect(Object.keys(cards[0]).sort()).toEqual(["categories", "created_at", "id", "image", "label", "session_id"]);

      const patched = (await gm.api.patch(`/v1/moments/${healed.id}`, { metadata: { variant: null, customTheme: { accent: "#fff" } }, kind: "key-moment" })).body;
      expect(patched.metadata).toEqual({ style: "gilded", customTheme: { accent: "#fff" } });
      expect(patched.kind).toBe("key-moment");
      expect((await gm.api.get(`/v1/moments/${healed.id}?with_links=true`)).body.content).toBe("[[Pike]] casts revivify");
      expect((await gm.api.get(`/v1/moments`)).status).toBe(422);
      expect((await gm.api.post("/v1/moments", { campaign_id: own.id })).status).toBe(422);
      expect((await gm.api.patch(`/v1/moments/${healed.id}`, { image: "http://insecure.example/x.png" })).status).toBe(422);
      expect((await gm.api.get(`/v1/sessions/${session.id}?include_moments=true`)).body.moments.map((m: any) => m.id)).toEqual([healed.id]);
      expect((await gm.api.delete(`/v1/moments/${other.id}`)).status).toBe(204);
      expect((await gm.api.get(`/v1/campaigns/${own.id}/stats`)).body).toMatchObject({ moments: 1, sessions: 1 });
    });
  });

  describe("recap cards", () => {
    test("hero awards: rendered PNG of the documented size, redrawn on change", async () => {
      const session = await newSession({ title: "Awards" });
      const award = await gm.api.post("/v1/hero-awards", { session_id: session.id, title: "Tankiest Goliath", description: "Grog took forty points and kept swinging.", character_name: "Grog", player_name: "Travis" });
      expect(award.status).toBe(201);
      expect(award.body).toMatchObject({ tone_mode: "default", award_mode: "moment", style: "verdant", variant: "square", order_index: 0, campaign_id: campaign.id });
      const png = await fetch(`${server.url}/v1/hero-awards/${award.body.id}/card.png`, { headers: { "x-api-key": gm.key } });
      expect(png.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await png.arrayBuffer());
      const meta = await sharp(bytes).metadata();
      expect(meta).toMatchObject({ format: "png", width: 1080, height: 1080 });
      await gm.api.patch(`/v1/hero-awards/${award.body.id}`, { variant: "portrait", title: "Tankiest of all" });
      const redrawn = new Uint8Array(await (await fetch(`${server.url}/v1/hero-awards/${award.body.id}/card.png`, { headers: { "x-api-key": gm.key } })).arrayBuffer());
      expect((await sharp(redrawn).metadata()).height).toBe(1350);
      expect((await fetch(`${server.url}/v1/hero-awards/${award.body.id}/card.png`, { headers: { "x-api-key": stranger.key } })).status).toBe(403);
      expect((await gm.api.post("/v1/hero-awards", { session_id: session.id, title: "x" })).status).toBe(422);
      expect((await gm.api.post("/v1/hero-awards", { session_id: session.id, title: "x", description: "y", award_mode: "epic" })).status).toBe(422);
      expect((await gm.api.get(`/v1/hero-awards`)).status).toBe(422);
      expect((await gm.api.get(`/v1/hero-awards?session_id=${session.id}&search=forty`)).body.total).toBe(1);
      expect((await gm.api.delete(`/v1/hero-awards/${award.body.id}`)).status).toBe(204);
    });

    test("quotes and spotlights share the session's api pipeline; spotlight lists show spotlights only", async () => {
      const session = await newSession({ title: "Recaps" });
      const q1 = (await gm.api.post("/v1/quotes", { session_id: session.id, text: "I would like to rage!", speaker: "Travis", character_name: "Grog" })).body;
      const q2 = (await gm.api.post("/v1/quotes", { session_id: session.id, text: "Is it a mimic?" })).body;
      const spot = (await gm.api.post("/v1/spotlights", { session_id: session.id, title: "Vex's trick shot", description: "Two arrows, one dragon" })).body;
      expect(q1.pipeline_id).toBeString();
      expect(q2.pipeline_id).toBe(q1.pipeline_id);
      expect(q2.recap_set_id).toBe(q1.recap_set_id);
      expect(spot.pipeline_id).toBe(q1.pipeline_id);
      expect(spot.entry_type).toBe("spotlight");
      const spotlights = (await gm.api.get(`/v1/spotlights?session_id=${session.id}`)).body;
      expect(spotlights.data.map((s: any) => s.id)).toEqual([spot.id]);
      expect(spotlights.data.every((s: any) => s.entry_type === "spotlight")).toBe(true);
      expect((await gm.api.get(`/v1/quotes?campaign_id=${campaign.id}&search=mimic`)).body.data.map((q: any) => q.id)).toEqual([q2.id]);
      expect((await gm.api.get(`/v1/spotlights/${q1.id}`)).status).toBe(404);
      expect((await gm.api.patch(`/v1/quotes/${q1.id}`, { context: "Round one" })).body.context).toBe("Round one");
      expect((await gm.api.post("/v1/quotes", { session_id: session.id })).status).toBe(422);
      expect((await gm.api.get("/v1/quotes")).status).toBe(422);
      expect((await stranger.api.post("/v1/quotes", { session_id: session.id, text: "x" })).status).toBe(403);
      expect((await gm.api.delete(`/v1/spotlights/${spot.id}`)).status).toBe(204);
    });
  });

  test("deleting a session removes its transcript, analysis, handout and cards; beats and moments lose the link", async () => {
    const session = await newSession({ title: "Doomed" });
    await importBody(session.id, "Matt: hello\nSam: hi", "text/plain");
    await admin.post(`/internal/v1/sessions/${session.id}/handout`);
    const beat = (await gm.api.post("/v1/beats", { campaign_id: campaign.id, label: "B", type: "major", game_session_id: session.id })).body;
    const moment = (await gm.api.post("/v1/moments", { campaign_id: campaign.id, label: "M", session_id: session.id })).body;
    const quote = (await gm.api.post("/v1/quotes", { session_id: session.id, text: "bye" })).body;
    expect((await admin.delete(`/internal/v1/sessions/${session.id}`)).status).toBe(204);
    expect((await gm.api.get(`/v1/sessions/${session.id}`)).status).toBe(404);
    expect((await gm.api.get(`/v1/sessions/${session.id}/transcript`)).status).toBe(404);
    expect((await gm.api.get(`/v1/beats/${beat.id}`)).body.game_session_ids).toEqual([]);
    expect((await gm.api.get(`/v1/moments/${moment.id}`)).body.session_id).toBeNull();
    expect((await gm.api.get(`/v1/quotes/${quote.id}`)).status).toBe(404);
  });
});
