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
  /**
   * What the security-log line of a flagged type adds to the event's data: why it happened (who
   * revoked a grant, a replayed code). Logged, never stored or delivered.
   */
  readonly log?: object;
}

/**
 * Records one domain event in the outbox, inside the caller's transaction: it commits or rolls
 * back with the change it describes (transactional outbox). A deliverable event's row is marked
 * `fan_out`, and the webhooks feature gives it its deliveries in the same statement (the trigger
 * of webhooks/fan-out.ts); the outbox itself writes no table but its own. Actor and request id
 * come from the request's scope (context.ts) unless given.
 *
 * A type the catalogue flags `securityLog` is also written to the deployment's security log here,
 * and nowhere else: one line at info with the event's id and data (`securityLine`). The line is
 * written when the event is appended: if the transaction around it later rolls back, the line
 * names an event id the audit trail never gets (an append is the last write of its change, so
 * that takes a failed commit).
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
  if (scope.securityLog && 'securityLog' in EVENT_CATALOGUE[type]) {
    scope.securityLog(type, securityLine(id, schoolId, actor, scope.requestId, data, options.log));
  }
  return id;
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The security-log fields of an event: its id, school, request and actor (`actorUserId`,
 * `actorClientId`), its data with camelCase keys (`user_id` → `userId`, the person it is about),
 * and what the caller adds. Event data never holds a secret (payloads.ts), so neither does this.
 */
function securityLine(
  id: string,
  schoolId: string,
  actor: Actor,
  requestId: string | null,
  data: object,
  extra: object = {},
): Record<string, unknown> {
  const fields: Record<string, unknown> = { eventId: id, schoolId, requestId: requestId ?? undefined };
  if (actor.type === 'user') fields.actorUserId = actor.id;
  const client = actor.type === 'client' ? actor.id : actor.clientId;
  if (client) fields.actorClientId = client;
  for (const [key, value] of Object.entries(data)) fields[camel(key)] = value;
  return Object.assign(fields, extra);
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
