// The webhook dispatcher is woken when a change commits in a campaign with a webhook (NOTIFY from
// migration 0014), so a delivery does not wait for the poll; campaigns without webhooks notify nobody.
import { expect, test } from "bun:test";
import { parseConfig } from "../../infra/config.ts";
import { webhookSettings } from "../../infra/container.ts";
import { startWebhookDispatcher } from "../../infra/worker.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessService } from "../support/inprocess.ts";

await forEachBackend("webhook dispatcher woken at commit", (backend) => {
  test("a change reaches the receiver at once although the poll is a minute away", async () => {
    const opened = await backend.open();
    const service = await inProcessService(opened.db);
    const got: { type: string; at: number }[] = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        got.push({ type: (await request.json()).type, at: Date.now() });
        return new Response(null, { status: 204 });
      },
    });
    const dispatcher = startWebhookDispatcher(service.deps, { pollMs: 60_000 });
    let notified = 0;
    const unlisten = await opened.db.listen("cms_webhooks", () => {
      notified++;
      dispatcher.wake();
    });
    try {
      service.deps.webhooks = webhookSettings(parseConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }));
      const call = service.as().must;
      const quiet = await call("POST", "/v1/campaigns", { title: "No webhooks" });
      const watched = await call("POST", "/v1/campaigns", { title: "Watched" });
      await call("POST", `/v1/campaigns/${watched.id}/webhooks`, { url: `http://127.0.0.1:${receiver.port}/hook` });

      await call("POST", "/v1/characters", { campaign_id: quiet.id, character_name: "Nobody listens" });
      await Bun.sleep(300);
      expect(notified).toBe(0);
      expect(got).toEqual([]);

      const written = Date.now();
      await call("POST", "/v1/characters", { campaign_id: watched.id, character_name: "Vex" });
      for (let waited = 0; !got.length && waited < 10_000; waited += 10) await Bun.sleep(10);
      expect(got.map((g) => g.type)).toEqual(["character.create"]);
      expect(notified).toBe(1);
      // Well under the minute-long poll: the commit woke the dispatcher.
      expect(got[0]!.at - written).toBeLessThan(5_000);
    } finally {
      await unlisten();
      await dispatcher.stop();
      receiver.stop(true);
      await service.close();
      await opened.close();
    }
  });
});
