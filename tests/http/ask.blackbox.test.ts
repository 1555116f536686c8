// Black-box: POST /v1/ask and GET /v1/ask/quota over HTTP, offline (no GEMINI_API_KEY): extractive
// answers whose [S#] markers match their citations, transcript spans that resolve, journal secrets
// that never leak, gm_permissions / asker_id / as_of_session, and the quota counters.
import { describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";
import { expectRefused } from "../support/refusals.ts";

const SECRET = "Zephyrine moonweaver amulet hidden beneath the third floorboard of the Leaky Tap";

const vtt = (lines: [string, number, number, string][]) =>
  ["WEBVTT", "", ...lines.flatMap(([speaker, start, end, text]) => [`${clock(start)} --> ${clock(end)}`, `<v ${speaker}>${text}`, ""])].join("\n");
const clock = (s: number) => `00:${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000`;

/** Every [S#] of an answer, in order of first use. */
const markersOf = (answer: string) => [...new Set([...answer.matchAll(/\[S(\d+)\]/g)].map((m) => `S${m[1]}`))];

await forEachBackend("Ask over HTTP (offline answers)", (backend) => {
  let admin: Client;
  let gm: User;
  let coGm: User;
  let playerA: User;
  let playerB: User;
  let viewer: User;
  let stranger: User;
  let campaign: any;
  let other: any;
  let s1: any;
  let s2: any;
  let otherSession: any;
  let secret: any;
  let jester: any;
  let nila: any;

  serverWithUsers(backend, ["GM", "CoGM", "PlayerA", "PlayerB", "Viewer", "Stranger"], async (fixture) => {
    ({ admin, users: { GM: gm, CoGM: coGm, PlayerA: playerA, PlayerB: playerB, Viewer: viewer, Stranger: stranger } } = fixture);
    campaign = (await gm.api.post("/v1/campaigns", { title: "The Mighty Nein" })).body;
    other = (await stranger.api.post("/v1/campaigns", { title: "Elsewhere" })).body;
    for (const [user, role] of [[coGm, "admin"], [playerA, "player"], [playerB, "player"], [viewer, "viewer"]] as const)
      expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: user.id, role })).status).toBeLessThan(300);
    jester = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Jester Lavorre", description: "A blue tiefling cleric of the Traveler, raised in Nicodranas by her mother Marion." })).body;
    nila = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Nila Lavorre", description: "Jester's sister, a quiet healer who keeps goats outside Nicodranas." })).body;
    await gm.api.post("/v1/locations", { campaign_id: campaign.id, name: "Zadash", description: "A walled trade city of the Dwendalian Empire, home of the Pentamarket." });
    s1 = (await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Curious Beginnings", session_date: "2018-01-11T19:00:00Z" })).body;
    s2 = (await admin.post("/internal/v1/sessions", { campaign_id: campaign.id, type: "chatVoice", title: "Disparate Pieces", session_date: "2018-01-18T19:00:00Z" })).body;
    otherSession = (await admin.post("/internal/v1/sessions", { campaign_id: other.id, type: "chatVoice", title: "Elsewhere 1", session_date: "2018-01-11T19:00:00Z" })).body;
    const import1 = await admin.call("POST", `/internal/v1/sessions/${s1.id}/transcript`, vtt([
      ["MATT", 1, 6, "Welcome to Trostenwald. The carnival wagons circle the town square."],
      ["LAURA", 7, 11, "Jester wants to buy a pastry from the baker."],
      ["MATT", 12, 20, "The baker hands Jester a sweet roll dusted with cinnamon sugar."],
      ["TRAVIS", 21, 25, "Fjord keeps watch by the wagons."],
    ]), { "content-type": "text/vtt" });
    expect(import1.status).toBe(201);
    const import2 = await admin.call("POST", `/internal/v1/sessions/${s2.id}/transcript`, vtt([
      ["MATT", 1, 8, "The crimson gargoyle statue in the Zadash market has glowing ruby eyes."],
      ["SAM", 9, 14, "Nott tries to steal the gargoyle's ruby eyes."],
      ["MATT", 15, 22, "The city watch chases Nott across the Pentamarket rooftops."],
    ]), { "content-type": "text/vtt" });
    expect(import2.status).toBe(201);
    secret = (await playerA.api.post("/v1/journals", { campaign_id: campaign.id, title: "Private notes", content: SECRET, is_public: false })).body;
    expect(secret.id).toEqual(expect.any(String));
  });

  const ask = (user: User, body: Record<string, unknown>) => user.api.post("/v1/ask", { campaign_id: campaign.id, ...body });
  const question = (content: string) => [{ role: "user", content }];

  describe("requests", () => {
    test("messages missing: 400 'messages is required'; no user message: 400; bad role: 422", async () => {
      expectRefused(await ask(gm, {}), 400, "messages is required");
      expectRefused(await ask(gm, { messages: [] }), 400, "messages must include a user message with the question");
      expectRefused(await ask(gm, { messages: [{ role: "assistant", content: "hi" }] }), 400, "messages must include a user message with the question");
      expectRefused(await ask(gm, { messages: [{ role: "wizard", content: "hi" }] }), 422, ["body", "messages", 0, "role"]);
      expectRefused(await gm.api.post("/v1/ask", { messages: question("x") }), 422, ["body", "campaign_id"]);
    });

    test("non-members are refused; viewers may ask", async () => {
      expectRefused(await ask(stranger, { messages: question("Who is Jester?") }), 403, "Access denied to this campaign");
      expect((await ask(viewer, { messages: question("Who is Jester?") })).status).toBe(200);
    });
  });

  describe("answers and citations", () => {
    test("an extractive answer that says so, markers S1.. in order of use, each matching one citation", async () => {
      const reply = await ask(playerB, { messages: question("What did the baker give Jester?") });
      expect(reply.status).toBe(200);
      const { answer, citations } = reply.body;
      expect(answer).toStartWith("Extractive answer (offline: quoted from the campaign's records, not written by a model):");
      expect(answer).toContain("sweet roll dusted with cinnamon sugar");
      expect(citations.length).toBeGreaterThan(0);
      expect(markersOf(answer)).toEqual(citations.map((c: any) => c.citation_id));
      expect(citations.map((c: any) => c.citation_id)).toEqual(citations.map((_: unknown, i: number) => `S${i + 1}`));
      const transcript = citations.find((c: any) => c.source_type === "transcript");
      expect(transcript).toMatchObject({ source_id: s1.id, title: "Curious Beginnings", session_number: 1 });
      expect(transcript.excerpt).toContain("sweet roll");
      expect(transcript.metadata.session_id).toBe(s1.id);
      expect(transcript.metadata.speakers).toContain("MATT");
      // The span resolves: the transcript's lines from..to include the cited one, at the cited seconds.
      const span = await playerB.api.get(`/v1/sessions/${s1.id}/transcript?from=${transcript.metadata.utterance_start}&to=${transcript.metadata.utterance_end}`);
      expect(span.status).toBe(200);
      expect(span.body.utterances.length).toBe(transcript.metadata.utterance_end - transcript.metadata.utterance_start + 1);
      expect(span.body.utterances.map((u: any) => u.transcript)).toContain("The baker hands Jester a sweet roll dusted with cinnamon sugar.");
      expect(span.body.utterances[0].start).toBe(transcript.metadata.start);
      expect(span.body.utterances.at(-1).end).toBe(transcript.metadata.end);
      expect(reply.body.monthlyTokensRemaining).toBeLessThan(5_000_000);
      expect(reply.body.hourlyTokensRemaining).toBeLessThan(500_000);
    });

    test("transcript from/to: exactly that span; from after to is a 422", async () => {
      const span = await gm.api.get(`/v1/sessions/${s2.id}/transcript?from=1&to=1`);
      expect(span.body.utterances).toEqual([{ speaker_label: "SAM", transcript: "Nott tries to steal the gargoyle's ruby eyes.", start: 9, end: 14, said_at: "2018-01-18T19:00:09.000Z" }]);
      expect(span.body.text).toBe("SAM: Nott tries to steal the gargoyle's ruby eyes.");
      expectRefused(await gm.api.get(`/v1/sessions/${s2.id}/transcript?from=2&to=1`), 422, ["query", "to"]);
    });

    test("a question nothing answers says so, with no citations", async () => {
      const reply = await ask(gm, { messages: question("Xylophone quantum spaceship?") });
      expect(reply.body).toMatchObject({ answer: "Nothing in this campaign's records that you may read answers that question.", citations: [] });
    });

    test("a follow-up leans on the earlier question: 'what about her sister?' after asking about Jester", async () => {
      const reply = await ask(gm, {
        messages: [
          { role: "user", content: "Who is Jester Lavorre?" },
          { role: "assistant", content: "A blue tiefling cleric [S1]." },
          { role: "user", content: "What about her sister?" },
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.body.citations.map((c: any) => c.source_id)).toContain(nila.id);
      expect(reply.body.answer).toContain("goats");
    });
  });

  describe("journal secrets", () => {
    const leaks = (body: any) => JSON.stringify(body).toLowerCase().includes("zephyrine") || body.citations.some((c: any) => c.source_id === secret.id);

    test("never reach another player, the viewer or the GM without gm_permissions, whatever the question", async () => {
      for (const user of [playerB, viewer, gm, coGm])
        for (const q of [SECRET, "Where is the moonweaver amulet hidden?", "zephyrine"]) {
          const reply = await ask(user, { messages: question(q) });
          expect(reply.status).toBe(200);
          expect(leaks(reply.body)).toBe(false);
        }
    });

    test("reach their author, and the GM with gm_permissions", async () => {
      const mine = await ask(playerA, { messages: question("Where is the moonweaver amulet hidden?") });
      expect(mine.body.citations.find((c: any) => c.source_id === secret.id)).toMatchObject({ source_type: "journal", title: "Private notes" });
      for (const user of [gm, coGm]) {
        const all = await ask(user, { messages: question("Where is the moonweaver amulet hidden?"), gm_permissions: true });
        expect(all.body.citations.some((c: any) => c.source_id === secret.id)).toBe(true);
      }
    });

    test("gm_permissions needs manage access", async () => {
      for (const user of [playerA, playerB, viewer])
        expectRefused(await ask(user, { messages: question("amulet"), gm_permissions: true }), 403, "gm_permissions needs manage access (owner or admin) to this campaign");
    });

    test("asker_id: the GM reads as a player; players only as themselves; the asker must be a player, admin or owner", async () => {
      const asA = await ask(gm, { messages: question("Where is the moonweaver amulet hidden?"), asker_id: playerA.id });
      expect(asA.body.citations.some((c: any) => c.source_id === secret.id)).toBe(true);
      const asB = await ask(gm, { messages: question("Where is the moonweaver amulet hidden?"), asker_id: playerB.id });
      expect(leaks(asB.body)).toBe(false);
      expect((await ask(playerA, { messages: question("amulet"), asker_id: playerA.id })).status).toBe(200);
      expectRefused(await ask(playerB, { messages: question("amulet"), asker_id: playerA.id }), 403, "Asking as another user (asker_id) needs manage access (owner or admin) to this campaign");
      expectRefused(await ask(gm, { messages: question("amulet"), asker_id: viewer.id }), 403, "The asker_id user is not a player, admin or owner of this campaign");
      expectRefused(await ask(gm, { messages: question("amulet"), asker_id: stranger.id }), 403, "The asker_id user is not a player, admin or owner of this campaign");
      expectRefused(await ask(gm, { messages: question("amulet"), asker_id: "00000000-0000-7000-8000-000000000000" }), 404, "asker_id user not found");
      // gm_permissions overrides asker_id.
      const both = await ask(gm, { messages: question("Where is the moonweaver amulet hidden?"), asker_id: playerB.id, gm_permissions: true });
      expect(both.body.citations.some((c: any) => c.source_id === secret.id)).toBe(true);
    });
  });

  describe("as_of_session", () => {
    test("leaves later sessions out; a session of another campaign is 404", async () => {
      const q = question("What happened with the gargoyle's ruby eyes in Zadash?");
      const now = await ask(playerB, { messages: q });
      expect(now.body.citations.some((c: any) => c.source_id === s2.id)).toBe(true);
      const then = await ask(playerB, { messages: q, as_of_session: s1.id });
      expect(then.status).toBe(200);
      expect(then.body.citations.some((c: any) => c.source_id === s2.id || c.metadata?.session_id === s2.id)).toBe(false);
      expect(JSON.stringify(then.body)).not.toContain("ruby");
      expect((await ask(playerB, { messages: q, as_of_session: s2.id })).body.citations.some((c: any) => c.source_id === s2.id)).toBe(true);
      expectRefused(await ask(playerB, { messages: q, as_of_session: otherSession.id }), 404, "Session not found (as_of_session)");
    });
  });

  describe("quota", () => {
    test("GET /v1/ask/quota: the counters an answer reports, and they fall with every answer", async () => {
      const before = await viewer.api.get("/v1/ask/quota");
      expect(before.status).toBe(200);
      const answered = await ask(viewer, { messages: question("Who keeps watch by the wagons?") });
      const after = await viewer.api.get("/v1/ask/quota");
      expect(after.body).toEqual({ monthlyTokensRemaining: answered.body.monthlyTokensRemaining, hourlyTokensRemaining: answered.body.hourlyTokensRemaining, launchPromoActive: false });
      const spent = before.body.monthlyTokensRemaining - after.body.monthlyTokensRemaining;
      expect(spent).toBeGreaterThan(50);
      expect(before.body.hourlyTokensRemaining - after.body.hourlyTokensRemaining).toBe(spent);
    });
  });
});
