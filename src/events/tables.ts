/** Row shapes of the event outbox (conventions as in domain/kernel/tables.ts); the webhooks' are in webhooks/tables.ts. */

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
  /** 1: a deliverable event; the fan-out trigger gives it a delivery per subscribed endpoint (webhooks/fan-out.ts). */
  fan_out: number;
}

/** How far a time-driven sweep (enrollment expiry) has looked: events for instants up to here exist. */
interface EventSweepsTable {
  name: string;
  swept_until: string;
}

export interface EventTables {
  event_sweeps: EventSweepsTable;
  domain_events: DomainEventsTable;
}
