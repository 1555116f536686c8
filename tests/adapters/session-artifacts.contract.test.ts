// ArtifactRepository, both of its stores: cast analyses and handouts, one per session, on every backend.
import { expect, test } from "bun:test";
import fc from "fast-check";
import { artifactRecord, at, contractSuite, DB_RUNS, handoutBody, jsonObject } from "../support/records.ts";

await contractSuite("session artifacts", (world) => {
  const stores = [
    { name: "cast analyses", of: () => world().store.castAnalyses as any, body: jsonObject },
    { name: "handouts", of: () => world().store.handouts as any, body: handoutBody as fc.Arbitrary<unknown> },
  ];
  for (const { name, of, body } of stores) {
    test(`${name}: the body round-trips; a second put replaces body, source and updated_at, keeps id and created_at`, async () => {
      await fc.assert(
        fc.asyncProperty(body, body, async (first, second) => {
          const session = await world().session();
          const put = await of().put(artifactRecord(session, first));
          expect(put).toMatchObject({ session_id: session.id, campaign_id: session.campaign_id, body: first, source: "import", pdf_saved_at: null, pdf_page_count: null, created_at: at(), updated_at: null });
          expect(await of().get(session.id)).toEqual(put);
          const again = await of().put(artifactRecord(session, second, { source: "manual", created_at: at(5_000), updated_at: at(5_000) }));
          expect(again).toEqual({ ...put, body: second, source: "manual", updated_at: at(5_000) });
          expect(await of().get(session.id)).toEqual(again);
        }),
        DB_RUNS,
      );
    });

    test(`${name}: none is null; delete removes one session's only; deleting the session removes it`, async () => {
      const [a, b, c] = [await world().session(), await world().session(), await world().session()];
      expect(await of().get(a.id)).toBeNull();
      const sample = fc.sample(body, { numRuns: 1, seed: 7 })[0];
      for (const s of [a, b, c]) await of().put(artifactRecord(s, sample));
      await of().delete(a.id);
      expect(await of().get(a.id)).toBeNull();
      expect((await of().get(b.id))?.body).toEqual(sample);
      expect(await world().store.sessions.delete(c.id)).toBe(true);
      expect(await of().get(c.id)).toBeNull();
    });
  }
});
