// Ask's retrieval index and retriever on every backend: records written through the real use cases
// are found straight after the write and gone after the delete; journal privacy and spoiler-safe
// asking hold inside the query; transcript windows carry their span; the backfill rebuilds.
import { expect, test } from "bun:test";
import { sqlRetriever } from "../../adapters/sql/retrieval.ts";
import { startWorker } from "../../infra/worker.ts";
import type { Passage, RetrievalQuery } from "../../ports/retrieval.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

await forEachBackend("Ask retrieval", (backend) => {
  let service: InProcessService;
  const users: Record<"gm" | "ann" | "bob" | "outsider", { id: string; key: string }> = {} as never;
  let campaignId = "";
  const sessions: string[] = [];

  const call = (method: string, path: string, key: string, body?: unknown) => service.call(method, path, key, body);
  const post = (path: string, body: unknown, key = users.gm.key) => service.post(path, body, key);
  const ask = (text: string, extra: Partial<RetrievalQuery> = {}): Promise<Passage[]> =>
    service.deps.retriever.retrieve({ campaignId, text, journals: { all: true }, limit: 5, ...extra });
  const importPlain = (sessionId: string, lines: string[]) => service.importTranscript(sessionId, lines.join("\n"));

  inProcessOn(backend, async (made) => {
    service = made;
    for (const name of ["gm", "ann", "bob", "outsider"] as const) users[name] = await service.newUser(name, `${name}.${crypto.randomUUID().slice(0, 6)}@example.test`);
    campaignId = (await post("/v1/campaigns", { title: "Vox Machina" })).id;
    for (const name of ["ann", "bob"] as const)
      await call("POST", `/internal/v1/campaigns/${campaignId}/members`, service.adminKey, { user_id: users[name].id, role: "player" });
    for (const [i, title] of ["Arrival at Kraghammer", "Into the Mines", "The Duergar Warlord"].entries())
      sessions.push((await call("POST", "/internal/v1/sessions", service.adminKey, { campaign_id: campaignId, type: "chatVoice", title, session_date: `2015-03-${12 + i * 7}T19:00:00Z` })).body.id);
  });

  test("every kind is found straight after its write, with its kind, id and title", async () => {
    const written: [string, string, string][] = [
      ["character", (await post("/v1/characters", { campaign_id: campaignId, character_name: "Grog Strongjaw", character_aliases: ["the Grand Poobah"], description: "A goliath barbarian who loves a tankard." })).id, "barbarian tankard"],
      ["faction", (await post("/v1/factions", { campaign_id: campaignId, name: "Clasp", description: "A guild of thieves and assassins." })).id, "assassins"],
      ["location", (await post("/v1/locations", { campaign_id: campaignId, name: "Kraghammer", description: "A dwarven city carved into the mountain." })).id, "dwarven"],
      ["item", (await post("/v1/items", { campaign_id: campaignId, name: "Fenthras", description: "A bow of living wood, gifted by the Ashari." })).id, "living wood"],
      ["beat", (await post("/v1/beats", { campaign_id: campaignId, label: "Descent into the mines", type: "major", description: "The party follows the tunnels to the underdark.", game_session_id: sessions[1] })).id, "underdark"],
      ["moment", (await post("/v1/moments", { campaign_id: campaignId, label: "Grog's rage", content: "Grog headbutts the ogre unconscious.", session_id: sessions[0] })).id, "headbutts ogre"],
      ["hero_award", (await post("/v1/hero-awards", { session_id: sessions[0], title: "Tankiest Goliath", description: "Took forty points of damage and kept swinging.", character_name: "Grog" })).id, "forty points"],
      ["quote", (await post("/v1/quotes", { session_id: sessions[0], text: "I would like to rage, please!", speaker: "Travis", character_name: "Grog" })).id, "rage please"],
      ["spotlight", (await post("/v1/spotlights", { session_id: sessions[0], title: "Vex's trick shot", description: "Two arrows through the eye of the basilisk." })).id, "basilisk"],
      ["quest", (await post("/v1/quests", { campaign_id: campaignId, quest_name: "Find Lady Kima", objectives: ["Search the Greyspine mines"] })).id, "greyspine"],
      ["journal", (await post("/v1/journals", { world_id: campaignId, title: "Shopping list", content: "Buy healing potions and a grappling hook.", is_public: true })).id, "grappling hook"],
    ];
    for (const [kind, id, words] of written) {
      const [best] = await ask(`what about the ${words}?`);
      expect({ words, kind: best?.kind, id: best?.sourceId }).toEqual({ words, kind: kind as Passage["kind"], id });
    }
    const [quest] = await ask("greyspine");
    expect(quest!.title).toBe("Find Lady Kima");
    expect(quest!.text).toContain("Search the Greyspine mines");
    expect(quest!.coverage).toBe(1);
    const [session] = (await ask("the duergar warlord")).filter((p) => p.kind === "session");
    expect(session).toMatchObject({ sourceId: sessions[2], sessionId: sessions[2], sessionNumber: 3, title: "The Duergar Warlord" });
  });

  test("an update is searchable at once and a delete removes the record", async () => {
    const id = (await post("/v1/locations", { campaign_id: campaignId, name: "Westruun", description: "A walled city of the plains." })).id;
    expect((await ask("walled"))[0]?.sourceId).toBe(id);
    expect((await call("PATCH", `/v1/locations/${id}`, users.gm.key, { description: "A city of the Dwendalian plains, fallen to giants." })).status).toBe(200);
    expect((await ask("walled")).map((p) => p.sourceId)).not.toContain(id);
    expect((await ask("giants"))[0]?.sourceId).toBe(id);
    expect((await call("DELETE", `/v1/locations/${id}`, users.gm.key)).status).toBe(204);
    expect((await ask("giants Westruun")).map((p) => p.sourceId)).not.toContain(id);
    // The terms of the replaced and the deleted passages went with them (a delete trigger, not a cascade: migration 0017).
    const orphans = await service.db.query(`select count(*)::int as n from ask_terms t where not exists (select 1 from ask_passages p where p.id = t.passage_id)`);
    expect(orphans).toEqual([{ n: 0 }]);
    const [terms] = await service.db.query(`select count(*)::int as n from ask_terms where term = 'giant' and campaign_id = $1`, [campaignId]);
    expect(terms).toEqual({ n: 0 });
  });

  test("transcript windows keep session, utterance range, seconds and speakers; a character's lines are found through its speaker", async () => {
    const lines = Array.from({ length: 40 }, (_, i) =>
      i === 25 ? "LAURA: I nock an arrow and whisper to Trinket that the bridge is trapped." : `${i % 2 ? "MATT" : "TRAVIS"}: The torchlight flickers over wet stone number ${i}.`,
    );
    await importPlain(sessions[1]!, lines);
    const laura = (await service.deps.records.speakers.list(campaignId)).find((s) => s.name === "LAURA")!;
    await post("/v1/characters", { campaign_id: campaignId, character_name: "Vex'ahlia", speaker_id: laura.id, type: "PC" });
    const found = (await ask("bridge trapped Trinket")).find((p) => p.kind === "transcript")!;
    expect(found.sourceId).toBe(sessions[1]!);
    expect(found.sessionId).toBe(sessions[1]!);
    expect(found.sessionNumber).toBe(2);
    expect(found.title).toBe("Into the Mines");
    expect(found.transcript!.session_id).toBe(sessions[1]!);
    expect(found.transcript!.utterance_start).toBeLessThanOrEqual(25);
    expect(found.transcript!.utterance_end).toBeGreaterThanOrEqual(25);
    expect(found.transcript!.utterance_end - found.transcript!.utterance_start).toBeLessThan(40);
    expect(found.transcript!.speakers).toContain("LAURA");
    expect(found.text).toContain("LAURA: I nock an arrow");
    // "what did Vex'ahlia say": Laura's window outranks the other windows of the same words.
    const [spoken] = (await ask("what did Vex'ahlia say about the torchlight and the stone?", { limit: 10 })).filter((p) => p.kind === "transcript");
    expect(spoken!.transcript!.speakers).toContain("LAURA");
    // Overlapping windows of one transcript are never both returned.
    const windows = (await ask("torchlight flickers over wet stone", { limit: 10 })).filter((p) => p.kind === "transcript").map((p) => p.transcript!);
    expect(windows.length).toBeGreaterThan(1);
    for (const [i, a] of windows.entries())
      for (const b of windows.slice(i + 1)) expect(a.session_id !== b.session_id || a.utterance_end < b.utterance_start || b.utterance_end < a.utterance_start).toBe(true);
    // Re-importing replaces the windows.
    await importPlain(sessions[1]!, ["MATT: Nothing happens at all."]);
    expect((await ask("bridge trapped Trinket")).filter((p) => p.kind === "transcript")).toEqual([]);
    await importPlain(sessions[1]!, lines);
  });

  test("a private journal entry never reaches another player's query, whatever the wording; sharing opens it", async () => {
    const secret = "Ann secretly stole the Duergar sapphire and hid it in her boot.";
    const entry = (await post("/v1/journals", { world_id: campaignId, title: "My confession", content: secret }, users.ann.key)).id;
    const hasSecret = (passages: Passage[]) => passages.some((p) => p.sourceId === entry || p.text.includes("sapphire"));
    expect(hasSecret(await ask(secret, { journals: { readableBy: users.bob.id }, limit: 50 }))).toBe(false);
    expect(hasSecret(await ask("sapphire boot", { journals: { readableBy: users.gm.id }, limit: 50 }))).toBe(false);
    expect((await ask("sapphire boot", { journals: { readableBy: users.ann.id } }))[0]?.sourceId).toBe(entry);
    expect((await ask("sapphire boot", { journals: { all: true } }))[0]?.sourceId).toBe(entry);
    const shared = await call("PUT", "/v1/journals", users.ann.key, { id: entry, permissions: { add: [{ user_id: users.bob.id, level: "view" }] } });
    expect(shared.status).toBe(200);
    expect((await ask("sapphire boot", { journals: { readableBy: users.bob.id } }))[0]?.sourceId).toBe(entry);
    await call("PUT", "/v1/journals", users.ann.key, { id: entry, permissions: { remove: [{ user_id: users.bob.id }] } });
    expect(hasSecret(await ask(secret, { journals: { readableBy: users.bob.id }, limit: 50 }))).toBe(false);
  });

  test("as_of_session hides later sessions' transcripts, sessions, beats and moments", async () => {
    await importPlain(sessions[2]!, ["MATT: The warlord Ripley escapes on a mechanical spider.", "TRAVIS: I chase the spider."]);
    await post("/v1/moments", { campaign_id: campaignId, label: "Ripley flees", content: "Ripley escapes on a mechanical spider.", session_id: sessions[2] });
    const all = await ask("Ripley mechanical spider", { limit: 20 });
    expect(all.some((p) => p.sessionId === sessions[2])).toBe(true);
    const early = await ask("Ripley mechanical spider", { limit: 20, asOfSessionId: sessions[0] });
    expect(early.filter((p) => p.sessionId && p.sessionId !== sessions[0])).toEqual([]);
    expect((await ask("underdark tunnels", { asOfSessionId: sessions[0] })).map((p) => p.kind)).not.toContain("beat");
    expect((await ask("underdark tunnels", { asOfSessionId: sessions[1] })).map((p) => p.kind)).toContain("beat");
  });

  test("a question naming a session number or the last session boosts that session", async () => {
    const [last] = await ask("what happened last session?");
    expect(last!.sessionId).toBe(sessions[2]!);
    const [second] = await ask("what happened in session 2?");
    expect(second!.sessionId).toBe(sessions[1]!);
  });

  test("a misspelled name still finds its record", async () => {
    const [best] = await ask("where is Kragamer?");
    expect(best!.title).toBe("Kraghammer");
  });

  test("the backfill rebuilds the index; an unknown campaign is a 404 with a detail", async () => {
    const before = (await ask("greyspine"))[0]!;
    await service.db.query(`delete from ask_passages where campaign_id = $1`, [campaignId]);
    expect(await ask("greyspine")).toEqual([]);
    const rebuilt = await call("POST", "/internal/v1/ask/reindex", service.adminKey, { campaign_id: campaignId });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.campaign_id).toBe(campaignId);
    expect(rebuilt.body.passages).toBeGreaterThan(12);
    expect((await ask("greyspine"))[0]).toEqual(before);
    expect((await ask("bridge trapped Trinket")).some((p) => p.kind === "transcript")).toBe(true);
    const missing = await call("POST", "/internal/v1/ask/reindex", service.adminKey, { campaign_id: "no-such-campaign" });
    expect(missing).toEqual({ status: 404, body: { detail: "Campaign not found" } });
    const refused = await call("POST", "/internal/v1/ask/reindex", users.gm.key, { campaign_id: campaignId });
    expect(refused.status).toBe(403);
  });
  // Migration 0018: passage count, total length and document frequencies are running counts; after
  // every write above (inserts, updates, deletes, a transcript, the backfill) they equal a recount.
  const recount = async () => ({
    kept: await service.db.query(
      `select term, sum(n)::int as n, sum(len)::int as len from ask_counts where campaign_id = $1 group by term having sum(n) <> 0 or sum(len) <> 0 order by term`,
      [campaignId],
    ),
    actual: [
      ...(await service.db.query(`select '' as term, count(*)::int as n, sum(len)::int as len from ask_passages where campaign_id = $1`, [campaignId])),
      ...(await service.db.query(`select term, count(*)::int as n, 0 as len from ask_terms where campaign_id = $1 group by term order by term`, [campaignId])),
    ],
  });

  test("the running counts equal a recount after every kind of write, and folding them changes no sum", async () => {
    const id = (await post("/v1/locations", { campaign_id: campaignId, name: "Emon", description: "The capital of Tal'Dorei, crowded and loud." })).id;
    expect((await call("PATCH", `/v1/locations/${id}`, users.gm.key, { description: "The capital, quiet at night." })).status).toBe(200);
    expect((await call("DELETE", `/v1/locations/${id}`, users.gm.key)).status).toBe(204);
    const { kept, actual } = await recount();
    expect(actual.length).toBeGreaterThan(50);
    expect(kept).toEqual(actual);
    await service.db.query(`select ask_counts_compact($1)`, [campaignId]);
    const [rows] = await service.db.query(`select count(*)::int as n, count(distinct term)::int as terms from ask_counts where campaign_id = $1`, [campaignId]);
    expect(rows!.n).toBe(rows!.terms);
    expect((await recount()).kept).toEqual(actual);
  });

  test("the worker folds count rows past the threshold while writes go on: one row a word, the same sums", async () => {
    const other = (await post("/v1/campaigns", { title: "Fold" })).id;
    const counts = async (term: string) =>
      (await service.db.query(`select count(*)::int as rows, coalesce(sum(n), 0)::int as n from ask_counts where campaign_id = $1 and term = $2`, [other, term]))[0];
    const extraRows = async () =>
      Number((await service.db.query(`select count(*) - count(distinct term) as extra from ask_counts where campaign_id = $1`, [other]))[0]!.extra);
    // Rows written since the last fold (migration 0054): what the threshold counts.
    const deltaRows = async () =>
      Number((await service.db.query(`select count(*) filter (where not folded) as deltas from ask_counts where campaign_id = $1`, [other]))[0]!.deltas);
    const locations: string[] = [];
    for (const [name, description] of [["Emon", "The capital city, crowded and loud."], ["Whitestone", "A city of white stone."], ["Stilben", "A port of smugglers."]])
      locations.push((await post("/v1/locations", { campaign_id: other, name, description })).id);
    expect((await call("PATCH", `/v1/locations/${locations[2]}`, users.gm.key, { description: "A port city of smugglers." })).status).toBe(200);
    // Three passages (one rewritten); "city" (stem citi) in all three, in a delta row each.
    expect(await counts("")).toEqual({ rows: 5, n: 3 });
    expect(await counts("citi")).toEqual({ rows: 3, n: 3 });
    // The threshold is "more than": a campaign exactly at it is left alone.
    const deltas = await deltaRows();
    expect(await extraRows()).toBeGreaterThan(4);
    expect(deltas).toBeGreaterThan(await extraRows());
    expect(await service.deps.records.askIndex.foldCounts(deltas, 1000)).not.toContain(other);
    expect(await deltaRows()).toBe(deltas);

    const worker = startWorker(service.deps, { foldMs: 5, foldThreshold: 0, pollMs: 60_000, imageSweepMs: 60_000, recountMs: 60_000 });
    try {
      // Six writers at once while the worker folds every 5 ms.
      await Promise.all([1, 2, 3, 4, 5, 6].map((i) => post("/v1/locations", { campaign_id: other, name: `Hamlet ${i}`, description: `A small city, the ${i}th on the road.` })));
      for (let waited = 0; (await extraRows()) > 0 && waited < 10_000; waited += 20) await Bun.sleep(20);
    } finally {
      await worker.stop();
    }
    expect(await extraRows()).toBe(0);
    expect(await deltaRows()).toBe(0);
    expect(await counts("")).toEqual({ rows: 1, n: 9 });
    expect(await counts("citi")).toEqual({ rows: 1, n: 9 });
    expect(await counts("hamlet")).toEqual({ rows: 1, n: 6 });
    const kept = await service.db.query(`select term, n::int as n, len::int as len from ask_counts where campaign_id = $1 order by term`, [other]);
    const actual = [
      ...(await service.db.query(`select '' as term, count(*)::int as n, sum(len)::int as len from ask_passages where campaign_id = $1`, [other])),
      ...(await service.db.query(`select term, count(*)::int as n, 0 as len from ask_terms where campaign_id = $1 group by term order by term`, [other])),
    ];
    expect(kept).toEqual(actual);
  });

  test("two-stage scoring (common words looked up for the rare words' candidates) ranks as reading every posting", async () => {
    const single = sqlRetriever(service.db, { weights: { commonShare: 1 } });
    // A share this low makes most words common, so both the exact two-stage path and its fallback run.
    for (const share of [0.2, 0.05, 0.01]) {
      const staged = sqlRetriever(service.db, { weights: { commonShare: share } });
      for (const text of ["bridge trapped Trinket", "the torchlight flickers over wet stone", "where is Kraghammer?", "greyspine warlord mines", "what happened in session 2?"]) {
        const query = { campaignId, text, journals: { all: true }, limit: 5 } as const;
        expect(await staged.retrieve(query)).toEqual(await single.retrieve(query));
      }
    }
  });
});
