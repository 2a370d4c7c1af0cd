import Stripe from 'stripe';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { withTransaction } from '../kernel/checks.ts';
import { findEnrollmentOf, setEnrollmentExpiry } from '../learning/enrollments.ts';
import { getOrder, type Order } from './orders.ts';
import { type StripeSettings, stripeFailed, stripeKeysOf } from './stripe-accounts.ts';
import { stripeClient } from './stripe-client.ts';

const notRefundable = (detail: string) => problem('not_refundable', { detail });

/**
 * The Stripe Idempotency-Key of one refund request: the order, what it had refunded when asked,
 * and the amount. A step retried before its result was kept (a crash, a timeout) asks again with
 * the same key and Stripe answers the first refund instead of making another; once kept, the
 * order's refunded amount moves on and a new request is a new refund.
 */
const refundIdempotencyKey = (orderId: string, refundedBefore: number, amount: number) =>
  `lectern-refund-${orderId}-${refundedBefore}-${amount}`;

/**
 * Brings an order to `refundedTotal` (minor units) refunded: `partially_refunded`, or `refunded`
 * when all of it, which ends the course access the order gave. Only ever raises the refunded
 * amount, so a refund made here and the `charge.refunded` notice of the same refund change the
 * order once. Records `order.refunded` (audit trail and webhooks) when it changed.
 */
async function applyRefund(
  db: Db | Tx,
  schoolId: string,
  orderId: string,
  refundedTotal: number,
): Promise<Order> {
  return withTransaction(db, async (tx) => {
    const order = await getOrder(tx, schoolId, orderId);
    const target = Math.min(refundedTotal, order.totalAmount);
    const full = target >= order.totalAmount;
    const raised = await tx
      .updateTable('orders')
      .set({
        refunded_amount: target,
        status: full ? 'refunded' : 'partially_refunded',
        updated_at: isoNow(),
      })
      .where('school_id', '=', schoolId)
      .where('id', '=', orderId)
      .where('refunded_amount', '<', target)
      .executeTakeFirst();
    if (Number(raised.numUpdatedRows) === 0) return order;
    if (full) await endAccess(tx, schoolId, order);
    const after = await getOrder(tx, schoolId, orderId);
    await recordEvent(tx, schoolId, 'order.refunded', {
      order_id: after.id,
      number: after.number,
      user_id: after.userId,
      status: after.status,
      currency: after.currency,
      total_amount: after.totalAmount,
      refunded_amount: after.refundedAmount,
    });
    return after;
  });
}

// A fully refunded order no longer gives the courses it bought: their enrollments made by the
// order end now (progress is kept; access given otherwise, by hand or a plan, stays).
async function endAccess(tx: Tx, schoolId: string, order: Order): Promise<void> {
  for (const item of order.items) {
    if (item.productType !== 'course') continue;
    const enrollment = await findEnrollmentOf(tx, schoolId, order.userId, item.productId);
    if (enrollment?.source === 'order' && enrollment.active) {
      await setEnrollmentExpiry(tx, schoolId, enrollment.id, isoNow());
    }
  }
}

/**
 * Refunds a Stripe-paid order, in full (no amount) or in part: `POST /v1/refunds` with the
 * payment intent and amount, under refundIdempotencyKey, then applyRefund. Run in the caller's
 * transaction when given one (the REST Idempotency-Key claim holds it).
 */
export async function refundOrder(
  db: Db | Tx,
  settings: StripeSettings,
  schoolId: string,
  orderId: string,
  amount?: number,
): Promise<Order> {
  const order = await getOrder(db, schoolId, orderId);
  const payment = await db
    .selectFrom('order_payments')
    .select('payment_intent_id')
    .where('school_id', '=', schoolId)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  if (!payment?.payment_intent_id)
    throw notRefundable('This order was not paid through Stripe: refund it where it was paid.');
  const left = order.totalAmount - order.refundedAmount;
  if (left <= 0) throw notRefundable('This order is already refunded in full.');
  const value = amount ?? left;
  if (value > left)
    throw problems.validation([
      { field: 'amount', message: `must be at most ${left}, what is left to refund` },
    ]);
  const keys = await stripeKeysOf(db, settings.sealKey, schoolId);
  if (!keys)
    throw problem('stripe_not_connected', { detail: 'Connect the school’s Stripe account to refund.' });
  try {
    await stripeClient(settings.apiBase, keys.secretKey).refunds.create(
      { payment_intent: payment.payment_intent_id, amount: value },
      { idempotencyKey: refundIdempotencyKey(orderId, order.refundedAmount, value) },
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeInvalidRequestError)
      throw notRefundable(`Stripe refused the refund: ${err.message}`);
    stripeFailed();
  }
  return applyRefund(db, schoolId, orderId, order.refundedAmount + value);
}

/** A `charge.refunded` notice: the order its payment intent paid reads what Stripe has refunded. */
export async function applyChargeRefunded(
  db: Db,
  schoolId: string,
  charge: { payment_intent: string | { id: string } | null; amount_refunded: number },
): Promise<'refunded' | 'unknown_order'> {
  const intent =
    typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
  if (!intent) return 'unknown_order';
  const payment = await db
    .selectFrom('order_payments')
    .select('order_id')
    .where('school_id', '=', schoolId)
    .where('payment_intent_id', '=', intent)
    .executeTakeFirst();
  if (!payment) return 'unknown_order';
  await applyRefund(db, schoolId, payment.order_id, charge.amount_refunded);
  return 'refunded';
}
