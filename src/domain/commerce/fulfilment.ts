import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { isUniqueViolation, withTransaction } from '../kernel/checks.ts';
import { enroll, findEnrollmentOf } from '../learning/enrollments.ts';
import { recordRedemption } from './coupon-redemption.ts';
import { recordOrder } from './orders.ts';

/** The fields of a Stripe Checkout Session that fulfilment reads. */
export interface PaidSession {
  id: string;
  client_reference_id: string | null;
  payment_status: string;
  amount_total: number | null;
  currency: string | null;
  payment_intent: string | { id: string } | null;
}

/**
 * What a notice of a paid session did: `fulfilled` the first time; `duplicate` when the order
 * was already paid; the rest change nothing: `unknown_order` (not a pending order of this
 * school, e.g. another school's), `not_paid` (payment still pending), `mismatch` (not the
 * session or the amount Lectern made for this order).
 */
export type FulfilmentOutcome = 'fulfilled' | 'duplicate' | 'unknown_order' | 'not_paid' | 'mismatch';

// Order numbers are the school's count + 1: two orders paid at the same instant on PostgreSQL
// may both take it, and the loser runs again.
const NUMBER_RETRIES = 5;

/**
 * Fulfils the pending order a paid Checkout Session names, exactly once: the order becomes paid,
 * its coupon's redemption is counted and the buyer is enrolled, in one transaction whose first
 * write claims the pending order (`open` → `completed`), so concurrent deliveries of the same
 * notice wait for each other and all but one find it claimed.
 */
export async function fulfilCheckoutSession(
  db: Db,
  schoolId: string,
  session: PaidSession,
): Promise<FulfilmentOutcome> {
  if (!session.client_reference_id) return 'unknown_order';
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(db, (tx) => fulfil(tx, schoolId, session));
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= NUMBER_RETRIES) throw err;
    }
  }
}

async function fulfil(tx: Tx, schoolId: string, session: PaidSession): Promise<FulfilmentOutcome> {
  const pending = await tx
    .selectFrom('checkouts')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', session.client_reference_id ?? '')
    .executeTakeFirst();
  if (!pending) return 'unknown_order';
  if (pending.session_id !== session.id) return 'mismatch';
  if (session.payment_status !== 'paid') return 'not_paid';
  if (session.amount_total !== pending.total_amount || session.currency?.toUpperCase() !== pending.currency) {
    return 'mismatch';
  }
  // The claim: one transaction wins it; the others wait on its row lock, then find it taken.
  const claimed = await tx
    .updateTable('checkouts')
    .set({ status: 'completed', updated_at: isoNow() })
    .where('id', '=', pending.id)
    .where('status', '!=', 'completed')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return 'duplicate';
  await recordOrder(tx, schoolId, {
    id: pending.id,
    userId: pending.user_id,
    currency: pending.currency,
    status: 'paid',
    items: [
      {
        productType: pending.product_type,
        productId: pending.product_id,
        title: pending.title,
        unitAmount: pending.subtotal_amount,
      },
    ],
    discountAmount: pending.discount_amount,
    couponId: pending.coupon_id,
  });
  if (pending.coupon_id) await recordRedemption(tx, schoolId, pending.coupon_id);
  if (!(await findEnrollmentOf(tx, schoolId, pending.user_id, pending.product_id))) {
    await enroll(tx, schoolId, { userId: pending.user_id, courseId: pending.product_id, source: 'order' });
  }
  const intent = session.payment_intent;
  await tx
    .insertInto('order_payments')
    .values({
      order_id: pending.id,
      school_id: schoolId,
      session_id: session.id,
      payment_intent_id: typeof intent === 'string' ? intent : (intent?.id ?? null),
      created_at: isoNow(),
    })
    .execute();
  return 'fulfilled';
}
