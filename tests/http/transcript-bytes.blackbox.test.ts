// A transcript body that is not text (NUL bytes: a binary file) is refused whole; a CRD3 file whose
// JSON escapes spell NUL or a lone surrogate is kept, with those characters made storable.
import { expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";
import type { TestServer } from "../support/server.ts";


await forEachBackend("transcript bytes", (backend) => {
  let server: TestServer;
  let admin: Client;
  let gm: User;
  let sessionId: string;

  serverWithUsers(backend, ["Matt"], async (fixture) => {
    ({ server, admin, users: { Matt: gm } } = fixture);
    const campaignId = (await gm.api.post("/v1/campaigns", { title: "Bytes" })).body.id;
    sessionId = (await admin.post("/internal/v1/sessions", { campaign_id: campaignId, type: "chatVoice", title: "S", session_date: "2026-01-01T00:00:00Z" })).body.id;
  });

  const upload = (body: BodyInit, contentType: string, format?: string) =>
    fetch(`${server.url}/internal/v1/sessions/${sessionId}/transcript${format ? `?format=${format}` : ""}`, {
      method: "POST",
      headers: { "x-api-key": server.adminKey, "content-type": contentType },
      body,
    });

  test("NUL bytes (a binary file) are a 422 and keep the earlier transcript", async () => {
    const first = await upload("Matt: Welcome back.\nLaura: Hi!\n", "text/plain");
    expect(first.status).toBe(201);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    for (const [body, type] of [[png, "application/octet-stream"], ["Matt: one\u0000two\n", "text/plain"]] as const) {
      const refused = await upload(body, type, "plain");
      expect(refused.status).toBe(422);
      expect((await refused.json()).detail).toEqual([
        { type: "transcript_invalid", loc: ["body"], msg: "The transcript is not text: it contains NUL bytes (a binary file?)", input: null },
      ]);
    }
    const kept = (await gm.api.get(`/v1/sessions/${sessionId}/transcript`)).body;
    expect(kept.utterances.map((u: { speaker_label: string; transcript: string }) => [u.speaker_label, u.transcript])).toEqual([
      ["Matt", "Welcome back."],
      ["Laura", "Hi!"],
    ]);
  });

  test("escaped NUL and lone surrogates inside CRD3 strings are dropped or replaced, not fatal", async () => {
    const crd3 = '{"TURNS":[{"NAMES":["MATT"],"UTTERANCES":["Roll \\u0000initiative."]},{"NAMES":["SAM\\ud800"],"UTTERANCES":["A \\udc00 bard."]}]}';
    const imported = await upload(crd3, "application/json");
    expect(imported.status).toBe(201);
    const transcript = (await gm.api.get(`/v1/sessions/${sessionId}/transcript`)).body;
    expect(transcript.utterances.map((u: { speaker_label: string; transcript: string }) => [u.speaker_label, u.transcript])).toEqual([
      ["MATT", "Roll initiative."],
      ["SAM\ufffd", "A \ufffd bard."],
    ]);
  });
});
