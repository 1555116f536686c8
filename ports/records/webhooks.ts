// Webhook endpoints (each its own durable delivery task) and their delivery log.

export interface WebhookEndpoint {
  id: string;
  campaign_id: string;
  url: string;
  /** Change kinds or `kind.op` names to deliver; null delivers every change. */
  events: string[] | null;
  secret: string;
  created_by: string | null;
  created_at: string;
  /** The last seq delivered (or passed over as not wanted). */
  cursor: number;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Failed attempts in a row. */
  failures: number;
  next_attempt_at: string;
}

export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  message_id: string;
  seq: number;
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  at: string;
}

export interface WebhookRepository {
  /** Inserts the endpoint with its cursor at the campaign's newest change: it gets what happens from now on. */
  insert(endpoint: Omit<WebhookEndpoint, "cursor">): Promise<WebhookEndpoint>;
  get(id: string): Promise<WebhookEndpoint | null>;
  listForCampaign(campaignId: string): Promise<WebhookEndpoint[]>;
  delete(id: string): Promise<boolean>;
  /**
   * An enabled endpoint that is due and behind its campaign's feed, leased until `leaseUntil` so no
   * other instance takes it meanwhile (skip locked): the durable task of webhook delivery.
   */
  claimDue(at: string, leaseUntil: string): Promise<WebhookEndpoint | null>;
  /** Delivered (or passed over) up to `cursor`: failures reset, lease released. */
  advance(id: string, cursor: number, at: string): Promise<void>;
  /** A failed attempt: try again at `nextAttemptAt`, or disable with `disabledReason`. */
  fail(id: string, failures: number, nextAttemptAt: string, disabledReason: string | null, at: string): Promise<void>;
  /** Enabled again from where it stopped, now. */
  enable(id: string, at: string): Promise<WebhookEndpoint | null>;
  /** Records a batch's attempts in one write. */
  logDeliveries(deliveries: WebhookDelivery[]): Promise<void>;
  deliveries(endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  /** When the soonest enabled endpoint falls due, or null: how long the dispatcher may sleep. */
  nextDue(): Promise<string | null>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    webhooks: WebhookRepository;
  }
}
