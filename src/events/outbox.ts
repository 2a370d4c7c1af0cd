import { newId } from '../crypto/ids.ts';
import type { Db, Tx } from '../store/database.ts';
import { preparedWrite } from '../store/prepared.ts';
import { isoNow } from '../store/time.ts';
import { EVENT_CATALOGUE, type EventType } from './catalogue.ts';
import { type Actor, currentEventScope } from './context.ts';
import { checkEventData, type EventDataOf } from './payloads.ts';
import type { ActorType } from './tables.ts';

export interface RecordOptions {
  /** Who did it, when not the request's actor (e.g. the system expiring an enrollment). */
  readonly actor?: Actor;
  readonly occurredAt?: string;
}

/**
 * Records one domain event in the outbox, inside the caller's transaction: it commits or rolls
 * back with the change it describes (transactional outbox). A deliverable event's row is marked
 * `fan_out`, and the webhooks feature gives it its deliveries in the same statement (the trigger
 * of webhooks/fan-out.ts); the outbox itself writes no table but its own. Actor and request id
 * come from the request's scope (context.ts) unless given.
 *
 * The data is checked against its type's schema (payloads.ts) first, in every environment: a
 * payload that drifted from the documented contract throws, so the change rolls back and the
 * request fails with a logged 500 rather than sending receivers a shape they were never promised
 * (a delivered webhook cannot be taken back). The check costs a fraction of the JSON encoding
 * beside it, and the event suite drives every type, so a drift fails there first.
 */
export async function recordEvent<T extends EventType>(
  tx: Db | Tx,
  schoolId: string,
  type: T,
  data: EventDataOf<T>,
  options: RecordOptions = {},
): Promise<string> {
  checkEventData(type, data);
  const scope = currentEventScope();
  const actor = options.actor ?? scope.actor;
  const occurredAt = options.occurredAt ?? isoNow();
  const id = newId('evt');
  // The fan-out to subscribed endpoints is the table's trigger (webhooks/fan-out.ts), not a
  // second round trip; audit-only events (test events among them) are not fanned out.
  const fanOut = 'auditOnly' in EVENT_CATALOGUE[type] ? 0 : 1;
  await insertEvent(
    tx,
    id,
    schoolId,
    type,
    actor.type,
    actor.id,
    actor.clientId ?? null,
    occurredAt,
    JSON.stringify(data),
    scope.requestId,
    fanOut,
  );
  return id;
}

// Inside every write of the product: built and compiled once (store/prepared.ts), named on
// PostgreSQL; building the 10-value insert per call cost more than SQLite executing it.
const insertEvent = preparedWrite((db, arg) =>
  db.insertInto('domain_events').values({
    id: arg(0),
    school_id: arg(1),
    type: arg(2),
    actor_type: arg(3) as ActorType,
    actor_id: arg(4),
    actor_client_id: arg(5),
    occurred_at: arg(6),
    data: arg(7),
    request_id: arg(8),
    fan_out: arg(9) as unknown as number,
  }),
);
