import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, MAX_AMOUNT, parseValid, withTransaction } from '../kernel/checks.ts';
import { Amount, Currency, Instant, Text, worded } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { OrderItemsTable, OrdersTable } from '../kernel/tables.ts';

export const ORDER_STATUSES = ['paid', 'refunded', 'partially_refunded', 'failed'] as const;
type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Orders that count as revenue: paid ones, refunds netted out (failed ones never do). */
const REVENUE_STATUSES: readonly OrderStatus[] = ['paid', 'partially_refunded', 'refunded'];
export const PRODUCT_TYPES = ['course', 'digital_product', 'membership_plan', 'event'] as const;
type ProductType = (typeof PRODUCT_TYPES)[number];

/** One line of an order; amounts in minor units of the order's currency. */
export interface OrderItem {
  id: string;
  productType: ProductType;
  productId: string;
  title: string;
  quantity: number;
  unitAmount: number;
  totalAmount: number;
}

/** A purchase (read only on every surface). Amounts in minor units of `currency`. */
export interface Order {
  id: string;
  schoolId: string;
  number: string;
  userId: string;
  user: { id: string; name: string; email: string };
  status: OrderStatus;
  currency: string;
  subtotalAmount: number;
  discountAmount: number;
  totalAmount: number;
  refundedAmount: number;
  couponId: string | null;
  couponCode: string | null;
  items: OrderItem[];
  createdAt: string;
  updatedAt: string;
}

/** Which orders to list: by status, buyer, and a window of creation instants. */
const OrderFilterFields = z
  .object({
    status: z.enum(ORDER_STATUSES),
    userId: z.string(),
    /** Created at or after this instant. */
    createdFrom: Instant,
    /** Created before this instant. */
    createdTo: Instant,
  })
  .partial();
export type OrderFilter = z.input<typeof OrderFilterFields>;

type Row = OrdersTable & { user_name: string; user_email: string };

function toItem(r: OrderItemsTable): OrderItem {
  return {
    id: r.id,
    productType: r.product_type,
    productId: r.product_id,
    title: r.title,
    quantity: r.quantity,
    unitAmount: r.unit_amount,
    totalAmount: r.total_amount,
  };
}

function toOrder(r: Row, items: OrderItem[]): Order {
  return {
    id: r.id,
    schoolId: r.school_id,
    number: r.number,
    userId: r.user_id,
    user: { id: r.user_id, name: r.user_name, email: r.user_email },
    status: r.status,
    currency: r.currency,
    subtotalAmount: r.subtotal_amount,
    discountAmount: r.discount_amount,
    totalAmount: r.total_amount,
    refundedAmount: r.refunded_amount,
    couponId: r.coupon_id,
    couponCode: r.coupon_code,
    items,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function baseQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('orders')
    .innerJoin('users', 'users.id', 'orders.user_id')
    .selectAll('orders')
    .select(['users.name as user_name', 'users.email as user_email'])
    .where('orders.school_id', '=', schoolId);
}

function filtered(db: Db | Tx, schoolId: string, filter: OrderFilter) {
  let q = baseQuery(db, schoolId);
  if (filter.status) q = q.where('orders.status', '=', filter.status);
  if (filter.userId) q = q.where('orders.user_id', '=', filter.userId);
  if (filter.createdFrom) q = q.where('orders.created_at', '>=', filter.createdFrom);
  if (filter.createdTo) q = q.where('orders.created_at', '<', filter.createdTo);
  return q;
}

async function itemsOf(db: Db | Tx, orderIds: string[]): Promise<Map<string, OrderItem[]>> {
  const out = new Map<string, OrderItem[]>();
  if (orderIds.length === 0) return out;
  const rows = await db
    .selectFrom('order_items')
    .selectAll()
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const list = out.get(r.order_id) ?? [];
    list.push(toItem(r));
    out.set(r.order_id, list);
  }
  return out;
}

/** Orders of the school with their items, newest first, by status, user and creation window. */
export async function listOrders(
  db: Db | Tx,
  schoolId: string,
  filter: OrderFilter = {},
  page: PageParams = {},
): Promise<Page<Order>> {
  const rows = await paginate(filtered(db, schoolId, parseValid(OrderFilterFields, filter)), page, {
    table: 'orders',
    direction: 'desc',
  });
  const items = await itemsOf(
    db,
    rows.data.map((r) => r.id),
  );
  return { data: rows.data.map((r) => toOrder(r, items.get(r.id) ?? [])), next_cursor: rows.next_cursor };
}

/** How many orders match (GraphQL totalCount). */
export function countOrders(db: Db | Tx, schoolId: string, filter: OrderFilter = {}): Promise<number> {
  return countRows(filtered(db, schoolId, parseValid(OrderFilterFields, filter)));
}

/** An order of the school with its items, or undefined. */
export async function findOrder(db: Db | Tx, schoolId: string, id: string): Promise<Order | undefined> {
  const row = await baseQuery(db, schoolId).where('orders.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return toOrder(row, (await itemsOf(db, [row.id])).get(row.id) ?? []);
}

/** An order of the school with its items; 404 otherwise. */
export async function getOrder(db: Db | Tx, schoolId: string, id: string): Promise<Order> {
  const order = await findOrder(db, schoolId, id);
  if (!order) throw problems.notFound('No such order.');
  return order;
}

/**
 * The one revenue rule: the school's orders that were paid, even if (partially) refunded since,
 * created in [from, to). Reports sum their totals net of refunded amounts.
 */
export function revenueOrders(db: Db | Tx, schoolId: string, range: { from: string; to: string }) {
  return db
    .selectFrom('orders')
    .where('school_id', '=', schoolId)
    .where('status', 'in', REVENUE_STATUSES)
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.to);
}

