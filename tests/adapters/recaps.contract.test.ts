// RecapRepository: hero awards (with their card), quotes and spotlights, and recap pipelines, on every backend.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { at, contractSuite, DB_RUNS, heroAwardFields, heroAwardRecord, newId, recapEntryFields, recapEntryRecord } from "../support/records.ts";

const inOrder = (a: { order_index: number; created_at: string; id: string }, b: typeof a) =>
  a.order_index - b.order_index || a.created_at.localeCompare(b.created_at) || (a.id < b.id ? -1 : 1);

await contractSuite("recap entries", (world) => {
  test("hero awards: every field and the card round-trip, through insert and replace", async () => {
    const { store } = world();
    const session = await world().session();
    await fc.assert(
      fc.asyncProperty(heroAwardFields, heroAwardFields, fc.option(fc.uint8Array({ maxLength: 64 }), { nil: null }), async (first, second, card) => {
        const award = heroAwardRecord(session, first);
        await store.recaps.insertAward(award, card);
        expect(await store.recaps.getAward(award.id)).toEqual(award);
        // No card, or an empty one, reads back as no card.
        expect(await store.recaps.awardCard(award.id)).toEqual(card?.length ? card : null);
        const replaced = { ...award, ...second, style: "parchment", updated_at: at(4_000) };
        const newCard = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
        await store.recaps.replaceAward(replaced, newCard);
        expect(await store.recaps.getAward(award.id)).toEqual(replaced);
        expect(await store.recaps.awardCard(award.id)).toEqual(newCard);
      }),
      DB_RUNS,
    );
  });

  test("hero awards: listed by session in order, searched in title, description and character; delete", async () => {
    const { store } = world();
    const campaign = await world().otherCampaign();
    const [s1, s2] = [await world().session(campaign.id), await world().session(campaign.id)];
    const made = [
      heroAwardRecord(s1, { title: "Bravest", character_name: "Grog", order_index: 2 }),
      heroAwardRecord(s1, { title: "Wisest", description: "Knew the way to Whitestone.", character_name: "Pike", order_index: 0 }),
      heroAwardRecord(s2, { title: "Loudest", character_name: "Scanlan", order_index: 1 }),
    ];
    for (const award of made) await store.recaps.insertAward(award, null);
    const page = { page: 1, size: 10 };
    expect(await store.recaps.listAwards({ campaignId: campaign.id }, page)).toEqual({ rows: [...made].sort(inOrder), total: 3 });
    expect((await store.recaps.listAwards({ sessionId: s1.id }, page)).rows.map((a) => a.title)).toEqual(["Wisest", "Bravest"]);
    expect((await store.recaps.listAwards({ campaignId: campaign.id, search: "whitestone" }, page)).rows.map((a) => a.title)).toEqual(["Wisest"]);
    expect((await store.recaps.listAwards({ campaignId: campaign.id, search: "scan" }, page)).rows.map((a) => a.title)).toEqual(["Loudest"]);
    expect(await store.recaps.deleteAward(made[0]!.id)).toBe(true);
    expect(await store.recaps.deleteAward(made[0]!.id)).toBe(false);
    expect(await store.recaps.getAward(made[0]!.id)).toBeNull();
    expect(await store.recaps.awardCard(made[0]!.id)).toBeNull();
  });

  test("quotes and spotlights: every field round-trips, through insert and replace", async () => {
    const { store } = world();
    const session = await world().session();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("quote" as const, "spotlight" as const), recapEntryFields, recapEntryFields, async (type, first, second) => {
        const entry = recapEntryRecord(session, type, first);
        await store.recaps.insertEntry(entry);
        expect(await store.recaps.getEntry(entry.id)).toEqual(entry);
        const replaced = { ...entry, ...second, updated_at: at(6_000) };
        await store.recaps.replaceEntry(replaced);
        expect(await store.recaps.getEntry(entry.id)).toEqual(replaced);
      }),
      DB_RUNS,
    );
  });

  test("quotes and spotlights are listed apart, in order, filtered and searched; delete", async () => {
    const { store } = world();
    const campaign = await world().otherCampaign();
    const [s1, s2] = [await world().session(campaign.id), await world().session(campaign.id)];
    const quotes = [
      recapEntryRecord(s1, "quote", { text: "Is it a mimic?", speaker: "Sam", order_index: 1 }),
      recapEntryRecord(s1, "quote", { text: "I rage!", speaker: "Travis", order_index: 0 }),
      recapEntryRecord(s2, "quote", { text: "Bidet.", speaker: "Sam", order_index: 0 }),
    ];
    const spotlight = recapEntryRecord(s1, "spotlight", { title: "Scanlan's song", description: "Sung by Sam", order_index: 0 });
    for (const entry of [...quotes, spotlight]) await store.recaps.insertEntry(entry);
    const page = { page: 1, size: 10 };
    expect(await store.recaps.listEntries("quote", { campaignId: campaign.id }, page)).toEqual({ rows: [...quotes].sort(inOrder), total: 3 });
    expect(await store.recaps.listEntries("spotlight", { campaignId: campaign.id }, page)).toEqual({ rows: [spotlight], total: 1 });
    expect((await store.recaps.listEntries("quote", { sessionId: s1.id }, page)).rows.map((q) => q.text)).toEqual(["I rage!", "Is it a mimic?"]);
    expect((await store.recaps.listEntries("quote", { campaignId: campaign.id, search: "sam" }, page)).rows.map((q) => q.text).sort()).toEqual(["Bidet.", "Is it a mimic?"]);
    expect((await store.recaps.listEntries("spotlight", { campaignId: campaign.id, search: "SONG" }, page)).total).toBe(1);
    expect(await store.recaps.deleteEntry(spotlight.id)).toBe(true);
    expect(await store.recaps.deleteEntry(spotlight.id)).toBe(false);
    expect(await store.recaps.getEntry(spotlight.id)).toBeNull();
  });

  test("pipelines: one per session and source, made on first use; deleting the session removes its cards", async () => {
    const { store, campaign } = world();
    const session = await world().session();
    const make = (recap_set_id: string) => () => ({ id: newId(), campaign_id: campaign.id, session_id: session.id, source: "import", recap_set_id, created_at: at(1_000) });
    const first = await store.recaps.pipeline(campaign.id, session.id, "import", make("set-1"));
    expect(first).toMatchObject({ campaign_id: campaign.id, session_id: session.id, source: "import", recap_set_id: "set-1", created_at: at(1_000) });
    expect(await store.recaps.pipeline(campaign.id, session.id, "import", make("set-2"))).toEqual(first);
    await store.recaps.pipeline(campaign.id, session.id, "manual", make("set-3"));
    expect(await store.recaps.countPipelines(session.id)).toBe(2);

    const award = heroAwardRecord(session);
    const quote = recapEntryRecord(session, "quote", { pipeline_id: first.id, recap_set_id: "set-1" });
    await store.recaps.insertAward(award, new Uint8Array([1, 2, 3]));
    await store.recaps.insertEntry(quote);
    expect(await store.sessions.delete(session.id)).toBe(true);
    expect(await store.recaps.getAward(award.id)).toBeNull();
    expect(await store.recaps.getEntry(quote.id)).toBeNull();
    expect(await store.recaps.countPipelines(session.id)).toBe(0);
  });
});
