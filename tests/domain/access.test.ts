import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ACCESS_LEVELS, accessLevelOf, grants, MEMBER_ROLES, primaryRole, type AccessLevel } from "../../domain/access.ts";

const roleSets = fc.uniqueArray(fc.constantFrom(...MEMBER_ROLES, "gm", "unknown"), { maxLength: 4 });
const standing = fc.record({ isOwner: fc.boolean(), roles: roleSets, campaignIsPublic: fc.boolean() });

describe("campaign access levels", () => {
  test("the table of DESIGN section 7", () => {
    const level = (roles: string[], isOwner = false, campaignIsPublic = false) => accessLevelOf({ isOwner, roles, campaignIsPublic });
    expect(level([], true)).toBe("owner");
    expect(level(["admin"])).toBe("manage");
    expect(level(["player"])).toBe("write");
    expect(level(["player", "admin"])).toBe("manage");
    expect(level(["viewer"])).toBe("read");
    expect(level([])).toBe("none");
    expect(level([], false, true)).toBe("read");
    // Only owner_id makes the owner: a stale owner role (a former owner) is worth admin, no more.
    expect(level(["owner"])).toBe("manage");
    expect(level(["owner", "admin"])).toBe("manage");
    expect(level(["owner"], true)).toBe("owner");
  });

  test("grants: a level grants exactly the levels at or below it (DESIGN section 7)", () => {
    // Written out: held level -> the levels it grants.
    const table: Record<AccessLevel, AccessLevel[]> = {
      none: ["none"],
      read: ["none", "read"],
      write: ["none", "read", "write"],
      manage: ["none", "read", "write", "manage"],
      owner: ["none", "read", "write", "manage", "owner"],
    };
    expect([...ACCESS_LEVELS].sort() as string[]).toEqual(Object.keys(table).sort());
    for (const held of ACCESS_LEVELS)
      for (const needed of ACCESS_LEVELS) expect({ held, needed, granted: grants(held, needed) }).toEqual({ held, needed, granted: table[held].includes(needed) });
  });

  test("more roles never mean less access", () => {
    fc.assert(
      fc.property(standing, fc.constantFrom(...MEMBER_ROLES), (s, extra) => {
        const before = accessLevelOf(s);
        const after = accessLevelOf({ ...s, roles: [...s.roles, extra] });
        expect(grants(after, before)).toBe(true);
      }),
    );
  });

  test("making a campaign public never takes access away, and gives non-members read only", () => {
    fc.assert(
      fc.property(standing, (s) => {
        const privateLevel = accessLevelOf({ ...s, campaignIsPublic: false });
        const publicLevel = accessLevelOf({ ...s, campaignIsPublic: true });
        expect(grants(publicLevel, privateLevel)).toBe(true);
        if (privateLevel === "none") expect(publicLevel).toBe("read");
      }),
    );
  });

  test("only the owner may do owner things; any member may read", () => {
    fc.assert(
      fc.property(standing, (s) => {
        const level: AccessLevel = accessLevelOf(s);
        expect(grants(level, "owner")).toBe(s.isOwner);
        const isMember = s.isOwner || s.roles.some((role) => (MEMBER_ROLES as readonly string[]).includes(role));
        if (isMember) expect(grants(level, "read")).toBe(true);
      }),
    );
  });

  test("the primary role is the strongest held", () => {
    expect(primaryRole(false, ["player", "admin"])).toBe("admin");
    expect(primaryRole(true, ["viewer"])).toBe("owner");
    expect(primaryRole(false, ["gm"])).toBeNull();
    expect(primaryRole(false, ["owner", "player"])).toBe("admin");
  });
});
