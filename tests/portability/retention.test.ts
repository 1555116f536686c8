// Change-feed retention: old changes go, a cursor before them answers 410, newer cursors keep working.
import { expect, test } from "bun:test";
import { pruneChanges } from "../../application/changes.ts";
import { inProcessService } from "../support/inprocess.ts";

test("pruning removes only changes older than the retention, and an expired cursor is 410 with a sentence", async () => {
  const service = await inProcessService();
  try {
    const matt = service.as((await service.newUser("Matt", "matt@example.test")).key);
    const as = matt.must;
    const campaign = await as("POST", "/v1/campaigns", { title: "Old" });
    const first = await as("GET", `/v1/campaigns/${campaign.id}/changes`);
    const oldCursor = first.next_cursor;
    // Age what exists 40 days, then write one more change.
    await service.db.query(`update changes set at = at - interval '40 days' where campaign_id = $1`, [campaign.id]);
    await as("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Pike" });

    expect(await pruneChanges(service.deps, 30)).toBe(Number(oldCursor));
    const expired = await matt.call("GET", `/v1/campaigns/${campaign.id}/changes?since=1`);
    expect(expired.status).toBe(410);
    expect(expired.body.detail).toStartWith("This cursor has expired");
    const kept = await as("GET", `/v1/campaigns/${campaign.id}/changes?since=${oldCursor}`);
    expect(kept.data.map((c: any) => [c.seq, c.kind, c.op])).toEqual([[Number(oldCursor) + 1, "character", "create"]]);
    // Without since, the feed starts at the oldest change kept.
    expect((await as("GET", `/v1/campaigns/${campaign.id}/changes`)).data).toEqual(kept.data);
    expect(await pruneChanges(service.deps, 30)).toBe(0);
  } finally {
    await service.close();
  }
});
