import { SYSTEM_ACTOR } from '../../events/context.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db } from '../../store/database.ts';
import { isoNow, nowMs } from '../../store/time.ts';
import type { SubscriptionsTable } from '../kernel/tables.ts';
import { getSubscription, subscriptionEventData } from './subscriptions.ts';

/**
 * How long after its period end a running subscription waits for its provider's renewal report
 * before it counts as past due: a provider charges at the period end and reports seconds to
 * minutes later, and housekeeping must not call every renewal overdue in between.
 */
export const RENEWAL_GRACE_MS = 60 * 60_000;

export interface SubscriptionPeriodEnds {
  /** Subscriptions set to cancel at their period end whose period ended: now canceled. */
  canceled: number;
  /** Running subscriptions whose period ended (plus the grace) with no renewal: now past due. */
  pastDue: number;
}

/**
 * Housekeeping's share of subscriptions: a period end is time passing, not a write, so this
 * looks for the ones that passed. A subscription with `cancel_at_period_end` whose period ended
 * becomes `canceled` (at its period end); an active or trialing one whose period ended more than
 * RENEWAL_GRACE_MS ago without a renewal becomes `past_due`. Each change is a compare-and-set
 * (the row still as it was read) in one transaction with its event, by the system actor, so
 * with several instances exactly one records each.
 */
export async function recordSubscriptionPeriodEnds(
  db: Db,
  now: number = nowMs(),
): Promise<SubscriptionPeriodEnds> {
  const until = isoNow(now);
  const ending = await db
    .selectFrom('subscriptions')
    .select(['id', 'school_id', 'status', 'current_period_end'])
    .where('cancel_at_period_end', '=', 1)
    .where('status', '!=', 'canceled')
    .where('current_period_end', '<=', until)
    .orderBy('id')
    .execute();
  let canceled = 0;
  for (const row of ending) {
    const endedAt = row.current_period_end!;
    if (
      await transition(db, row, { status: 'canceled', canceled_at: endedAt, cancel_at_period_end: 0 }, until)
    ) {
      canceled++;
    }
  }
  const overdue = await db
    .selectFrom('subscriptions')
    .select(['id', 'school_id', 'status', 'current_period_end'])
    .where('cancel_at_period_end', '=', 0)
    .where('status', 'in', ['active', 'trialing'])
    .where('current_period_end', '<=', isoNow(now - RENEWAL_GRACE_MS))
    .orderBy('id')
    .execute();
  let pastDue = 0;
  for (const row of overdue) {
    if (await transition(db, row, { status: 'past_due' }, until)) pastDue++;
  }
  return { canceled, pastDue };
}

type Row = Pick<SubscriptionsTable, 'id' | 'school_id' | 'status' | 'current_period_end'>;

/** Moves one subscription on if it is still as read, with its event; false if someone was first. */
async function transition(
  db: Db,
  row: Row,
  set: { status: 'canceled' | 'past_due'; canceled_at?: string; cancel_at_period_end?: number },
  now: string,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const moved = await tx
      .updateTable('subscriptions')
      .set({ ...set, updated_at: now })
      .where('id', '=', row.id)
      .where('status', '=', row.status)
      .where('current_period_end', '=', row.current_period_end)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    const subscription = await getSubscription(tx, row.school_id, row.id);
    const data = subscriptionEventData(subscription);
    if (set.status === 'canceled') {
      await recordEvent(
        tx,
        row.school_id,
        'subscription.canceled',
        { ...data, at_period_end: true },
        {
          actor: SYSTEM_ACTOR,
          occurredAt: set.canceled_at,
        },
      );
    } else {
      await recordEvent(tx, row.school_id, 'subscription.past_due', data, {
        actor: SYSTEM_ACTOR,
        occurredAt: now,
      });
    }
    return true;
  });
}
