import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { type Coupon, findCouponByCode } from './coupons.ts';

/** Why a coupon code does not apply to a purchase; the surfaces put it into words. */
export type CouponRefusal =
  | 'coupon_unknown'
  | 'coupon_inactive'
  | 'coupon_expired'
  | 'coupon_used_up'
  | 'coupon_not_for_product'
  | 'coupon_wrong_currency';

/** What a coupon does to a price, or why it does not apply. */
export type CouponOutcome =
  | { ok: true; coupon: Coupon; discountAmount: number; totalAmount: number }
  | { ok: false; reason: CouponRefusal };

/** The product being bought and its price in minor units of `currency`. */
export interface Purchase {
  productType: 'course' | 'digital_product' | 'membership_plan' | 'event';
  productId: string;
  amount: number;
  currency: string;
}

/** A coupon's discount on `amount`: a percentage rounded down, or a fixed amount, never more than the price. */
function discountOf(coupon: Coupon, amount: number): number {
  const off =
    coupon.kind === 'percent'
      ? Math.floor((amount * (coupon.percentOff ?? 0)) / 100)
      : (coupon.amountOff ?? 0);
  return Math.min(amount, off);
}

/**
 * Lectern's coupon rules for one purchase: the code is the school's (case-insensitive), active,
 * not expired, not redeemed `maxRedemptions` times, made for this product (or every product), and
 * a fixed coupon is in the price's currency.
 */
export async function applyCoupon(
  db: Db | Tx,
  schoolId: string,
  code: string,
  purchase: Purchase,
  now = isoNow(),
): Promise<CouponOutcome> {
  const coupon = await findCouponByCode(db, schoolId, code);
  if (!coupon) return { ok: false, reason: 'coupon_unknown' };
  if (!coupon.active) return { ok: false, reason: 'coupon_inactive' };
  if (coupon.expiresAt !== null && coupon.expiresAt <= now) return { ok: false, reason: 'coupon_expired' };
  if (coupon.maxRedemptions !== null && coupon.redemptionsCount >= coupon.maxRedemptions) {
    return { ok: false, reason: 'coupon_used_up' };
  }
  if (
    coupon.appliesTo &&
    !coupon.appliesTo.some((p) => p.type === purchase.productType && p.id === purchase.productId)
  ) {
    return { ok: false, reason: 'coupon_not_for_product' };
  }
  if (coupon.kind === 'fixed' && coupon.currency?.toUpperCase() !== purchase.currency.toUpperCase()) {
    return { ok: false, reason: 'coupon_wrong_currency' };
  }
  const discountAmount = discountOf(coupon, purchase.amount);
  return { ok: true, coupon, discountAmount, totalAmount: purchase.amount - discountAmount };
}

/** Counts one redemption of a coupon (an order that used it was paid). */
export async function recordRedemption(tx: Tx, schoolId: string, couponId: string): Promise<void> {
  await tx
    .updateTable('coupons')
    .set((eb) => ({ redemptions_count: eb('redemptions_count', '+', 1) }))
    .where('school_id', '=', schoolId)
    .where('id', '=', couponId)
    .execute();
}
