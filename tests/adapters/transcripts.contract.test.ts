// TranscriptRepository: a session's transcript record and its utterances, in order, on every backend.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { contractSuite, DB_RUNS, transcriptFields, transcriptRecord, utterances } from "../support/records.ts";

await contractSuite("transcripts", (world) => {
  test("a record round-trips every field; a second put replaces it; a missing one is null", async () => {
    const { store } = world();
    await fc.assert(
      fc.asyncProperty(transcriptFields, transcriptFields, async (first, second) => {
        const session = await world().session();
        const record = transcriptRecord(session, first);
        await store.transcripts.put(record);
        expect(await store.transcripts.get(session.id)).toEqual(record);
        const replaced = transcriptRecord(session, { ...second, created_at: "2026-02-01T00:00:00.000Z" });
        await store.transcripts.put(replaced);
        expect(await store.transcripts.get(session.id)).toEqual(replaced);
      }),
      DB_RUNS,
    );
    expect(await store.transcripts.get((await world().session()).id)).toBeNull();
  });

  test("utterances appended in pieces read back in order, any window of them", async () => {
    const { store } = world();
    await fc.assert(
      fc.asyncProperty(utterances(), fc.nat(5), fc.nat(35), fc.integer({ min: 1, max: 40 }), async (all, cut, from, limit) => {
        const session = await world().session();
        // Appended in two pieces, as an import streams them.
        const split = Math.min(cut, all.length);
        await store.transcripts.append(session.id, all.slice(0, split));
        await store.transcripts.append(session.id, all.slice(split));
        expect(await store.transcripts.utterances(session.id, from, limit)).toEqual(all.filter((u) => u.position >= from).slice(0, limit));
      }),
      DB_RUNS,
    );
  });

  test("clear removes the utterances and keeps the record; delete removes both; other sessions keep theirs", async () => {
    const { store } = world();
    const [session, neighbour] = [await world().session(), await world().session()];
    const lines = [
      { position: 0, speaker_label: "Matt", text: "Welcome.", start_s: 0, end_s: 1.5 },
      { position: 1, speaker_label: "Laura", text: "Hi!", start_s: 1.5, end_s: 2 },
    ];
    for (const s of [session, neighbour]) {
      await store.transcripts.put(transcriptRecord(s));
      await store.transcripts.append(s.id, lines);
    }
    await store.transcripts.clear(session.id);
    expect(await store.transcripts.utterances(session.id, 0, 10)).toEqual([]);
    expect(await store.transcripts.get(session.id)).toEqual(transcriptRecord(session));
    await store.transcripts.delete(session.id);
    expect(await store.transcripts.get(session.id)).toBeNull();
    expect(await store.transcripts.utterances(neighbour.id, 0, 10)).toEqual(lines);
    expect(await store.transcripts.get(neighbour.id)).toEqual(transcriptRecord(neighbour));
  });

  test("deleting the session takes its transcript with it", async () => {
    const { store } = world();
    const session = await world().session();
    await store.transcripts.put(transcriptRecord(session));
    await store.transcripts.append(session.id, [{ position: 0, speaker_label: "Sam", text: "Song.", start_s: 0, end_s: 1 }]);
    expect(await store.sessions.delete(session.id)).toBe(true);
    expect(await store.transcripts.get(session.id)).toBeNull();
    expect(await store.transcripts.utterances(session.id, 0, 10)).toEqual([]);
  });
});
