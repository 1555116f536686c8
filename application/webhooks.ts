// Webhooks: endpoints a campaign's managers register, each delivered the campaign's change feed in
// order, signed, through a durable task (the endpoint row: cursor, lease, backoff, failures).
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import type { Change, WebhookDelivery, WebhookEndpoint } from "../ports/records.ts";
import type { WebhookSender } from "../ports/webhooks.ts";
import type { CampaignAccess } from "./access.ts";
import { nowIso, type Deps } from "./deps.ts";

export interface WebhookSettings {
  sender: WebhookSender;
  /** Failed attempts in a row after which an endpoint is disabled. */
  maxFailures: number;
  /** First retry delay; doubled per failure, at most an hour. */
  retryBaseMs: number;
  /** How long a claimed endpoint is left to one instance (longer than a delivery may take). */
  leaseMs: number;
}

export const MAX_RETRY_MS = 3_600_000;
export const MAX_WEBHOOKS_PER_CAMPAIGN = 20;

export type WebhookView = Omit<WebhookEndpoint, "secret" | "cursor"> & { last_delivered_seq: number };
export const webhookView = ({ secret: _secret, cursor, ...endpoint }: WebhookEndpoint): WebhookView => ({ ...endpoint, last_delivered_seq: cursor });

type WebhookDeps = Pick<Deps, "records" | "clock" | "ids" | "log"> & { webhooks: WebhookSettings };

const EVENT = /^([a-z_]+)(\.(create|update|delete))?$/;

export async function createWebhook(
  deps: WebhookDeps,
  caller: Caller,
  access: CampaignAccess,
  input: { url: string; events?: string[] | null },
  kinds: readonly string[],
): Promise<Result<WebhookView & { secret: string }>> {
  const events = input.events?.length ? [...new Set(input.events)] : null;
  for (const [index, event] of (events ?? []).entries()) {
    const match = EVENT.exec(event);
    if (!match || !kinds.includes(match[1]!))
      return { ok: false, error: invalidField(["body", "events", index], `Unknown event "${event}": use a kind (${kinds.join(", ")}), optionally with .create, .update or .delete`, event) };
  }
  const refused = await deps.webhooks.sender.refusal(input.url);
  if (refused) return { ok: false, error: invalidField(["body", "url"], refused, input.url) };
  if ((await deps.records.webhooks.listForCampaign(access.campaign.id)).length >= MAX_WEBHOOKS_PER_CAMPAIGN)
    return fail("conflict", `A campaign may have at most ${MAX_WEBHOOKS_PER_CAMPAIGN} webhooks; delete one first`);
  const endpoint = await deps.records.webhooks.insert({
    id: deps.ids.next(),
    campaign_id: access.campaign.id,
    url: input.url,
    events,
    secret: deps.webhooks.sender.newSecret(),
    created_by: caller.userId,
    created_at: nowIso(deps),
    enabled: true,
    disabled_reason: null,
    disabled_at: null,
    failures: 0,
    next_attempt_at: nowIso(deps),
  });
  // The secret is shown this once.
  return ok({ ...webhookView(endpoint), secret: endpoint.secret });
}

export async function listWebhooks(deps: Pick<Deps, "records">, access: CampaignAccess): Promise<Result<{ data: WebhookView[] }>> {
  return ok({ data: (await deps.records.webhooks.listForCampaign(access.campaign.id)).map(webhookView) });
}

async function ownWebhook(deps: Pick<Deps, "records">, access: CampaignAccess, id: string): Promise<Result<WebhookEndpoint>> {
  const endpoint = await deps.records.webhooks.get(id);
  return endpoint && endpoint.campaign_id === access.campaign.id ? ok(endpoint) : fail("not_found", "Webhook not found");
}

export async function deleteWebhook(deps: Pick<Deps, "records">, access: CampaignAccess, id: string): Promise<Result<null>> {
  const found = await ownWebhook(deps, access, id);
  if (!found.ok) return found;
  await deps.records.webhooks.delete(id);
  return ok(null);
}