/** One line of a recorded order. */
const OrderItemFields = z.object({
  productType: z.enum(PRODUCT_TYPES),
  productId: Text(100),
  title: Text(200),
  unitAmount: Amount,
  quantity: z.number().int().min(1).max(10_000).optional(),
});

/**
 * An order as a payment provider reports it. The buyer and the coupon are rules over the
 * database, and the discount and refund are bounded by the items' sum: those stay in code.
 */
export const RecordOrderFields = z.object({
  currency: Currency,
  status: z.enum(ORDER_STATUSES).optional(),
  items: worded(z.array(OrderItemFields).min(1), 'must not be empty'),
  createdAt: Instant.optional(),
});
export type RecordOrderInput = z.input<typeof RecordOrderFields> & {
  userId: string;
  /** The id the order was known by while pending (a checkout's), instead of a new one. */
  id?: string;
  /** Minor units, at most the items' sum. */
  discountAmount?: number;
  /** Minor units, at most what was paid (the sum less the discount). */
  refundedAmount?: number;
  /** A coupon of the school that was redeemed; its code is copied onto the order. */
  couponId?: string | null;
};

/**
 * Records an order that was settled: paid through the school's Stripe Checkout
 * (commerce/fulfilment.ts), or brought from outside (an import, the demo seed). Totals are
 * computed from the items; the number is the school's next `ORD-nnnnn`.
 */
export async function recordOrder(db: Db | Tx, schoolId: string, input: RecordOrderInput): Promise<Order> {
  const c = new Checks();
  const v = c.parse(RecordOrderFields, input);
  const status = v.status ?? 'paid';
  const items = (v.items ?? []).map((it) => {
    const quantity = it.quantity ?? 1;
    return {
      product_type: it.productType,
      product_id: it.productId,
      title: it.title,
      quantity,
      unit_amount: it.unitAmount,
      total_amount: it.unitAmount * quantity,
    };
  });
  const subtotal = items.reduce((s, it) => s + it.total_amount, 0);
  if (subtotal > MAX_AMOUNT) c.fail('items', `must add up to at most ${MAX_AMOUNT}`);
  // The discount and the refund are bounded by what the items add up to.
  const upTo = (max: number) => z.number().int().min(0).max(max);
  const discount = c.rule('discountAmount', upTo(subtotal), input.discountAmount ?? 0, 0);
  const refunded = c.rule('refundedAmount', upTo(subtotal - discount), input.refundedAmount ?? 0, 0);
  const createdAt = v.createdAt ?? isoNow();
  c.done();
  const currency = v.currency;
  return withTransaction(db, async (tx) => {
    const user = await tx.selectFrom('users').select('id').where('id', '=', input.userId).executeTakeFirst();
    if (!user) throw problems.notFound('No such user.');
    const coupon = input.couponId
      ? await tx
          .selectFrom('coupons')
          .select(['id', 'code'])
          .where('school_id', '=', schoolId)
          .where('id', '=', input.couponId)
          .executeTakeFirst()
      : undefined;
    if (input.couponId && !coupon) {
      throw problems.validation([{ field: 'couponId', message: 'must be a coupon of this school' }]);
    }
    const count = await tx
      .selectFrom('orders')
      .select(sql<number>`count(*)`.as('n'))
      .where('school_id', '=', schoolId)
      .executeTakeFirstOrThrow();
    const id = input.id ?? newId('ord', Date.parse(createdAt));
    await tx
      .insertInto('orders')
      .values({
        id,
        school_id: schoolId,
        user_id: input.userId,
        number: `ORD-${String(Number(count.n) + 1).padStart(5, '0')}`,
        status,
        currency,
        subtotal_amount: subtotal,
        discount_amount: discount,
        total_amount: subtotal - discount,
        refunded_amount: refunded,
        coupon_id: coupon?.id ?? null,
        coupon_code: coupon?.code ?? null,
        created_at: createdAt,
        updated_at: createdAt,
      })
      .execute();
    await tx
      .insertInto('order_items')
      // Item ids a millisecond apart keep the items in the order given (ids sort by time).
      .values(items.map((it, i) => ({ ...it, id: newId('oit', Date.parse(createdAt) + i), order_id: id })))
      .execute();
    const order = await getOrder(tx, schoolId, id);
    await recordOrderEvents(tx, schoolId, order);
    return order;
  });
}

/** `order.paid` for a settled order, `order.refunded` when it arrives refunded, `coupon.redeemed`. */
async function recordOrderEvents(tx: Tx, schoolId: string, order: Order): Promise<void> {
  const data = {
    order_id: order.id,
    number: order.number,
    user_id: order.userId,
    status: order.status,
    currency: order.currency,
    total_amount: order.totalAmount,
    refunded_amount: order.refundedAmount,
  };
  if (order.status !== 'failed') await recordEvent(tx, schoolId, 'order.paid', data);
  if (order.refundedAmount > 0) await recordEvent(tx, schoolId, 'order.refunded', data);
  if (order.couponId) {
    await recordEvent(tx, schoolId, 'coupon.redeemed', {
      coupon_id: order.couponId,
      code: order.couponCode,
      order_id: order.id,
      user_id: order.userId,
    });
  }
}
