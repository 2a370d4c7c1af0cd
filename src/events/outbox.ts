import { sql } from 'kysely';
import { newId } from '../crypto/ids.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import { EVENT_CATALOGUE, type EventType, patternsMatch } from './catalogue.ts';
import { type Actor, currentEventScope } from './context.ts';

/** A small JSON object: ids, states, numbers. Never a secret, password or token. */
export type EventData = Record<string, string | number | boolean | null | readonly string[]>;

export interface RecordOptions {
  /** Who did it, when not the request's actor (e.g. the system expiring an enrollment). */
  readonly actor?: Actor;
  readonly occurredAt?: string;
  /** Deliver to this one endpoint only, whatever it subscribed to (test events, issue #13). */
  readonly onlyEndpointId?: string;
}

/**
 * Records one domain event in the outbox, inside the caller's transaction, and fans it out to
 * the school's enabled webhook endpoints that subscribed to its type: the event and its
 * deliveries commit or roll back with the change they describe (transactional outbox). Actor and
 * request id come from the request's scope (context.ts) unless given.
 */
export async function recordEvent(
  tx: Db | Tx,
  schoolId: string,
  type: EventType,
  data: EventData,
  options: RecordOptions = {},
): Promise<string> {
  const scope = currentEventScope();
  const actor = options.actor ?? scope.actor;
  const occurredAt = options.occurredAt ?? isoNow();
  const id = newId('evt');
  // Raw SQL rather than the query builder: this runs inside every write of the product, and
  // building a 9-column insert costs more than executing it (bench: docs/performance.md).
  await sql`insert into domain_events
      (id, school_id, type, actor_type, actor_id, actor_client_id, occurred_at, data, request_id)
      values (${id}, ${schoolId}, ${type}, ${actor.type}, ${actor.id}, ${actor.clientId ?? null},
              ${occurredAt}, ${JSON.stringify(data)}, ${scope.requestId})`.execute(tx);
  const auditOnly = 'auditOnly' in EVENT_CATALOGUE[type];
  if (!auditOnly || options.onlyEndpointId)
    await fanOut(tx, schoolId, id, type, occurredAt, options.onlyEndpointId);
  return id;
}

async function fanOut(
  tx: Db | Tx,
  schoolId: string,
  eventId: string,
  type: EventType,
  now: string,
  onlyEndpointId: string | undefined,
): Promise<void> {
  const only = onlyEndpointId ? sql`and id = ${onlyEndpointId}` : sql``;
  const { rows: endpoints } = await sql<{ id: string; event_types: string }>`select id, event_types
      from webhook_endpoints where school_id = ${schoolId} and enabled = 1 ${only}`.execute(tx);
  const targets = onlyEndpointId
    ? endpoints
    : endpoints.filter((e) => patternsMatch(JSON.parse(e.event_types) as string[], type));
  if (targets.length === 0) return;
  await tx
    .insertInto('webhook_deliveries')
    .values(
      targets.map((e) => ({
        id: newId('whd'),
        school_id: schoolId,
        endpoint_id: e.id,
        event_id: eventId,
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
