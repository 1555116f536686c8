// Issue 15: unfiltered list totals come from per-campaign counters kept by triggers (migration 0015).
// They must stay exactly the count of the rows: after creates, deletes, updates that move a record
// in or out of a counted subset, concurrent creates, and the campaign's deletion.
import { expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import type { Character } from "../../domain/characters.ts";
import type { JournalEntry } from "../../domain/journals.ts";
import type { RecordStore } from "../../ports/records.ts";
import { forEachBackend, withStore } from "../support/backends.ts";
import { at, beatRecord, campaignRecord, characterRecord, heroAwardRecord, momentRecord, newId, recapEntryRecord, sessionRecord } from "../support/records.ts";

const page = { page: 1, size: 5 };

const characterOf = (campaignId: string, name: string, approved = true, offset = 0): Character =>
  characterRecord(campaignId, { character_name: name, approved, created_at: at(offset) });

const entryOf = (campaignId: string, author: string, isPublic: boolean): JournalEntry => ({
  id: newId(), campaign_id: campaignId, title: "t", summary: null, content: "", content_rich: null, content_metadata: null, tags: [], token_count: 1,
  cover_image: null, is_pinned: false, is_public: isPublic, status: "draft", published_at: null, archived_at: null, folder_id: null,
  author_id: author, last_edited_by_id: null, created_at: at(), updated_at: null,
});

await forEachBackend("list totals from counters", (backend) => {
  let db: SqlDatabase;
  let store: RecordStore;
  let alice: string;
  let bob: string;

  const count = async (sql: string, params: unknown[]) => Number((await db.query(`select count(*)::int as n ${sql}`, params))[0]!.n);
  const newCampaign = async (title: string) => {
    const campaign = campaignRecord(alice, { title });
    await store.campaigns.insert(campaign);
    return campaign.id;
  };

  withStore(backend, async (opened) => {
    ({ db, store } = opened);
    alice = (await store.users.insert({ id: newId(), name: "Alice", email: "alice@example.test", role: "user", created_at: at() }))!.id;
    bob = (await store.users.insert({ id: newId(), name: "Bob", email: "bob@example.test", role: "user", created_at: at() }))!.id;
  });

  test("characters: totals follow creates, deletes and approval changes; another campaign is not counted", async () => {
    const campaign = await newCampaign("Counted");
    const other = await newCampaign("Other");
    await store.characters.insert(characterOf(other, "Elsewhere"));
    const made = [characterOf(campaign, "A", true, 1), characterOf(campaign, "B", false, 2), characterOf(campaign, "C", true, 3), characterOf(campaign, "D", true, 4)];
    for (const c of made) await store.characters.insert(c);
    const totals = async () => [
      (await store.characters.list(campaign, { approvedOnly: false }, page)).total,
      (await store.characters.list(campaign, { approvedOnly: true }, page)).total,
    ];
    expect(await totals()).toEqual([4, 3]);
    await store.characters.replace({ ...made[1]!, approved: true });
    expect(await totals()).toEqual([4, 4]);
    await store.characters.replace({ ...made[0]!, approved: false, description: "changed" });
    await store.characters.replace({ ...made[2]!, description: "only the text changed" });
    expect(await totals()).toEqual([4, 3]);
    expect(await store.characters.delete(made[0]!.id)).toBe(true);
    expect(await store.characters.delete(made[3]!.id)).toBe(true);
    expect(await totals()).toEqual([2, 2]);
    expect(await totals()).toEqual([await count(`from characters where campaign_id = $1`, [campaign]), await count(`from characters where campaign_id = $1 and approved`, [campaign])]);
    // The first page is still newest first, and a page past the end still tells the total.
    expect((await store.characters.list(campaign, { approvedOnly: false }, page)).rows.map((c) => c.character_name)).toEqual(["C", "B"]);
    expect(await store.characters.list(campaign, { approvedOnly: false }, { page: 3, size: 5 })).toEqual({ rows: [], total: 2 });
    expect((await store.characters.list(other, { approvedOnly: false }, page)).total).toBe(1);
  });

  test("entities, beats, moments and sessions: each kind counted apart, and sessions numbered from the count", async () => {
    const campaign = await newCampaign("Kinds");
    const entity = (kind: "faction" | "location" | "item", name: string) => ({
      id: newId(), campaign_id: campaign, kind, name, aliases: [], description: null, type: null, image: null, tcg_image: null, parent_id: null, merge: false, created_at: at(), updated_at: null,
    });
    for (const [kind, n] of [["faction", 1], ["location", 3], ["item", 2]] as const) for (let i = 0; i < n; i++) await store.entities.insert(entity(kind, `${kind} ${i}`));
    expect((await store.entities.list(campaign, "location", {}, page)).total).toBe(3);
    expect((await store.entities.list(campaign, "item", {}, page)).total).toBe(2);
    expect((await store.entities.list(campaign, "faction", {}, page)).total).toBe(1);
    for (let i = 0; i < 3; i++) await store.beats.insert(beatRecord(campaign, { index: i }));
    const moment = momentRecord(campaign);
    await store.moments.insert(moment);
    await store.moments.insert(momentRecord(campaign));
    expect((await store.beats.listByCampaign(campaign, page)).total).toBe(3);
    expect((await store.moments.list({ campaignId: campaign }, page)).total).toBe(2);
    await store.moments.delete(moment.id);
    expect((await store.moments.list({ campaignId: campaign }, page)).total).toBe(1);

    const sessions = [0, 1, 2, 3, 4, 5, 6].map((day) => sessionRecord(campaign, { session_date: at(day * 86_400_000), created_at: at(day) }));
    for (const s of sessions) await store.sessions.insert(s);
    const plain = await store.sessions.list(campaign, {}, { page: 2, size: 3 });
    // Newest first; number 7 is the latest: the second page of three holds numbers 4, 3, 2.
    expect(plain.total).toBe(7);
    expect(plain.rows.map((s) => [s.id, s.index])).toEqual([[sessions[3]!.id, 4], [sessions[2]!.id, 3], [sessions[1]!.id, 2]]);
    // The filtered path numbers over the whole campaign too: the same numbers.
    const filtered = await store.sessions.list(campaign, { type: sessions[0]!.type }, { page: 2, size: 3 });
    expect(filtered.rows.map((s) => [s.id, s.index])).toEqual(plain.rows.map((s) => [s.id, s.index]));
  });

  test("journals and journal links: a viewer's total counts what they may see", async () => {
    const campaign = await newCampaign("Journals");
    const open = entryOf(campaign, alice, true);
    const mine = entryOf(campaign, alice, false);
    const bobs = entryOf(campaign, bob, false);
    const sharedWithAlice = entryOf(campaign, bob, false);
    for (const e of [open, mine, bobs, sharedWithAlice]) await store.journals.insert(e);
    await store.journals.putShare(sharedWithAlice.id, { user_id: alice, level: "view" }, at());
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(3);
    expect((await store.journals.listVisible(campaign, bob, {}, page)).total).toBe(3);
    expect((await store.journals.listVisible(campaign, newId(), {}, page)).total).toBe(1);
    await store.journals.replace({ ...bobs, is_public: true });
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(4);
    expect((await store.journals.listVisible(campaign, alice, {}, page)).rows.length).toBe(4);
    // Each author's private entries are counted apart (migration 0024): adding, publishing and
    // deleting entries of Alice's moves her total and, once public, everyone's; then back as before.
    const draft = entryOf(campaign, alice, false);
    const scrap = entryOf(campaign, alice, false);
    await store.journals.insert(draft);
    await store.journals.insert(scrap);
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(6);
    expect((await store.journals.listVisible(campaign, bob, {}, page)).total).toBe(3);
    expect(await store.journals.delete(scrap.id)).toBe(true);
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(5);
    await store.journals.replace({ ...draft, is_public: true });
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(5);
    expect((await store.journals.listVisible(campaign, bob, {}, page)).total).toBe(4);
    expect((await store.journals.listVisible(campaign, newId(), {}, page)).total).toBe(3);
    expect(await store.journals.delete(draft.id)).toBe(true);
    expect((await store.journals.listVisible(campaign, alice, {}, page)).total).toBe(4);
    expect((await store.journals.listVisible(campaign, alice, {}, page)).rows.length).toBe(4);
    expect((await store.journals.listVisible(campaign, bob, {}, page)).total).toBe(3);

    const link = (from_type: "Character" | "Journal", from_id: string, alias: string) => ({
      id: newId(), campaign_id: campaign, from_id, from_type, to_id: "t", to_type: "Character" as const, alias, alias_key: alias, origin: "api" as const, created_at: at(),
    });
    await store.links.upsert(link("Character", "c1", "a"));
    await store.links.upsert(link("Journal", mine.id, "b"));
    await store.links.upsert(link("Journal", open.id, "c"));
    expect((await store.links.list(campaign, {}, page, null)).total).toBe(3);
    expect((await store.links.list(campaign, {}, page, alice)).total).toBe(3);
    expect((await store.links.list(campaign, {}, page, bob)).total).toBe(2);
    expect((await store.links.list(campaign, {}, page, bob)).rows.length).toBe(2);
  });

  test("hero awards, quotes and spotlights: totals follow creates, deletes, a session's deletion and a many-row insert", async () => {
    const campaign = await newCampaign("Cards");
    const other = await newCampaign("Other cards");
    const [s1, s2] = [sessionRecord(campaign), sessionRecord(campaign)];
    const elsewhere = sessionRecord(other);
    for (const s of [s1!, s2!, elsewhere]) await store.sessions.insert(s);
    const awards = [0, 1, 2].map((i) => heroAwardRecord(i < 2 ? s1! : s2!, { title: `Award ${i}`, order_index: 2 - i, created_at: at(i) }));
    for (const a of awards) await store.recaps.insertAward(a, null);
    await store.recaps.insertAward(heroAwardRecord(elsewhere), new Uint8Array([1, 2, 3]));
    for (const s of [s1!, s2!]) await store.recaps.insertEntry(recapEntryRecord(s, "quote"));
    await store.recaps.insertEntry(recapEntryRecord(s1!, "spotlight"));
    const totals = async () => [
      (await store.recaps.listAwards({ campaignId: campaign }, page)).total,
      (await store.recaps.listEntries("quote", { campaignId: campaign }, page)).total,
      (await store.recaps.listEntries("spotlight", { campaignId: campaign }, page)).total,
    ];
    expect(await totals()).toEqual([3, 2, 1]);
    // In the list's order (order_index, then age), from the index that holds that order.
    expect((await store.recaps.listAwards({ campaignId: campaign }, page)).rows.map((a) => a.title)).toEqual(["Award 2", "Award 1", "Award 0"]);
    expect((await store.recaps.listAwards({ campaignId: campaign, sessionId: s1!.id }, page)).total).toBe(2);
    expect(await store.recaps.deleteAward(awards[0]!.id)).toBe(true);
    expect(await totals()).toEqual([2, 2, 1]);
    await store.sessions.delete(s1!.id); // takes its award, quote and spotlight with it
    expect(await totals()).toEqual([1, 1, 0]);
    // One statement writing many cards (as an import does) counts them all, in both campaigns.
    await db.query(
      `insert into hero_awards (id, campaign_id, session_id, title, description, created_at)
       select 'bulk-' || g || '-' || s.id, s.campaign_id, s.id, 'Bulk ' || g, 'd', now() from generate_series(1, 25) g, sessions s where s.id in ($1, $2)`,
      [s2!.id, elsewhere.id],
    );
    expect(await totals()).toEqual([26, 1, 0]);
    expect((await store.recaps.listAwards({ campaignId: other }, page)).total).toBe(26);
    expect(await totals()).toEqual([
      await count(`from hero_awards where campaign_id = $1`, [campaign]),
      await count(`from recap_entries where campaign_id = $1 and entry_type = 'quote'`, [campaign]),
      await count(`from recap_entries where campaign_id = $1 and entry_type = 'spotlight'`, [campaign]),
    ]);
    expect(await store.recaps.listAwards({ campaignId: campaign }, { page: 9, size: 5 })).toEqual({ rows: [], total: 26 });
  });

  test("list search: exact name, then names that start with it by name, then other matches newest first; exact totals", async () => {
    const campaign = await newCampaign("Searched");
    const other = await newCampaign("Searched elsewhere");
    await store.characters.insert(characterOf(other, "Radr"));
    const made = [
      characterOf(campaign, "Radrabel Thorlasqua", true, 1),
      characterOf(campaign, "Orin Radrick", true, 2),
      characterOf(campaign, "Radr", true, 3),
      { ...characterOf(campaign, "Mira", true, 4), character_aliases: ["Radrina"] },
      characterOf(campaign, "radra Voss", true, 5),
      characterOf(campaign, "Bela Stone", true, 6),
      characterOf(campaign, "Radrabel Aster", false, 7),
    ];
    for (const c of made) await store.characters.insert(c);
    const names = async (search: string, approvedOnly = false, at = { page: 1, size: 20 }) => {
      const { rows, total } = await store.characters.list(campaign, { approvedOnly, search }, at);
      return { names: rows.map((c) => c.character_name), total };
    };
    expect(await names("radr")).toEqual({ names: ["Radr", "radra Voss", "Radrabel Aster", "Radrabel Thorlasqua", "Mira", "Orin Radrick"], total: 6 });
    expect(await names("RADR", true)).toEqual({ names: ["Radr", "radra Voss", "Radrabel Thorlasqua", "Mira", "Orin Radrick"], total: 5 });
    // Pages cut across the tiers; past the end there are no rows and still the total.
    expect(await names("radr", false, { page: 2, size: 2 })).toEqual({ names: ["Radrabel Aster", "Radrabel Thorlasqua"], total: 6 });
    expect(await names("radr", false, { page: 3, size: 2 })).toEqual({ names: ["Mira", "Orin Radrick"], total: 6 });
    expect(await names("radr", false, { page: 4, size: 2 })).toEqual({ names: [], total: 6 });
    expect(await names("radrabel thor")).toEqual({ names: ["Radrabel Thorlasqua"], total: 1 });
    // No word starts with these: substring, then a misspelling by similarity.
    expect(await names("drab")).toEqual({ names: ["Radrabel Aster", "Radrabel Thorlasqua"], total: 2 });
    expect(await names("Thorlasqa")).toEqual({ names: ["Radrabel Thorlasqua"], total: 1 });
    // Totals follow creates and deletes.
    const added = characterOf(campaign, "Radrix", true, 8);
    await store.characters.insert(added);
    expect(await names("radr")).toEqual({ names: ["Radr", "radra Voss", "Radrabel Aster", "Radrabel Thorlasqua", "Radrix", "Mira", "Orin Radrick"], total: 7 });
    await store.characters.delete(made[2]!.id);
    await store.characters.delete(added.id);
    expect(await names("radr")).toEqual({ names: ["radra Voss", "Radrabel Aster", "Radrabel Thorlasqua", "Mira", "Orin Radrick"], total: 5 });

    const place = (name: string, offset: number) => ({
      id: newId(), campaign_id: campaign, kind: "location" as const, name, aliases: [], description: null, type: null, image: null, tcg_image: null, parent_id: null, merge: false, created_at: at(offset), updated_at: null,
    });
    for (const [i, name] of ["Greyskull Keep", "Old Grey Tower", "Grey Harbor", "Greenhollow"].entries()) await store.entities.insert(place(name, i));
    await store.entities.insert({ ...place("Grey Harbor", 9), kind: "item" });
    const { rows, total } = await store.entities.list(campaign, "location", { search: "grey" }, { page: 1, size: 20 });
    expect({ names: rows.map((e) => e.name), total }).toEqual({ names: ["Grey Harbor", "Greyskull Keep", "Old Grey Tower"], total: 3 });
  });

  test("concurrent creates in one campaign are all counted", async () => {
    const campaign = await newCampaign("Concurrent");
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.withTransaction(async (tx) => tx.characters.insert(characterOf(campaign, `N${i}`, i % 4 !== 0, i)))));
    expect((await store.characters.list(campaign, { approvedOnly: false }, page)).total).toBe(40);
    expect((await store.characters.list(campaign, { approvedOnly: true }, page)).total).toBe(30);
    const gone = (await store.characters.list(campaign, { approvedOnly: false }, { page: 1, size: 100 })).rows.slice(0, 15);
    await Promise.all(gone.map((c) => store.characters.delete(c.id)));
    expect((await store.characters.list(campaign, { approvedOnly: false }, page)).total).toBe(25);
    expect((await store.characters.list(campaign, { approvedOnly: true }, page)).total).toBe(await count(`from characters where campaign_id = $1 and approved`, [campaign]));
  });

  test("a campaign's deletion takes its counters with it; a campaign made after counts from zero", async () => {
    const campaign = await newCampaign("Doomed");
    for (let i = 0; i < 3; i++) await store.characters.insert(characterOf(campaign, `X${i}`));
    await store.beats.insert(beatRecord(campaign));
    // characters, characters:approved, characters:type:NPC, characters:approved:type:NPC (migration 0029), beats
    expect(await count(`from record_counts where campaign_id = $1`, [campaign])).toBe(5);
    expect(await store.campaigns.delete(campaign)).toBe(true);
    expect(await count(`from record_counts where campaign_id = $1`, [campaign])).toBe(0);
    const fresh = await newCampaign("Fresh");
    expect((await store.characters.list(fresh, { approvedOnly: false }, page)).total).toBe(0);
    expect(await store.campaigns.counts(fresh)).toMatchObject({ characters: 0, beats: 0 });
  });
});

