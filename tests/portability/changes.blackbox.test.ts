// Black-box: the change feed through creates, updates and deletes, as game master and as player.
import { describe, expect, test } from "bun:test";
import { forEachBackend, serverWithUsers, type User } from "../support/backends.ts";
import type { Client } from "../support/client.ts";

await forEachBackend("the change feed over HTTP", (backend) => {
  let gm: User;
  let player: User;
  let stranger: User;
  let admin: Client;
  let campaign: any;

  serverWithUsers(backend, ["Matt", "Laura", "Stranger"], async (fixture) => {
    ({ admin, users: { Matt: gm, Laura: player, Stranger: stranger } } = fixture);
    campaign = (await gm.api.post("/v1/campaigns", { title: "Vox Machina" })).body;
    expect((await admin.post(`/internal/v1/campaigns/${campaign.id}/members`, { user_id: player.id, role: "player" })).status).toBe(201);
  });

  const feed = (who: User, query = "") => who.api.get(`/v1/campaigns/${campaign.id}/changes${query}`);
  const all = async (who: User, since?: string) => {
    const seen: any[] = [];
    let cursor = since;
    for (;;) {
      const page = await feed(who, `?limit=2${cursor === undefined ? "" : `&since=${cursor}`}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data);
      if (page.body.next_cursor === cursor || page.body.data.length === 0) return { seen, cursor: page.body.next_cursor as string };
      cursor = page.body.next_cursor;
    }
  };

  test("creates, updates and deletes appear in order, each once, with the actor; a private journal only to its readers", async () => {
    const start = (await feed(gm)).body;
    // The campaign's creation wrote the campaign, its owner, the GM speaker: the feed starts at seq 1.
    expect(start.data[0]).toMatchObject({ seq: 1, kind: "campaign", id: campaign.id, op: "create", actor_id: gm.id });
    expect(start.data.map((c: any) => c.seq)).toEqual(start.data.map((_: any, i: number) => i + 1));
    const cursor = start.next_cursor;

    const grog = (await gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: "Grog" })).body;
    expect((await player.api.patch(`/v1/characters/${grog.id}`, { description: "Goliath" })).status).toBe(200);
    const secret = (await player.api.post("/v1/journals", { world_id: campaign.id, title: "Laura's diary", is_public: false })).body;
    const open = (await gm.api.post("/v1/journals", { world_id: campaign.id, title: "Session notes", is_public: true })).body;
    expect((await gm.api.delete(`/v1/characters/${grog.id}`)).status).toBe(204);
    expect((await player.api.delete(`/v1/journals?id=${secret.id}`)).status).toBe(200);

    const asGm = (await all(gm, cursor)).seen.map((c: any) => [c.kind, c.id, c.op, c.actor_id]);
    expect(asGm).toEqual([
      ["character", grog.id, "create", gm.id],
      ["character", grog.id, "update", player.id],
      ["journal_entry", open.id, "create", gm.id],
      ["character", grog.id, "delete", gm.id],
    ]);
    const asPlayer = (await all(player, cursor)).seen.map((c: any) => [c.kind, c.id, c.op]);
    expect(asPlayer).toEqual([
      ["character", grog.id, "create"],
      ["character", grog.id, "update"],
      ["journal_entry", secret.id, "create"],
      ["journal_entry", open.id, "create"],
      ["character", grog.id, "delete"],
      ["journal_entry", secret.id, "delete"],
    ]);
    // Seqs are strictly increasing and the GM's cursor moved past the changes hidden from them.
    const gmEnd = await all(gm, cursor);
    const playerEnd = await all(player, cursor);
    expect(gmEnd.cursor).toBe(playerEnd.cursor);
    expect((await feed(gm, `?since=${gmEnd.cursor}`)).body).toEqual({ data: [], next_cursor: gmEnd.cursor });
  });

  test("bad cursors and strangers are refused with a sentence", async () => {
    const bad = await feed(gm, "?since=abc");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].msg).toBe("since must be a cursor from next_cursor (digits)");
    const ahead = await feed(gm, "?since=999999");
    expect(ahead.status).toBe(400);
    expect(ahead.body.detail).toStartWith("This cursor (999999) is ahead of the campaign's feed");
    expect((await feed(gm, "?limit=0")).status).toBe(422);
    const refused = await feed(stranger);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "Access denied to this campaign" });
  });

  test("concurrent writers: every change is listed exactly once, seqs without gaps", async () => {
    const before = (await all(gm)).cursor;
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => gm.api.post("/v1/characters", { campaign_id: campaign.id, character_name: `Racer ${i}` })),
    );
    expect(made.every((r) => r.status === 201)).toBe(true);
    const { seen } = await all(gm, before);
    const ids = seen.filter((c: any) => c.kind === "character" && c.op === "create").map((c: any) => c.id);
    expect(ids.sort()).toEqual(made.map((r) => r.body.id).sort());
    const seqs = seen.map((c: any) => c.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => Number(before) + 1 + i));
  });
});
