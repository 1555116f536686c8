// Ask over an imported campaign: a session's passage carries its handout's text, whatever order the
// import writes sessions and handouts in (the handout's own trigger rebuilds the session's passage).
import { expect, test } from "bun:test";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";

const HANDOUT = {
  summary: "The zeppelin Quindecillion crashed into the Sunken Bazaar.",
  sessionOutline: "Arrival",
  encounters: [],
  characterSpotlight: [],
  otherEntitySpotlight: [],
  items: [],
  valuableInformation: [],
  partyStatusAndNextSteps: { partyStatus: { summary: "Bruised", bullets: [] }, nextSteps: { summary: "Salvage the wreck" } },
  moments: [],
};

await forEachBackend("import then Ask", (backend) => {
  let service: InProcessService;
  inProcessOn(backend, (made) => {
    service = made;
  });

  test("Ask finds the handout text and the transcript of an imported session", async () => {
    const as = (who: string, method: string, path: string, body?: unknown) => service.must(method, path, who, body);
    const user = await service.newUser("Matt", `matt-${backend.name}@example.test`);
    const { key } = user;
    const campaign = await as(key, "POST", "/v1/campaigns", { title: "Airships" });
    const session = await as(service.adminKey, "POST", "/internal/v1/sessions", { campaign_id: campaign.id, title: "Landfall", session_date: "2020-01-01T00:00:00Z", type: "other" });
    await as(service.adminKey, "PUT", `/internal/v1/sessions/${session.id}/handout`, HANDOUT);
    // 45 lines: several overlapping windows (20 utterances, every 10).
    await service.importTranscript(session.id, "Matt: The red dragon Thordak burns the Sunforge.\nSam: Everybody run!\n" + Array.from({ length: 43 }, (_, i) => `Travis: Line ${i} of the chase.\n`).join(""));
    const document = await (await service.request("GET", `/internal/v1/campaigns/${campaign.id}/export`, { key: service.adminKey, must: true })).text();
    const imported = await service.app.handle(
      new Request(`http://localhost/internal/v1/campaigns/import?owner_id=${user.id}`, { method: "POST", headers: { "x-api-key": service.adminKey, "content-type": "application/json" }, body: document }),
    );
    expect(imported.status).toBe(201);
    const { id } = await imported.json();
    const newSession = (await as(key, "GET", `/v1/sessions?campaign_id=${id}`)).data[0];
    expect(newSession.title).toBe("Landfall");

    const answer = await as(key, "POST", "/v1/ask", { campaign_id: id, messages: [{ role: "user", content: "Where did the zeppelin Quindecillion crash?" }] });
    expect(answer.citations.map((c: Record<string, unknown>) => [c.source_type, c.source_id, c.excerpt])).toEqual([
      ["session", newSession.id, "The zeppelin Quindecillion crashed into the Sunken Bazaar.\nArrival\nSalvage the wreck\nBruised"],
    ]);
    // The transcript's windows too (the transcript import writes them, not a trigger): the same windows as the source's.
    const windows = (campaignId: string) =>
      service.db.query(`select position, body, utterance_start, utterance_end, speakers from ask_passages where kind = 'transcript' and campaign_id = $1 order by position`, [campaignId]);
    const sourceWindows = await windows(campaign.id);
    expect(sourceWindows.map((w) => [w.utterance_start, w.utterance_end])).toEqual([[0, 19], [10, 29], [20, 39], [30, 44]]);
    expect(await windows(id)).toEqual(sourceWindows);
    const quoted = await as(key, "POST", "/v1/ask", { campaign_id: id, messages: [{ role: "user", content: "Which dragon burns the Sunforge?" }] });
    expect(quoted.citations.map((c: Record<string, unknown>) => [c.source_type, c.source_id])).toContainEqual(["transcript", newSession.id]);
  });
});
