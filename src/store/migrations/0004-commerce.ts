import type { Kysely } from 'kysely';
import { schoolTable, timestamps } from './columns.ts';

/** Coupons, orders, membership plans, subscriptions and digital products. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await timestamps(
    schoolTable(db, 'coupons')
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('percent_off', 'integer')
      .addColumn('amount_off', 'integer')
      .addColumn('currency', 'text')
      .addColumn('max_redemptions', 'integer')
      .addColumn('redemptions_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', 'text')
      .addColumn('applies_to', 'text')
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1)),
  )
    .addUniqueConstraint('coupons_school_code', ['school_id', 'code'])
    .execute();

  await timestamps(
    schoolTable(db, 'orders')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('number', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('subtotal_amount', 'integer', (c) => c.notNull())
      .addColumn('discount_amount', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total_amount', 'integer', (c) => c.notNull())
      .addColumn('refunded_amount', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('coupon_id', 'text', (c) => c.references('coupons.id').onDelete('set null'))
      .addColumn('coupon_code', 'text'),
  )
    .addUniqueConstraint('orders_school_number', ['school_id', 'number'])
    .execute();
  await db.schema
    .createIndex('orders_school_user')
    .on('orders')
    .columns(['school_id', 'user_id', 'id'])
    .execute();
  await db.schema
    .createIndex('orders_school_created')
    .on('orders')
    .columns(['school_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('order_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('product_type', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('unit_amount', 'integer', (c) => c.notNull())
    .addColumn('total_amount', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_items_order').on('order_items').column('order_id').execute();

  await timestamps(
    schoolTable(db, 'membership_plans')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('interval', 'text', (c) => c.notNull())
      .addColumn('price_amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull()),
  ).execute();
  await db.schema
    .createIndex('membership_plans_school')
    .on('membership_plans')
    .columns(['school_id', 'id'])
    .execute();

  await db.schema
    .createTable('membership_plan_courses')
    .addColumn('plan_id', 'text', (c) => c.notNull().references('membership_plans.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull().references('courses.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('membership_plan_courses_pk', ['plan_id', 'course_id'])
    .execute();

  await timestamps(
    schoolTable(db, 'subscriptions')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('plan_id', 'text', (c) => c.notNull().references('membership_plans.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('current_period_end', 'text')
      .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('canceled_at', 'text')
      .addColumn('trial_ends_at', 'text'),
  ).execute();
  await db.schema
    .createIndex('subscriptions_school_user')
    .on('subscriptions')
    .columns(['school_id', 'user_id', 'id'])
    .execute();

  await timestamps(
    schoolTable(db, 'digital_products')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('price_amount', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('file_id', 'text', (c) => c.references('stored_files.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull()),
  ).execute();
  await db.schema
    .createIndex('digital_products_school')
    .on('digital_products')
    .columns(['school_id', 'id'])
    .execute();
}
