// Migration 0005 on a database written before it: the owner rows are repaired, then enforced.
import { describe, expect, test } from "bun:test";
import { applyMigrations } from "../../adapters/sql/migrate.ts";
import { loadMigrations } from "../../infra/container.ts";
import { forEachBackend } from "../support/backends.ts";

await forEachBackend("migration 0005", (backend) => {
  test("former owners become admins, every owner's membership carries owner, a second owner row is refused", async () => {
    const { db, close } = await backend.openUnmigrated();
    try {
      const all = loadMigrations();
      await applyMigrations(db, all.filter((m) => m.version < "0005"));
      const t = "2026-01-01T00:00:00Z";
      for (const user of ["alice", "bob", "carol", "dan"])
        await db.query(`insert into users (id, name, email, role, created_at) values ($1, $1, $1 || '@x.test', 'user', $2)`, [user, t]);
      // c1: created by alice, handed to bob, then to carol (the old code left bob with owner).
      // c2: owned by dan, who has no membership row at all.
      await db.query(`insert into campaigns (id, title, owner_id, created_at) values ('c1', 'One', 'carol', $1), ('c2', 'Two', 'dan', $1)`, [t]);
      await db.query(
        `insert into campaign_members (campaign_id, user_id, roles, created_at) values
           ('c1', 'alice', '["player","admin"]', $1), ('c1', 'bob', '["owner","admin"]', $1),
           ('c1', 'carol', '["owner"]', $1), ('c2', 'alice', '["owner","viewer"]', $1)`,
        [t],
      );
      expect(await applyMigrations(db, all)).toEqual(all.filter((m) => m.version >= "0005").map((m) => m.version));
      const rows = await db.query<{ campaign_id: string; user_id: string; roles: string[] }>(
        `select campaign_id, user_id, roles from campaign_members order by campaign_id, user_id`,
      );
      expect(rows).toEqual([
        { campaign_id: "c1", user_id: "alice", roles: ["player", "admin"] },
        { campaign_id: "c1", user_id: "bob", roles: ["admin"] },
        { campaign_id: "c1", user_id: "carol", roles: ["owner"] },
        { campaign_id: "c2", user_id: "alice", roles: ["viewer", "admin"] },
        { campaign_id: "c2", user_id: "dan", roles: ["owner"] },
      ]);
      const second = db.query(`update campaign_members set roles = '["owner"]' where campaign_id = 'c1' and user_id = 'alice'`);
      await expect(second).rejects.toMatchObject({ code: "23505" });
    } finally {
      await close();
    }
  });
});
