// The acting user reaches the feed's triggers through a transaction-local setting (cms.actor_id),
// so a statement that may write runs, for a caller with an actor, in a transaction of its own that
// sets it first. A WITH statement without a data-modifying part is a read and runs alone (issue 15:
// wrapped, every list search paid begin, the setting and commit: three round trips for nothing).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SqlDatabase } from "../../adapters/sql/database.ts";
import { asActor } from "../../adapters/shared/actor.ts";
import { forEachBackend } from "../support/backends.ts";

const ACTOR = "01a2523d-0000-7000-8000-00000000a11e";
/** The setting as the statement saw it: the actor's id inside the wrapping transaction, else null or "". */
const SEEN = `current_setting('cms.actor_id', true)`;

await forEachBackend("statements run as an actor", (backend) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await backend.open());
    await db.exec(`create table actor_probe (n int, actor text)`);
  });
  afterAll(() => close());

  const seen = async (text: string) => (await asActor(ACTOR, () => db.query<{ actor: string | null }>(text)))[0]?.actor ?? null;

  test("writes, and WITH statements with a data-modifying part, see the actor", async () => {
    expect(await seen(`insert into actor_probe (n, actor) values (1, ${SEEN}) returning actor`)).toBe(ACTOR);
    expect(await seen(`update actor_probe set actor = ${SEEN} || '!' where n = 1 returning actor`)).toBe(`${ACTOR}!`);
    expect(await seen(`with w as (insert into actor_probe (n, actor) values (2, ${SEEN}) returning actor) select actor from w`)).toBe(ACTOR);
    expect(await seen(`with w as (update actor_probe set actor = ${SEEN} where n = 2 returning actor) select actor from w`)).toBe(ACTOR);
    expect(await seen(`with w as (update actor_probe as p set actor = ${SEEN} where p.n = 2 returning actor) select actor from w`)).toBe(ACTOR);
    expect(await seen(`with w as (update actor_probe p\n  set actor = ${SEEN} where p.n = 2 returning actor) select actor from w`)).toBe(ACTOR);
    expect(await seen(`with w as (delete from actor_probe where n = 2 returning ${SEEN} as actor) select actor from w`)).toBe(ACTOR);
    const rows = await db.query(`select n, actor from actor_probe order by n`);
    expect(rows).toEqual([{ n: 1, actor: `${ACTOR}!` }]);
  });

  test("a WITH read runs alone, outside any transaction the actor's setting opens", async () => {
    // A writing verb as a name (characters.merge, updated_at) or a row lock does not make a read a write.
    for (const read of [
      `with w as materialized (select 1 as updated_at) select ${SEEN} as actor from w`,
      `with deleted as (select 1 as n) select ${SEEN} as actor from deleted`,
      `with w as (select true as merge, 1 as "insert", 2 as "update", 3 as "delete") select ${SEEN} as actor from w where w.merge`,
      `with w as (select n from actor_probe for update) select ${SEEN} as actor`,
      `  WITH w AS (select 2) select ${SEEN} as actor from w`,
    ])
      expect(["", null]).toContain(await seen(read));
    // A plain select never was wrapped.
    expect(["", null]).toContain(await seen(`select ${SEEN} as actor`));
  });
});
