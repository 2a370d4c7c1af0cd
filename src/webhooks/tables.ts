/** Row shapes of the webhook tables (conventions as in domain/kernel/tables.ts). */

export interface WebhookEndpointsTable {
  id: string;
  school_id: string;
  url: string;
  description: string;
  /** JSON array of event types or `<group>.*` patterns; `["*"]` is every deliverable type. */
  event_types: string;
  enabled: number;
  /** Why the endpoint was disabled by Lectern (410, failing for days); null when enabled or by hand. */
  disabled_reason: string | null;
  /** The `whsec_` secret, sealed with LECTERN_SECRET (signing needs the secret itself). */
  secret: string;
  /** The secret before the last rotation: still signs beside the new one until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** First failed attempt since the last success; null while healthy. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

interface WebhookDeliveriesTable {
  id: string;
  school_id: string;
  endpoint_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the worker may make the next attempt (pending only). */
  next_attempt_at: string | null;
  /** The worker instance holding this delivery, until lease_until. */
  lease_owner: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  school_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  /** The first bytes of the response body, as text. */
  response_excerpt: string;
  /** Network-level failure (timeout, refused, redirect…); null when an answer came. */
  error: string | null;
  next_retry_at: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
