// MomentRepository: moments with their filters, newest first, on every backend.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { at, expectRoundTrip, contractSuite, DB_RUNS, momentFields, momentRecord } from "../support/records.ts";

const newestFirst = (a: { created_at: string; id: string }, b: typeof a) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? 1 : -1);

await contractSuite("moments", (world) => {
  test("every field round-trips, through insert and through replace; a missing moment is null", async () => {
    const { store, campaign } = world();
    const session = await world().session();
    await fc.assert(
      fc.asyncProperty(momentFields, momentFields, async (first, second) => {
        const moment = momentRecord(campaign.id, { ...first, session_id: session.id });
        await expectRoundTrip(store.moments, moment, { ...moment, ...second, session_id: null, image: "https://example.com/m.png", updated_at: at(3_000) });
      }),
      DB_RUNS,
    );
    expect(await store.moments.get("00000000-0000-7000-8000-000000000000")).toBeNull();
  });

  test("filters: campaign, session, sessions, label search, categories, kind; newest first, paginated", async () => {
    const { store } = world();
    const campaign = await world().otherCampaign();
    const [s1, s2] = [await world().session(campaign.id), await world().session(campaign.id)];
    const made = [
      momentRecord(campaign.id, { label: "The bow sings", session_id: s1.id, categories: ["key-moment"], kind: "keyMoment", created_at: at(1_000) }),
      momentRecord(campaign.id, { label: "A song for Emon", session_id: s2.id, categories: ["roleplay", "lore"], created_at: at(2_000) }),
      momentRecord(campaign.id, { label: "Crit!", session_id: null, categories: ["combat"], created_at: at(3_000) }),
      momentRecord(campaign.id, { label: "Bowing out", session_id: s1.id, categories: [], created_at: at(3_000) }),
    ];
    for (const moment of made) await store.moments.insert(moment);
    const page = { page: 1, size: 10 };
    const labels = async (filters: Parameters<typeof store.moments.list>[0]) => (await store.moments.list(filters, page)).rows.map((m) => m.label);
    const ordered = [...made].sort(newestFirst);
    expect(await store.moments.list({ campaignId: campaign.id }, { page: 2, size: 3 })).toEqual({ rows: ordered.slice(3), total: 4 });
    expect(await labels({ campaignId: campaign.id })).toEqual(ordered.map((m) => m.label));
    expect(await labels({ sessionId: s1.id })).toEqual(ordered.filter((m) => m.session_id === s1.id).map((m) => m.label));
    expect((await labels({ campaignId: campaign.id, sessionIds: [s1.id, s2.id] })).sort()).toEqual(["A song for Emon", "Bowing out", "The bow sings"]);
    // Label substring, case-insensitive.
    expect((await labels({ campaignId: campaign.id, search: "BOW" })).sort()).toEqual(["Bowing out", "The bow sings"]);
    expect((await labels({ campaignId: campaign.id, categories: ["lore", "combat"] })).sort()).toEqual(["A song for Emon", "Crit!"]);
    expect(await labels({ campaignId: campaign.id, kind: "keyMoment" })).toEqual(["The bow sings"]);
    expect(await labels({ campaignId: campaign.id, search: "%" })).toEqual([]);
  });

  test("delete answers whether there was one; deleting the session keeps the moment without it", async () => {
    const { store, campaign } = world();
    const session = await world().session();
    const moment = momentRecord(campaign.id, { session_id: session.id });
    await store.moments.insert(moment);
    expect(await store.sessions.delete(session.id)).toBe(true);
    expect((await store.moments.get(moment.id))?.session_id).toBeNull();
    expect(await store.moments.delete(moment.id)).toBe(true);
    expect(await store.moments.delete(moment.id)).toBe(false);
  });
});
