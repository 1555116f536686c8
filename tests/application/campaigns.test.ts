// Use cases against a real (in-memory) record store: what a new campaign starts with, and atomicity.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { campaignAccess } from "../../application/access.ts";
import { createCampaign, deleteCampaign } from "../../application/campaigns.ts";
import { issueKey } from "../../application/identity.ts";
import type { Caller } from "../../domain/identity.ts";
import type { Repositories } from "../../ports/records.ts";
import { inProcessService } from "../support/inprocess.ts";
import { typedClient } from "../support/typed.ts";

let service: Awaited<ReturnType<typeof inProcessService>>;
let caller: Caller;

beforeAll(async () => {
  service = await inProcessService();
  const user = await service.deps.records.users.insert({ id: service.deps.ids.next(), name: "GM", email: "gm@example.test", role: "user", created_at: new Date().toISOString() });
  caller = { userId: user!.id, keyId: "k", scopes: [], profile: "developer" };
});
afterAll(() => service?.close());

describe("campaign creation bootstrap", () => {
  test("creator joins as owner, player and admin; a GM speaker, Character Arc defaults and field definitions exist", async () => {
    const created = await createCampaign(service.deps, caller, { title: "Bootstrapped" });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    const id = created.value.id;
    const { records } = service.deps;
    // docs/decisions.md: "The creator joins as `owner, player, admin`".
    expect((await records.members.get(id, caller.userId))?.roles).toEqual(["owner", "player", "admin"]);
    const speakers = await records.speakers.list(id);
    expect(speakers).toHaveLength(1);
    expect(speakers[0]).toMatchObject({ name: "GM", user_id: caller.userId, roles: ["gm"] });
    expect(await records.settings.getCharacterArc(id)).toEqual({
      enabled: true,
      stages: ["Introduction", "Motivation", "Conflict", "Turning Point", "Resolution"],
      track: ["PC"],
    });
    const definitions = await records.settings.listFieldDefinitions(id);
    const keysOf = (kind: string) => definitions.filter((d) => d.entity_type === kind).sort((a, b) => a.position - b.position).map((d) => d.key);
    expect(keysOf("character")).toEqual(["ancestry", "class", "level", "alignment", "status"]);
    expect(keysOf("faction")).toEqual(["leader", "goals", "disposition"]);
    expect(keysOf("location")).toEqual(["region", "population", "ruler"]);
    expect(keysOf("item")).toEqual(["rarity", "attunement", "holder"]);
    expect(definitions).toHaveLength(14);
  });

  test("a failure part-way leaves nothing behind", async () => {
    const { records } = service.deps;
    const original = records.withTransaction;
    // The record store rolls back when any step throws: simulate a failing last step.
    records.withTransaction = ((work: (tx: Repositories) => Promise<unknown>) =>
      original.call(records, (tx) =>
        work({ ...tx, settings: { ...tx.settings, insertFieldDefinitions: async () => { throw new Error("disk full"); } } }),
      )) as typeof original;
    try {
      const before = await records.campaigns.listVisibleTo(caller.userId, {}, { page: 1, size: 100 });
      await expect(createCampaign(service.deps, caller, { title: "Half" })).rejects.toThrow("disk full");
      const after = await records.campaigns.listVisibleTo(caller.userId, {}, { page: 1, size: 100 });
      expect(after.total).toBe(before.total);
    } finally {
      records.withTransaction = original;
    }
  });

  test("over the table's typed client: the creator reads the new campaign back, its stats start at zero", async () => {
    const key = await service.deps.records.users.insert({ id: service.deps.ids.next(), name: "Typed", email: "typed@example.test", role: "user", created_at: new Date().toISOString() });
    const issued = await issueKey(service.deps, { ...caller, scopes: ["product_write"] }, key!.id);
    if (!issued.ok) throw new Error("no key");
    const call = typedClient(service.app, issued.value.key);
    const created = await call("createCampaign", { body: { title: "Typed" } });
    if (!created.ok) throw new Error(`create: ${created.status}`);
    const read = await call("getCampaign", { path: { campaign_id: created.body.id } });
    expect(read.ok && read.body.title).toBe("Typed");
    const stats = await call("getCampaignStats", { path: { campaign_id: created.body.id } });
    expect(stats.ok && [stats.body.characters, stats.body.sessions, stats.body.factions]).toEqual([0, 0, 0]);
  });

  test("deleting removes the campaign's bootstrap rows too", async () => {
    const created = await createCampaign(service.deps, caller, { title: "Short-lived" });
    if (!created.ok) throw new Error("create failed");
    // The access invoke() would hand over for the declared level (owner).
    const access = await campaignAccess(service.deps, caller, created.value.id, "owner");
    if (!access.ok) throw new Error("no owner access");
    expect((await deleteCampaign(service.deps, caller, access.value)).ok).toBe(true);
    expect(await service.deps.records.speakers.list(created.value.id)).toEqual([]);
    expect(await service.deps.records.settings.listFieldDefinitions(created.value.id)).toEqual([]);
    expect(await service.deps.records.members.get(created.value.id, caller.userId)).toBeNull();
  });
});
