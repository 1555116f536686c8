// Webhooks: wire schemas and operations (REST only, like the change feed they deliver).
import { Type } from "@sinclair/typebox";
import * as webhooks from "../../application/webhooks.ts";
import { CHANGE_KINDS } from "./changes.ts";
import { CampaignIdPath, Defaulted, Id, Nullable, Timestamp } from "./common.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { byPathCampaign } from "./crud.ts";

const webhookFields = {
  id: Id(),
  campaign_id: Id(),
  url: Type.String(),
  events: Nullable(Type.Array(Type.String(), { description: "Kinds or kind.op names delivered; null: every change" })),
  created_by: Nullable(Id()),
  created_at: Timestamp,
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: "Why it was disabled (after WEBHOOK_MAX_FAILURES failures in a row)" })),
  disabled_at: Nullable(Timestamp),
  failures: Type.Integer({ minimum: 0, description: "Failed attempts in a row" }),
  next_attempt_at: Timestamp,
  last_delivered_seq: Type.Integer({ minimum: 0, description: "The change feed's seq delivered last" }),
};

export const Webhook = Type.Object(webhookFields, { title: "Webhook" });
export const WebhookWithSecret = Type.Object(
  { ...webhookFields, secret: Type.String({ description: "Signing secret (whsec_…), shown only now: verify webhook-signature with it" }) },
  { title: "WebhookWithSecret" },
);
export const WebhookList = Type.Object({ data: Type.Array(Webhook) }, { title: "WebhookList" });

export const WebhookCreate = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: "http(s) URL of your receiver; private, loopback and link-local addresses are refused" }),
    events: Type.Optional(
      Nullable(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50, description: `Kinds (${CHANGE_KINDS.join(", ")}) or kind.create / kind.update / kind.delete; absent: every change` })),
    ),
  },
  { title: "WebhookCreate" },
);

export const WebhookDelivery = Type.Object(
  {
    id: Id(),
    endpoint_id: Id(),
    message_id: Type.String({ description: "The webhook-id header: the same on every retry of one change" }),
    seq: Type.Integer(),
    attempt: Type.Integer({ minimum: 1 }),
    ok: Type.Boolean(),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    duration_ms: Nullable(Type.Integer()),
    at: Timestamp,
  },
  { title: "WebhookDelivery" },
);

const WebhookPath = Type.Object({ campaign_id: Id("Campaign id"), webhook_id: Id("Webhook id") });

const WEBHOOKS_DOC =
  "Each change of the campaign's feed is POSTed as {type: \"<kind>.<op>\", timestamp, data: {campaign_id, seq, kind, id, op, at, actor_id}}, in order, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body with the secret>). Answer 2xx; anything else is retried with exponential backoff, and enough failures in a row disable the webhook with the reason kept.";

export const webhookOperations = defineOperations({ publishedAt: 200 }, [
  defineOperation({
    id: "createWebhook",
    summary: "Register a webhook",
    description: `${WEBHOOKS_DOC} Needs owner or game-master access. The answer holds the signing secret, shown only this once. Deliveries start with the next change.`,
    tag: "Changes",
    access: { auth: "campaign", level: "manage", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/webhooks", status: 201 },
    input: { path: CampaignIdPath, body: WebhookCreate },
    output: WebhookWithSecret,
    run: ({ deps, caller, access }, { body }) => webhooks.createWebhook(deps, caller, access, body, CHANGE_KINDS),
  }),
  defineOperation({
    id: "listWebhooks",
    summary: "List a campaign's webhooks",
    description: "The campaign's webhooks with their state (enabled, failures, why disabled, last delivered change); never their secrets.",
    tag: "Changes",
    access: { auth: "campaign", level: "manage", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/webhooks", status: 200 },
    input: { path: CampaignIdPath },
    output: WebhookList,
    run: ({ deps, access }) => webhooks.listWebhooks(deps, access),
  }),
  defineOperation({
    id: "deleteWebhook",
    summary: "Delete a webhook",
    description: "Stops deliveries to the webhook and forgets it with its delivery log.",
    tag: "Changes",
    access: { auth: "campaign", level: "manage", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "DELETE", path: "/v1/campaigns/{campaign_id}/webhooks/{webhook_id}", status: 204 },
    input: { path: WebhookPath },
    run: ({ deps, access }, { path }) => webhooks.deleteWebhook(deps, access, path.webhook_id),
  }),
  defineOperation({
    id: "enableWebhook",
    summary: "Re-enable a webhook",
    description: "Enables a disabled webhook again: failures reset, delivery resumes from the change it stopped at (nothing is skipped).",
    tag: "Changes",
    access: { auth: "campaign", level: "manage", scope: "agent_write", campaign: byPathCampaign },
    http: { method: "POST", path: "/v1/campaigns/{campaign_id}/webhooks/{webhook_id}/enable", status: 200 },
    input: { path: WebhookPath },
    output: Webhook,
    run: ({ deps, access }, { path }) => webhooks.enableWebhook(deps, access, path.webhook_id),
  }),
  defineOperation({
    id: "listWebhookDeliveries",
    summary: "A webhook's delivery log",
    description: "Every delivery attempt, newest first: the change's seq, the message id, the receiver's status or the error, and how long it took.",
    tag: "Changes",
    access: { auth: "campaign", level: "manage", scope: "worlds_read", campaign: byPathCampaign },
    http: { method: "GET", path: "/v1/campaigns/{campaign_id}/webhooks/{webhook_id}/deliveries", status: 200 },
    input: { path: WebhookPath, query: Type.Object({ limit: Defaulted(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: "Attempts to list (1–500)" })) }) },
    output: Type.Object({ data: Type.Array(WebhookDelivery) }, { title: "WebhookDeliveryList" }),
    run: ({ deps, access }, { path, query }) => webhooks.webhookDeliveries(deps, access, path.webhook_id, query.limit),
  }),
]);

declare module "./index.ts" {
  interface PublishedOperations {
    webhooks: typeof webhookOperations;
  }
}