// Issue 15, cross-type search ranks a bounded candidate set (search_candidates, migration 0015; search_ranked since 0028): with
// more matches than candidates, a title match still comes first, and journal visibility still holds.
await forEachBackend("cross-type search over many matches", (backend) => {
  let store: RecordStore;
  withStore(backend, (opened) => {
    ({ store } = opened);
  });

  test("a word in 450 bodies and one title: the title ranks first; a private entry stays hidden", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "O", email: "o@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Many" });
    await store.campaigns.insert(campaign);
    const doc = (doc_type: string, doc_id: string, title: string, body: string, visibility?: { author_id: string; is_public: boolean; shared_with: string[] }) =>
      store.search.upsert({ campaign_id: campaign.id, doc_type, doc_id, title, body, ...(visibility ? { visibility } : {}) }, at());
    for (let i = 0; i < 450; i++) await doc("characters", `c${String(i).padStart(3, "0")}`, `Person ${i}`, `A wayfarer of the roads, number ${i}.`);
    await doc("characters", "c999", "The Wayfarer", "Nobody knows.");
    await doc("journals", "j1", "Secret wayfarer notes", "hidden", { author_id: "someone-else", is_public: false, shared_with: [] });
    await doc("journals", "j2", "Open wayfarer notes", "shown", { author_id: "someone-else", is_public: true, shared_with: [] });
    const hits = await store.search.search(campaign.id, "wayfarer", ["characters", "journals"], 10, owner);
    expect(hits.get("characters")?.length).toBe(10);
    expect(hits.get("characters")?.[0]).toMatchObject({ doc_id: "c999", title: "The Wayfarer" });
    expect(hits.get("journals")?.map((h) => h.doc_id)).toEqual(["j2"]);
    // A rare word is found among the many.
    await doc("characters", "c500", "Person rare", "The last of Quillbrook.");
    expect((await store.search.search(campaign.id, "quillbrook", ["characters"], 10, owner)).get("characters")?.map((h) => h.doc_id)).toEqual(["c500"]);
  });

  test("a word common in a type's first documents and rare after: every match is a candidate, so the best is found", async () => {
    const owner = (await store.users.insert({ id: newId(), name: "P", email: "p@example.test", role: "user", created_at: at() }))!.id;
    const campaign = campaignRecord(owner, { title: "Skewed" });
    await store.campaigns.insert(campaign);
    const doc = (doc_id: string, title: string, body: string) => store.search.upsert({ campaign_id: campaign.id, doc_type: "locations", doc_id, title, body }, at());
    // The first 40 (the sample) all hold "lantern": the type looks common; the 800-document probe then
    // finds only those 40, fewer than the quota, so the text index is asked for the rest.
    for (let i = 0; i < 40; i++) await doc(`a${String(i).padStart(3, "0")}`, `Street ${i}`, "a lantern hangs here");
    for (let i = 0; i < 820; i++) await doc(`b${String(i).padStart(3, "0")}`, `Alley ${i}`, "dark and quiet");
    await doc("z1", "Far tower", "lantern lantern lantern, the lantern keeper's lantern");
    const hits = (await store.search.search(campaign.id, "lantern", ["locations"], 10, owner)).get("locations") ?? [];
    expect(hits.length).toBe(10);
    expect(hits[0]!.doc_id).toBe("z1");
  }, 30_000); // 861 documents written one by one, on a loaded machine
});
