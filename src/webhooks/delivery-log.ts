import { newId } from '../crypto/ids.ts';
import { withTransaction } from '../domain/kernel/checks.ts';
import { type Page, type PageParams, paginate } from '../domain/kernel/pagination.ts';
import { problem, problems } from '../errors/problem-error.ts';
import { DELIVERABLE_EVENT_TYPES, patternsMatch } from '../events/catalogue.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import type { WebhookAttemptsTable } from './tables.ts';

/** The most deliveries one replay queues; a wider window is replayed in several calls. */
const MAX_REPLAY = 10_000;

/** One delivery attempt, as the endpoint's log shows it. */
export interface WebhookAttempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string;
  error: string | null;
  nextRetryAt: string | null;
}

function toAttempt(r: WebhookAttemptsTable): WebhookAttempt {
  return {
    id: r.id,
    deliveryId: r.delivery_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attemptedAt: r.attempted_at,
    statusCode: r.status_code,
    latencyMs: r.latency_ms,
    responseExcerpt: r.response_excerpt,
    error: r.error,
    nextRetryAt: r.next_retry_at,
  };
}

async function endpointOf(db: Db | Tx, schoolId: string, id: string) {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled', 'event_types'])
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such webhook endpoint.');
  return row;
}

/** The endpoint's attempts, newest first. */
export async function listAttempts(
  db: Db | Tx,
  schoolId: string,
  endpointId: string,
  page: PageParams,
): Promise<Page<WebhookAttempt>> {
  await endpointOf(db, schoolId, endpointId);
  const query = db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('endpoint_id', '=', endpointId);
  const rows = await paginate(query, page, { table: 'webhook_attempts', direction: 'desc' });
  return { data: rows.data.map(toAttempt), next_cursor: rows.next_cursor };
}

/**
 * Queues the event again (`eventId`), or every event since an instant the endpoint subscribes
 * to (`since`, at most MAX_REPLAY), as new deliveries. They carry the event's own id as
 * `webhook-id`, so a receiver that already processed one recognises it.
 */
export async function replay(
  db: Db | Tx,
  schoolId: string,
  endpointId: string,
  what: { eventId?: string; since?: string },
): Promise<{ queued: number }> {
  return withTransaction(db, async (tx) => {
    const endpoint = await endpointOf(tx, schoolId, endpointId);
    if (endpoint.enabled !== 1) {
      throw problem('endpoint_disabled', { detail: 'Enable the endpoint before replaying events to it.' });
    }
    let events: Array<{ id: string; type: string }>;
    if (what.eventId) {
      const event = await tx
        .selectFrom('domain_events')
        .select(['id', 'type'])
        .where('school_id', '=', schoolId)
        .where('id', '=', what.eventId)
        .executeTakeFirst();
      if (!event) throw problems.notFound('No such event.');
      if (
        !(DELIVERABLE_EVENT_TYPES as readonly string[]).includes(event.type) &&
        event.type !== 'webhook.test'
      ) {
        throw problems.validation([
          { field: 'body.event_id', message: `${event.type} is audit only, never delivered` },
        ]);
      }
      events = [event];
    } else {
      const patterns = JSON.parse(endpoint.event_types) as string[];
      const rows = await tx
        .selectFrom('domain_events')
        .select(['id', 'type'])
        .where('school_id', '=', schoolId)
        .where('occurred_at', '>=', what.since ?? isoNow())
        .where('type', 'in', [...DELIVERABLE_EVENT_TYPES])
        .orderBy('id')
        .limit(MAX_REPLAY)
        .execute();
      events = rows.filter((e) => patternsMatch(patterns, e.type));
    }
    const now = isoNow();
    for (let i = 0; i < events.length; i += 500) {
      await tx
        .insertInto('webhook_deliveries')
        .values(
          events.slice(i, i + 500).map((e) => ({
            id: newId('whd'),
            school_id: schoolId,
            endpoint_id: endpointId,
            event_id: e.id,
            status: 'pending' as const,
            attempts: 0,
            next_attempt_at: now,
            lease_owner: null,
            lease_until: null,
            last_status_code: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
    return { queued: events.length };
  });
}