/** Enabled again after being disabled: delivery resumes from the change it stopped at. */
export async function enableWebhook(deps: Pick<Deps, "records" | "clock">, access: CampaignAccess, id: string): Promise<Result<WebhookView>> {
  const found = await ownWebhook(deps, access, id);
  if (!found.ok) return found;
  const enabled = await deps.records.webhooks.enable(id, nowIso(deps));
  return enabled ? ok(webhookView(enabled)) : fail("not_found", "Webhook not found");
}

export async function webhookDeliveries(deps: Pick<Deps, "records">, access: CampaignAccess, id: string, limit: number): Promise<Result<{ data: WebhookDelivery[] }>> {
  const found = await ownWebhook(deps, access, id);
  if (!found.ok) return found;
  return ok({ data: await deps.records.webhooks.deliveries(id, limit) });
}

const wanted = (events: string[] | null, change: Change) => !events || events.includes(change.kind) || events.includes(`${change.kind}.${change.op}`);

/** The Standard Webhooks payload of one change. */
export const payloadOf = (campaignId: string, change: Change) =>
  JSON.stringify({ type: `${change.kind}.${change.op}`, timestamp: change.at, data: { campaign_id: campaignId, ...change } });

export const messageIdOf = (campaignId: string, seq: number) => `msg_${campaignId}_${seq}`;

/**
 * One step of the dispatcher: claims an endpoint that is due and behind, delivers its next changes in
 * order until one fails (then backs off, or disables it) or a batch is done. False when nothing was due.
 */
export async function deliverDueWebhooks(deps: WebhookDeps): Promise<boolean> {
  const now = deps.clock.now();
  const endpoint = await deps.records.webhooks.claimDue(now.toISOString(), new Date(now.getTime() + deps.webhooks.leaseMs).toISOString());
  if (!endpoint) return false;
  const { last_seq } = await deps.records.changes.position(endpoint.campaign_id);
  // What the endpoint's creator may read: a private journal entry never leaves through someone else's webhook.
  const pending = await deps.records.changes.list(endpoint.campaign_id, endpoint.cursor, last_seq, 50, endpoint.created_by ?? "");
  let cursor = endpoint.cursor;
  const end = pending.length < 50 ? last_seq : pending[pending.length - 1]!.seq;
  // The batch's attempts are logged in one write with its outcome (a crash before then re-sends them anyway).
  const log: Parameters<typeof deps.records.webhooks.logDeliveries>[0] = [];
  for (const change of pending) {
    if (!wanted(endpoint.events, change)) {
      cursor = change.seq;
      continue;
    }
    const id = messageIdOf(endpoint.campaign_id, change.seq);
    const attempt = await deps.webhooks.sender.send({ url: endpoint.url, secret: endpoint.secret, id, timestamp: Math.floor(deps.clock.now().getTime() / 1000), body: payloadOf(endpoint.campaign_id, change) });
    const ok = attempt.error === null;
    log.push({
      id: deps.ids.next(),
      endpoint_id: endpoint.id,
      message_id: id,
      seq: change.seq,
      attempt: endpoint.failures + 1,
      ok,
      status_code: attempt.status,
      error: attempt.error,
      duration_ms: attempt.ms,
      at: nowIso(deps),
    });
    if (!ok) {
      const failures = endpoint.failures + 1;
      const at = deps.clock.now();
      const delay = Math.min(deps.webhooks.retryBaseMs * 2 ** (failures - 1), MAX_RETRY_MS);
      const disabled = failures >= deps.webhooks.maxFailures ? `Disabled after ${failures} failed deliveries in a row; the last: ${attempt.error}` : null;
      await deps.records.webhooks.logDeliveries(log);
      if (cursor > endpoint.cursor) await deps.records.webhooks.advance(endpoint.id, cursor, at.toISOString());
      await deps.records.webhooks.fail(endpoint.id, failures, new Date(at.getTime() + delay).toISOString(), disabled, at.toISOString());
      if (disabled) deps.log.warn("webhook disabled", { webhook_id: endpoint.id, campaign_id: endpoint.campaign_id, reason: attempt.error });
      return true;
    }
    cursor = change.seq;
    endpoint.failures = 0;
  }
  await deps.records.webhooks.logDeliveries(log);
  await deps.records.webhooks.advance(endpoint.id, Math.max(cursor, end), nowIso(deps));
  return true;
}
