import type { Config } from '../config.ts';
import { idFloor } from '../crypto/ids.ts';
import { recordSubscriptionPeriodEnds } from '../domain/commerce/subscription-periods.ts';
import { recordExpiredEnrollments } from '../domain/learning/enrollment-expiry.ts';
import type { Db } from '../store/database.ts';
import { isoNow, nowMs } from '../store/time.ts';

/** How long finished deliveries and attempts stay in an endpoint's log. */
export const DELIVERY_LOG_DAYS = 30;

export interface EventHousekeeping {
  expired: number;
  /** Subscriptions canceled at their period end, and running ones gone past due. */
  subscriptions: { canceled: number; pastDue: number };
  events: number;
  attempts: number;
  deliveries: number;
}

/**
 * The events' share of housekeeping (run by `serve` and `lectern worker` every 15 minutes):
 * record enrollment expiries and subscription period ends that passed, prune events beyond EVENT_RETENTION_DAYS (their
 * deliveries go with them), and prune the delivery log beyond DELIVERY_LOG_DAYS.
 */
export async function eventHousekeeping(
  db: Db,
  config: Pick<Config, 'events'>,
  now: number = nowMs(),
): Promise<EventHousekeeping> {
  const expired = await recordExpiredEnrollments(db, now);
  const subscriptions = await recordSubscriptionPeriodEnds(db, now);
  const logCutoff = isoNow(now - DELIVERY_LOG_DAYS * 86_400_000);
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('attempted_at', '<', logCutoff)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('updated_at', '<', logCutoff)
    .executeTakeFirst();
  // Ids are ULIDs, time first: the primary key finds every event recorded before the cutoff.
  const eventCutoff = idFloor('evt', now - config.events.retentionDays * 86_400_000);
  // School by school, so each delete is a range of the primary key (school_id, id).
  let pruned = 0;
  for (const school of await db.selectFrom('schools').select('id').execute()) {
    const done = await db
      .deleteFrom('domain_events')
      .where('school_id', '=', school.id)
      .where('id', '<', eventCutoff)
      .executeTakeFirst();
    pruned += Number(done.numDeletedRows);
  }
  return {
    expired,
    subscriptions,
    events: pruned,
    attempts: Number(attempts.numDeletedRows),
    deliveries: Number(deliveries.numDeletedRows),
  };
}
