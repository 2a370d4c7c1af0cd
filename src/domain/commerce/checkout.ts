import { newId } from '../../crypto/ids.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoIn, isoNow } from '../../store/time.ts';
import { withTransaction } from '../kernel/checks.ts';
import { findEnrollmentOf } from '../learning/enrollments.ts';
import { applyCoupon, type CouponRefusal } from './coupon-redemption.ts';
import type { CheckoutsTable } from './payment-tables.ts';
import { type StripeSettings, stripeFailed, stripeKeysOf } from './stripe-accounts.ts';
import { stripeClient } from './stripe-client.ts';

/** How long a pending order waits for its payment: Stripe's own Checkout Session lifetime. */
const CHECKOUT_LIFETIME_SECONDS = 24 * 3600;

/** Why a purchase cannot start; the surfaces put it into words. */
export type CheckoutRefusal = 'stripe_not_connected' | 'not_for_sale' | 'already_enrolled' | CouponRefusal;

/** A pending order and the Stripe Checkout page that pays it. */
export interface StartedCheckout {
  /** The order's id once paid (Stripe's `client_reference_id`). */
  orderId: string;
  sessionId: string;
  /** Where to send the buyer: Stripe's hosted Checkout. */
  url: string;
  subtotalAmount: number;
  discountAmount: number;
  totalAmount: number;
  currency: string;
}

export interface CheckoutRequest {
  userId: string;
  courseId: string;
  couponCode?: string;
  /** Where Stripe sends the buyer after paying; `{CHECKOUT_SESSION_ID}` is added to it. */
  successUrl: string;
  /** Where Stripe sends the buyer who turns back: the course. */
  cancelUrl: string;
}

/** The Stripe Idempotency-Key of the one Checkout Session of a pending order. */
const checkoutIdempotencyKey = (orderId: string) => `lectern-checkout-${orderId}`;

function withSessionId(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`;
}

/**
 * The buyer's pending order of this course at this price, reused while it is open (a double
 * click, a reload, a retry after a crash find it again), or a new one.
 */
async function pendingOrder(db: Db | Tx, row: Omit<CheckoutsTable, 'id' | 'created_at' | 'updated_at'>) {
  return withTransaction(db, async (tx) => {
    const open = await tx
      .selectFrom('checkouts')
      .selectAll()
      .where('school_id', '=', row.school_id)
      .where('user_id', '=', row.user_id)
      .where('product_type', '=', row.product_type)
      .where('product_id', '=', row.product_id)
      .where('status', '=', 'open')
      .where('total_amount', '=', row.total_amount)
      .where('currency', '=', row.currency)
      .where('expires_at', '>', isoNow())
      .executeTakeFirst();
    if (open && open.coupon_id === row.coupon_id) return open;
    const now = isoNow();
    const made: CheckoutsTable = { ...row, id: newId('ord'), created_at: now, updated_at: now };
    await tx.insertInto('checkouts').values(made).execute();
    return made;
  });
}

/**
 * Starts buying a course through the school's Stripe account: checks the course is for sale and
 * the coupon by Lectern's own rules, makes a pending order, and a Checkout Session for it
 * (`mode=payment`, one line at the price after the coupon). The session is created with an
 * Idempotency-Key derived from the order, so a retried step never makes a second one.
 */
export async function startCourseCheckout(
  db: Db,
  settings: StripeSettings,
  schoolId: string,
  req: CheckoutRequest,
): Promise<{ ok: true; checkout: StartedCheckout } | { ok: false; reason: CheckoutRefusal }> {
  const keys = await stripeKeysOf(db, settings.sealKey, schoolId);
  if (!keys) return { ok: false, reason: 'stripe_not_connected' };
  const course = await db
    .selectFrom('courses')
    .select(['id', 'title', 'status', 'price_amount', 'currency'])
    .where('school_id', '=', schoolId)
    .where('id', '=', req.courseId)
    .executeTakeFirst();
  if (!course) return { ok: false, reason: 'not_for_sale' };
  if (course.status !== 'published' || course.price_amount <= 0) return { ok: false, reason: 'not_for_sale' };
  if (await findEnrollmentOf(db, schoolId, req.userId, course.id))
    return { ok: false, reason: 'already_enrolled' };
  const purchase = {
    productType: 'course',
    productId: course.id,
    amount: course.price_amount,
    currency: course.currency,
  } as const;
  const coupon = req.couponCode ? await applyCoupon(db, schoolId, req.couponCode, purchase) : undefined;
  if (coupon && !coupon.ok) return { ok: false, reason: coupon.reason };
  const buyer = await db
    .selectFrom('users')
    .select('email')
    .where('id', '=', req.userId)
    .executeTakeFirstOrThrow();
  const order = await pendingOrder(db, {
    school_id: schoolId,
    user_id: req.userId,
    product_type: 'course',
    product_id: course.id,
    title: course.title,
    currency: course.currency,
    subtotal_amount: course.price_amount,
    discount_amount: coupon?.discountAmount ?? 0,
    total_amount: coupon?.totalAmount ?? course.price_amount,
    coupon_id: coupon?.coupon.id ?? null,
    status: 'open',
    session_id: null,
    session_url: null,
    expires_at: isoIn(CHECKOUT_LIFETIME_SECONDS),
  });
  const done = (sessionId: string, url: string) => ({
    ok: true as const,
    checkout: {
      orderId: order.id,
      sessionId,
      url,
      subtotalAmount: order.subtotal_amount,
      discountAmount: order.discount_amount,
      totalAmount: order.total_amount,
      currency: order.currency,
    },
  });
  if (order.session_id && order.session_url) return done(order.session_id, order.session_url);
  let session: { id: string; url: string | null };
  try {
    session = await stripeClient(settings.apiBase, keys.secretKey).checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: order.currency.toLowerCase(),
              unit_amount: order.total_amount,
              product_data: { name: order.title },
            },
          },
        ],
        client_reference_id: order.id,
        metadata: { school_id: schoolId, order_id: order.id },
        payment_intent_data: { metadata: { school_id: schoolId, order_id: order.id } },
        customer_email: buyer.email,
        success_url: withSessionId(req.successUrl),
        cancel_url: req.cancelUrl,
      },
      { idempotencyKey: checkoutIdempotencyKey(order.id) },
    );
  } catch {
    stripeFailed();
  }
  if (!session.url) stripeFailed();
  await db
    .updateTable('checkouts')
    .set({ session_id: session.id, session_url: session.url, updated_at: isoNow() })
    .where('id', '=', order.id)
    .execute();
  return done(session.id, session.url);
}
