import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { flag, parseValid, withTransaction } from '../kernel/checks.ts';
import { Instant } from '../kernel/fields.ts';
import { countRows, mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { SubscriptionsTable } from '../kernel/tables.ts';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;
type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A member's subscription to a membership plan. */
export interface Subscription {
  id: string;
  schoolId: string;
  userId: string;
  user: { id: string; name: string; email: string };
  planId: string;
  plan: { id: string; name: string; interval: string; priceAmount: number; currency: string };
  status: SubscriptionStatus;
  currentPeriodEnd: string | null;
  /** True when it will end at currentPeriodEnd instead of renewing. */
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  trialEndsAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Which subscriptions to list: by status, member or plan. */
const SubscriptionFilterFields = z
  .object({ status: z.enum(SUBSCRIPTION_STATUSES), userId: z.string(), planId: z.string() })
  .partial();
export type SubscriptionFilter = z.input<typeof SubscriptionFilterFields>;

/**
 * A subscription as a payment provider reports it. The member and the plan are rules over the
 * database and stay in code.
 */
export const SubscriptionFields = z.object({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  currentPeriodEnd: Instant.nullable().optional(),
  trialEndsAt: Instant.nullable().optional(),
});

type Row = SubscriptionsTable & {
  user_name: string;
  user_email: string;
  plan_name: string;
  plan_interval: string;
  plan_price_amount: number;
  plan_currency: string;
};

function toSubscription(r: Row): Subscription {
  return {
    id: r.id,
    schoolId: r.school_id,
    userId: r.user_id,
    user: { id: r.user_id, name: r.user_name, email: r.user_email },
    planId: r.plan_id,
    plan: {
      id: r.plan_id,
      name: r.plan_name,
      interval: r.plan_interval,
      priceAmount: r.plan_price_amount,
      currency: r.plan_currency,
    },
    status: r.status,
    currentPeriodEnd: r.current_period_end,
    cancelAtPeriodEnd: flag(r.cancel_at_period_end),
    canceledAt: r.canceled_at,
    trialEndsAt: r.trial_ends_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function baseQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .innerJoin('membership_plans', 'membership_plans.id', 'subscriptions.plan_id')
    .selectAll('subscriptions')
    .select([
      'users.name as user_name',
      'users.email as user_email',
      'membership_plans.name as plan_name',
      'membership_plans.interval as plan_interval',
      'membership_plans.price_amount as plan_price_amount',
      'membership_plans.currency as plan_currency',
    ])
    .where('subscriptions.school_id', '=', schoolId);
}

function filtered(db: Db | Tx, schoolId: string, filter: SubscriptionFilter) {
  let q = baseQuery(db, schoolId);
  if (filter.status) q = q.where('subscriptions.status', '=', filter.status);
  if (filter.userId) q = q.where('subscriptions.user_id', '=', filter.userId);
  if (filter.planId) q = q.where('subscriptions.plan_id', '=', filter.planId);
  return q;
}

/** Subscriptions of the school, oldest first, by status, user or plan. */
export async function listSubscriptions(
  db: Db | Tx,
  schoolId: string,
  filter: SubscriptionFilter = {},
  page: PageParams = {},
): Promise<Page<Subscription>> {
  parseValid(SubscriptionFilterFields, filter);
  const rows = await paginate(filtered(db, schoolId, filter), page, { table: 'subscriptions' });
  return { data: rows.data.map(toSubscription), next_cursor: rows.next_cursor };
}

/** A subscription as its member sees it: the plan described too. */
export type MemberSubscription = Subscription & { plan: Subscription['plan'] & { description: string } };

/** The user's subscriptions at the school with their plan, newest first. */
export async function listUserSubscriptions(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  page: PageParams,
): Promise<Page<MemberSubscription>> {
  const query = filtered(db, schoolId, { userId }).select('membership_plans.description as plan_description');
  const rows = await paginate(query, page, { table: 'subscriptions', direction: 'desc' });
  return mapPage(rows, (r) => {
    const subscription = toSubscription(r);
    return { ...subscription, plan: { ...subscription.plan, description: r.plan_description } };
  });
}

/** How many subscriptions match. */
export function countSubscriptions(
  db: Db | Tx,
  schoolId: string,
  filter: SubscriptionFilter = {},
): Promise<number> {
  return countRows(filtered(db, schoolId, filter));
}

/** A subscription of the school; 404 otherwise. */
export async function getSubscription(db: Db | Tx, schoolId: string, id: string): Promise<Subscription> {
  const row = await baseQuery(db, schoolId).where('subscriptions.id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such subscription.');
  return toSubscription(row);
}

/**
 * Records a subscription a payment provider started (Lectern has no checkout; the demo seed and
 * imports use this). The plan must be the school's; the user becomes a student if not a member.
 */
export async function createSubscription(
  db: Db | Tx,
  schoolId: string,
  input: z.input<typeof SubscriptionFields> & { userId: string; planId: string },
): Promise<Subscription> {
  const v = parseValid(SubscriptionFields, input);
  const status = v.status ?? 'active';
  const periodEnd = v.currentPeriodEnd ?? null;
  const trialEnd = v.trialEndsAt ?? null;
  return withTransaction(db, async (tx) => {
    const plan = await tx
      .selectFrom('membership_plans')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('id', '=', input.planId)
      .executeTakeFirst();
    if (!plan) throw problems.notFound('No such membership plan.');
    const user = await tx.selectFrom('users').select('id').where('id', '=', input.userId).executeTakeFirst();
    if (!user) throw problems.notFound('No such user.');
    const now = isoNow();
    const id = newId('sub');
    await tx
      .insertInto('subscriptions')
      .values({
        id,
        school_id: schoolId,
        user_id: input.userId,
        plan_id: input.planId,
        status,
        current_period_end: periodEnd,
        cancel_at_period_end: 0,
        canceled_at: status === 'canceled' ? now : null,
        trial_ends_at: trialEnd,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const subscription = await getSubscription(tx, schoolId, id);
    await recordEvent(tx, schoolId, 'subscription.created', subscriptionEventData(subscription));
    return subscription;
  });
}

/**
 * Cancels a subscription. `atPeriodEnd` keeps it running until currentPeriodEnd (it then does
 * not renew); otherwise it ends now. Canceling a canceled subscription is 409 `already_canceled`;
 * at period end without a period end (lifetime plans) is 409 `no_period_end`.
 */
export async function cancelSubscription(
  db: Db | Tx,
  schoolId: string,
  id: string,
  options: { atPeriodEnd: boolean },
): Promise<Subscription> {
  return withTransaction(db, async (tx) => {
    const current = await getSubscription(tx, schoolId, id);
    if (current.status === 'canceled') {
      throw problem('already_canceled', {
        detail: 'This subscription is already canceled.',
      });
    }
    const now = isoNow();
    if (options.atPeriodEnd) {
      if (!current.currentPeriodEnd || current.currentPeriodEnd <= now) {
        throw problem('no_period_end', {
          detail: 'This subscription has no future period end; cancel it now instead.',
        });
      }
      await tx
        .updateTable('subscriptions')
        .set({ cancel_at_period_end: 1, updated_at: now })
        .where('id', '=', id)
        .execute();
    } else {
      await tx
        .updateTable('subscriptions')
        .set({ status: 'canceled', canceled_at: now, cancel_at_period_end: 0, updated_at: now })
        .where('id', '=', id)
        .execute();
    }
    const subscription = await getSubscription(tx, schoolId, id);
    await recordEvent(tx, schoolId, 'subscription.canceled', {
      ...subscriptionEventData(subscription),
      at_period_end: options.atPeriodEnd,
    });
    return subscription;
  });
}

/** `active` and `trialing`: the statuses of a subscription that runs (and renews). */
function isRunning(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing';
}

/**
 * Records a subscription as its payment provider now reports it (Lectern has no provider
 * integration: the operator's reports it through the admin API). Fields left out stay. The
 * change's event follows from what moved, one rule for every caller (docs/decisions.md):
 * `subscription.canceled` when it becomes canceled, `subscription.past_due` when it becomes
 * past due, `subscription.renewed` when a running subscription's period end moves forward (from a
 * running or past-due one). A canceled subscription stays canceled: another status is 409
 * `already_canceled`.
 */
export async function updateSubscription(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: z.input<typeof SubscriptionFields>,
): Promise<Subscription> {
  const v = parseValid(SubscriptionFields, input);
  return withTransaction(db, async (tx) => {
    const current = await getSubscription(tx, schoolId, id);
    const status = v.status ?? current.status;
    if (current.status === 'canceled' && status !== 'canceled') {
      throw problem('already_canceled', {
        detail: 'This subscription is canceled; a new one starts with a new subscription.',
      });
    }
    const periodEnd = v.currentPeriodEnd === undefined ? current.currentPeriodEnd : v.currentPeriodEnd;
    const now = isoNow();
    const canceling = status === 'canceled' && current.status !== 'canceled';
    await tx
      .updateTable('subscriptions')
      .set({
        status,
        current_period_end: periodEnd,
        ...(v.trialEndsAt === undefined ? {} : { trial_ends_at: v.trialEndsAt }),
        ...(canceling ? { canceled_at: now, cancel_at_period_end: 0 } : {}),
        updated_at: now,
      })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    const subscription = await getSubscription(tx, schoolId, id);
    const data = subscriptionEventData(subscription);
    const at = { occurredAt: now };
    if (canceling) {
      await recordEvent(tx, schoolId, 'subscription.canceled', { ...data, at_period_end: false }, at);
    } else if (status === 'past_due' && current.status !== 'past_due') {
      await recordEvent(tx, schoolId, 'subscription.past_due', data, at);
    } else if (isRunning(status) && renews(current, periodEnd)) {
      const previous = { previous_period_end: current.currentPeriodEnd };
      await recordEvent(tx, schoolId, 'subscription.renewed', { ...data, ...previous }, at);
    }
    return subscription;
  });
}

/** A new period: the period end moves forward from a running or past-due subscription's. */
function renews(current: Subscription, periodEnd: string | null): boolean {
  if (current.status === 'canceled' || !current.currentPeriodEnd || !periodEnd) return false;
  return periodEnd > current.currentPeriodEnd;
}

export function subscriptionEventData(s: Subscription) {
  return {
    subscription_id: s.id,
    user_id: s.userId,
    plan_id: s.planId,
    status: s.status,
    current_period_end: s.currentPeriodEnd,
  };
}
