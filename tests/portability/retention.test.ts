// Change-feed retention: old changes go, a cursor before them answers 410, newer cursors keep working.
import { expect, test } from "bun:test";
import { pruneChanges } from "../../application/changes.ts";
import { inProcessService } from "../support/inprocess.ts";

test("pruning removes only changes older than the retention, and an expired cursor is 410 with a sentence", async () => {
  const service = await inProcessService();
  try {
    const admin = (method: string, path: string, body?: unknown) => service.request(method, path, { key: service.adminKey, body });
    const user = await (await admin("POST", "/internal/v1/users", { name: "Matt", email: "matt@example.test" })).json();
    const key = (await (await admin("POST", `/internal/v1/users/${user.id}/keys`, {})).json()).key;
    const as = (method: string, path: string, body?: unknown) => service.request(method, path, { key, body });
    const campaign = await (await as("POST", "/v1/campaigns", { title: "Old" })).json();
    const first = await (await as("GET", `/v1/campaigns/${campaign.id}/changes`)).json();
    const oldCursor = first.next_cursor;
    // Age what exists 40 days, then write one more change.
    await service.db.query(`update changes set at = at - interval '40 days' where campaign_id = $1`, [campaign.id]);
    await as("POST", "/v1/characters", { campaign_id: campaign.id, character_name: "Pike" });

    expect(await pruneChanges(service.deps, 30)).toBe(Number(oldCursor));
    const expired = await as("GET", `/v1/campaigns/${campaign.id}/changes?since=1`);
    expect(expired.status).toBe(410);
    expect((await expired.json()).detail).toStartWith("This cursor has expired");
    const kept = await (await as("GET", `/v1/campaigns/${campaign.id}/changes?since=${oldCursor}`)).json();
    expect(kept.data.map((c: any) => [c.seq, c.kind, c.op])).toEqual([[Number(oldCursor) + 1, "character", "create"]]);
    // Without since, the feed starts at the oldest change kept.
    expect((await (await as("GET", `/v1/campaigns/${campaign.id}/changes`)).json()).data).toEqual(kept.data);
    expect(await pruneChanges(service.deps, 30)).toBe(0);
  } finally {
    await service.close();
  }
});
