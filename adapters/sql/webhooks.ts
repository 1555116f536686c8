// Webhook endpoints and deliveries on SQL (migration 0011).
import type { WebhookDelivery, WebhookEndpoint, WebhookRepository } from "../../ports/records/webhooks.ts";
import type { Row, SqlExecutor } from "./database.ts";
import type { SqlRepositories } from "./records.ts";
import { iso, isoOrNull, json, num, strOrNull } from "./rows.ts";

const endpointOf = (row: Row): WebhookEndpoint => ({
  id: String(row.id),
  campaign_id: String(row.campaign_id),
  url: String(row.url),
  events: Array.isArray(row.events) ? row.events.map(String) : null,
  secret: String(row.secret),
  created_by: strOrNull(row.created_by),
  created_at: iso(row.created_at),
  cursor: num(row.cursor),
  enabled: Boolean(row.enabled),
  disabled_reason: strOrNull(row.disabled_reason),
  disabled_at: isoOrNull(row.disabled_at),
  failures: num(row.failures),
  next_attempt_at: iso(row.next_attempt_at),
});

const deliveryOf = (row: Row): WebhookDelivery => ({
  id: String(row.id),
  endpoint_id: String(row.endpoint_id),
  message_id: String(row.message_id),
  seq: num(row.seq),
  attempt: num(row.attempt),
  ok: Boolean(row.ok),
  status_code: row.status_code == null ? null : num(row.status_code),
  error: strOrNull(row.error),
  duration_ms: row.duration_ms == null ? null : num(row.duration_ms),
  at: iso(row.at),
});

export function webhooks(db: SqlExecutor): WebhookRepository {
  return {
    async insert(e) {
      const [row] = await db.query(
        `insert into webhook_endpoints (id, campaign_id, url, events, secret, created_by, created_at, cursor, enabled, failures, next_attempt_at)
         values ($1, $2, $3, $4::text::jsonb, $5, $6, $7::timestamptz,
                 coalesce((select last_seq from change_counters where campaign_id = $2), 0), true, 0, $7::timestamptz)
         returning *`,
        [e.id, e.campaign_id, e.url, e.events === null ? null : json(e.events), e.secret, e.created_by, e.created_at],
      );
      return endpointOf(row!);
    },
    async get(id) {
      const [row] = await db.query(`select * from webhook_endpoints where id = $1`, [id]);
      return row ? endpointOf(row) : null;
    },
    async listForCampaign(campaignId) {
      return (await db.query(`select * from webhook_endpoints where campaign_id = $1 order by created_at, id`, [campaignId])).map(endpointOf);
    },
    async delete(id) {
      return (await db.query(`delete from webhook_endpoints where id = $1 returning id`, [id])).length > 0;
    },
    async claimDue(at, leaseUntil) {
      const [row] = await db.query(
        `update webhook_endpoints set lease_until = $2::timestamptz
         where id = (select w.id from webhook_endpoints w join change_counters k on k.campaign_id = w.campaign_id
                     where w.enabled and w.next_attempt_at <= $1::timestamptz and (w.lease_until is null or w.lease_until < $1::timestamptz)
                       and w.cursor < k.last_seq
                     order by w.next_attempt_at limit 1 for update of w skip locked)
         returning *`,
        [at, leaseUntil],
      );
      return row ? endpointOf(row) : null;
    },
    async advance(id, cursor, at) {
      await db.query(
        `update webhook_endpoints set cursor = greatest(cursor, $2), failures = 0, next_attempt_at = $3::timestamptz, lease_until = null where id = $1`,
        [id, cursor, at],
      );
    },
    async fail(id, failures, nextAttemptAt, disabledReason, at) {
      await db.query(
        `update webhook_endpoints set failures = $2, next_attempt_at = $3::timestamptz, lease_until = null,
           enabled = ($4::text is null), disabled_reason = $4::text, disabled_at = case when $4::text is null then null else $5::timestamptz end
         where id = $1`,
        [id, failures, nextAttemptAt, disabledReason, at],
      );
    },
    async enable(id, at) {
      const [row] = await db.query(
        `update webhook_endpoints set enabled = true, disabled_reason = null, disabled_at = null, failures = 0, next_attempt_at = $2::timestamptz, lease_until = null
         where id = $1 returning *`,
        [id, at],
      );
      return row ? endpointOf(row) : null;
    },
    async logDeliveries(list) {
      if (!list.length) return;
      await db.query(
        `insert into webhook_deliveries (id, endpoint_id, message_id, seq, attempt, ok, status_code, error, duration_ms, at)
         select id, endpoint_id, message_id, seq, attempt, ok, status_code, error, duration_ms, at from jsonb_populate_recordset(null::webhook_deliveries, $1::text::jsonb)`,
        [JSON.stringify(list)],
      );
    },
    async deliveries(endpointId, limit) {
      return (await db.query(`select * from webhook_deliveries where endpoint_id = $1 order by at desc, id desc limit $2`, [endpointId, limit])).map(deliveryOf);
    },
    async nextDue() {
      const [row] = await db.query(
        `select min(w.next_attempt_at) as due from webhook_endpoints w join change_counters k on k.campaign_id = w.campaign_id
         where w.enabled and w.cursor < k.last_seq`,
      );
      return row?.due ? iso(row.due) : null;
    },
  };
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { webhooks } satisfies SqlRepositories;
