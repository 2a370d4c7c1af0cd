import type { Kysely } from 'kysely';
import { schoolTable, timestamps } from './columns.ts';

/**
 * Selling through each school's own Stripe account (docs/payments.md):
 * - `stripe_accounts`: one per school that connected Stripe; both keys sealed with the
 *   deployment's secret (crypto/secret-box.ts), never stored in the clear.
 * - `checkouts`: a pending order. Its id is the order's id to be (Stripe's `client_reference_id`),
 *   so the order row exists only once paid and a pending one never counts as revenue.
 * - `order_payments`: which Checkout Session and payment intent paid an order (refunds need the
 *   payment intent; `charge.refunded` finds the order by it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await timestamps(
    db.schema
      .createTable('stripe_accounts')
      .addColumn('school_id', 'text', (c) => c.primaryKey().references('schools.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('livemode', 'integer', (c) => c.notNull())
      .addColumn('secret_key', 'text', (c) => c.notNull())
      .addColumn('webhook_secret', 'text', (c) => c.notNull()),
  ).execute();

  await timestamps(
    schoolTable(db, 'checkouts')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('product_type', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('subtotal_amount', 'integer', (c) => c.notNull())
      .addColumn('discount_amount', 'integer', (c) => c.notNull())
      .addColumn('total_amount', 'integer', (c) => c.notNull())
      .addColumn('coupon_id', 'text', (c) => c.references('coupons.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text')
      .addColumn('session_url', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull()),
  ).execute();
  await db.schema
    .createIndex('checkouts_school_status')
    .on('checkouts')
    .columns(['school_id', 'status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('order_payments')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id').onDelete('cascade'))
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('order_payments_school_intent')
    .on('order_payments')
    .columns(['school_id', 'payment_intent_id'])
    .execute();
}
