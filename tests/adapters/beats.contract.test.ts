// BeatRepository: beats of a campaign, their sessions and their parent chain, on every backend.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { at, expectRoundTrip, beatFields, beatRecord, contractSuite, DB_RUNS } from "../support/records.ts";

const byIndex = (a: { index: number; created_at: string; id: string }, b: typeof a) => a.index - b.index || a.created_at.localeCompare(b.created_at) || (a.id < b.id ? -1 : 1);

await contractSuite("beats", (world) => {
  test("every field round-trips, through insert and through replace; a missing beat is null", async () => {
    const { store, campaign } = world();
    const session = await world().session();
    await fc.assert(
      fc.asyncProperty(beatFields, beatFields, async (first, second) => {
        const beat = beatRecord(campaign.id, { ...first, game_session_ids: [session.id] });
        await expectRoundTrip(store.beats, beat, { ...beat, ...second, game_session_ids: [], updated_at: at(9_000) });
      }),
      DB_RUNS,
    );
    expect(await store.beats.get("00000000-0000-7000-8000-000000000000")).toBeNull();
  });

  test("lists by campaign and by session in index order, paginated, with totals", async () => {
    const { store } = world();
    const campaign = await world().otherCampaign();
    const [s1, s2] = [await world().session(campaign.id), await world().session(campaign.id)];
    const made = [3, 1, 2, 1, 0].map((index, i) => beatRecord(campaign.id, { label: `B${i}`, index, created_at: at(i * 1000), game_session_ids: i % 2 ? [s1.id] : [s1.id, s2.id] }));
    for (const beat of made) await store.beats.insert(beat);
    const ordered = [...made].sort(byIndex);
    expect(await store.beats.listByCampaign(campaign.id, { page: 1, size: 2 })).toEqual({ rows: ordered.slice(0, 2), total: 5 });
    expect(await store.beats.listByCampaign(campaign.id, { page: 3, size: 2 })).toEqual({ rows: ordered.slice(4), total: 5 });
    const inS2 = ordered.filter((beat) => beat.game_session_ids.includes(s2.id));
    expect(await store.beats.listBySession(s2.id, { page: 1, size: 10 })).toEqual({ rows: inS2, total: 3 });
    expect(await store.beats.allBySession(s1.id)).toEqual(ordered);
  });

  test("ancestry walks up to the root; orphanChildren detaches only direct children", async () => {
    const { store, campaign } = world();
    const root = beatRecord(campaign.id, { label: "Root" });
    const mid = beatRecord(campaign.id, { label: "Mid", type: "minor", parent_id: root.id });
    const leaf = beatRecord(campaign.id, { label: "Leaf", type: "step", parent_id: mid.id });
    for (const beat of [root, mid, leaf]) await store.beats.insert(beat);
    expect(await store.beats.ancestry(leaf.id)).toEqual(new Map([[leaf.id, mid.id], [mid.id, root.id], [root.id, null]]));
    expect(await store.beats.orphanChildren(root.id, at(7_000))).toBe(1);
    expect(await store.beats.get(mid.id)).toEqual({ ...mid, parent_id: null, updated_at: at(7_000) });
    expect((await store.beats.get(leaf.id))?.parent_id).toBe(mid.id);
  });

  test("forgetSession drops one session from every beat; delete answers whether there was one", async () => {
    const { store, campaign } = world();
    const [keep, gone] = [await world().session(), await world().session()];
    const both = beatRecord(campaign.id, { game_session_ids: [keep.id, gone.id] });
    const only = beatRecord(campaign.id, { game_session_ids: [gone.id] });
    for (const beat of [both, only]) await store.beats.insert(beat);
    await store.beats.forgetSession(gone.id);
    expect((await store.beats.get(both.id))?.game_session_ids).toEqual([keep.id]);
    expect((await store.beats.get(only.id))?.game_session_ids).toEqual([]);
    expect(await store.beats.allBySession(gone.id)).toEqual([]);
    expect(await store.beats.delete(only.id)).toBe(true);
    expect(await store.beats.delete(only.id)).toBe(false);
    expect(await store.beats.get(only.id)).toBeNull();
  });
});
