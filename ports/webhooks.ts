// Webhook delivery: signing and sending a message to a receiver, and refusing targets that must not be reached.

export interface WebhookMessage {
  url: string;
  /** `whsec_` + base64 of the key (Standard Webhooks). */
  secret: string;
  /** webhook-id: the same on every retry of one message. */
  id: string;
  /** webhook-timestamp, in seconds. */
  timestamp: number;
  body: string;
}

export interface WebhookAttempt {
  /** The receiver's HTTP status, or null when none came (refused target, network error, timeout). */
  status: number | null;
  error: string | null;
  ms: number;
}

export interface WebhookSender {
  newSecret(): string;
  /** Why this URL may not be a target (scheme, credentials, a private or loopback address…), or null. */
  refusal(url: string): Promise<string | null>;
  /** Signs (Standard Webhooks: HMAC-SHA256 over `id.timestamp.body`) and POSTs the message; never throws. */
  send(message: WebhookMessage): Promise<WebhookAttempt>;
}
