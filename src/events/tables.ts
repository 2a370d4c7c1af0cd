/** Row shapes of the event outbox and the webhook tables (conventions as in domain/kernel/tables.ts). */

export type ActorType = 'user' | 'client' | 'system';

export interface DomainEventsTable {
  /** `evt_` + ULID: ordering by id is ordering by occurrence; also the webhook-id. */
  id: string;
  school_id: string;
  type: string;
  actor_type: ActorType;
  /** The user (actor_type user) or client (actor_type client); null for the system. */
  actor_id: string | null;
  /** The OAuth client a user acted through, when it was a token. */
  actor_client_id: string | null;
  occurred_at: string;
  /** JSON object: the event's small data (see catalogue.ts). */
  data: string;
  request_id: string | null;
  /** 1: the fan-out trigger gives it a delivery per subscribed endpoint (migration 0010). */
  fan_out: number;
}

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

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
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

/** How far a time-driven sweep (enrollment expiry) has looked: events for instants up to here exist. */
export interface EventSweepsTable {
  name: string;
  swept_until: string;
}

export interface EventTables {
  event_sweeps: EventSweepsTable;
  domain_events: DomainEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
