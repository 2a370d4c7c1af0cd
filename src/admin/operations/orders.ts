import { z } from 'zod';
import {
  getOrder,
  listOrders,
  ORDER_STATUSES,
  type Order,
  PRODUCT_TYPES,
} from '../../domain/commerce/orders.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  Amount,
  Currency,
  Email,
  Id,
  named,
  PageQuery,
  pageOf,
  RangeQuery,
  Timestamp,
  toSnake,
} from '../schemas.ts';
import { userFilter } from './students.ts';

export const OrderSchema = named(
  'Order',
  z.object({
    id: Id,
    number: z.string().describe('Human-readable order number.'),
    user_id: Id,
    user: z.object({ id: Id, name: z.string(), email: z.string() }),
    status: z.enum(ORDER_STATUSES),
    currency: Currency,
    subtotal_amount: Amount,
    discount_amount: Amount,
    total_amount: Amount,
    refunded_amount: Amount,
    coupon_id: Id.nullable(),
    coupon_code: z.string().nullable(),
    items: z.array(
      z.object({
        id: Id,
        product_type: z.enum(PRODUCT_TYPES),
        product_id: Id,
        title: z.string(),
        quantity: z.number().int(),
        unit_amount: Amount,
        total_amount: Amount,
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'An order (read only). Amounts in minor units of `currency`.',
);
export const presentOrder = (o: Order) => ({ ...toSnake(o), items: o.items.map((i) => toSnake(i, [])) });

/** Read-only order operations. */
export const orderOperations = [
  defineOperation({
    name: 'orders.list',
    summary: 'List orders',
    description:
      'Orders oldest first; filter by `status`, buyer (`user_id` or `email`) and creation date range.',
    scope: 'orders:read',
    method: 'GET',
    path: '/api/v1/orders',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(ORDER_STATUSES).optional(),
        user_id: Id.optional(),
        email: Email.optional().describe('The buyer’s email (exact, case-insensitive).'),
        ...RangeQuery('orders created'),
      }),
    },
    output: pageOf(OrderSchema),
    handler: async (ctx, { query }) => {
      const userId = await userFilter(ctx, query.user_id, query.email);
      if (userId === null) return { data: [], next_cursor: null };
      const page = await listOrders(
        ctx.db,
        ctx.schoolId,
        { status: query.status, userId, createdFrom: query.from, createdTo: query.to },
        query,
      );
      return mapPage(page, presentOrder);
    },
  }),
  defineOperation({
    name: 'orders.get',
    summary: 'Get an order',
    scope: 'orders:read',
    method: 'GET',
    path: '/api/v1/orders/{order_id}',
    input: { params: z.strictObject({ order_id: Id }) },
    output: OrderSchema,
    etag: true,
    examples: {
      response: {
        id: 'ord_01jf3k6m2v8w9x0y1z2a3b4c5d',
        number: '1001',
        user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
        user: { id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d', name: 'Sam', email: 'sam@example.com' },
        status: 'paid',
        currency: 'EUR',
        subtotal_amount: 4900,
        discount_amount: 1225,
        total_amount: 3675,
        refunded_amount: 0,
        coupon_id: 'cpn_01jf3k6m2v8w9x0y1z2a3b4c5d',
        coupon_code: 'SPRING25',
        items: [
          {
            id: 'itm_01jf3k6m2v8w9x0y1z2a3b4c5d',
            product_type: 'course',
            product_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
            title: 'Intro to Watercolour',
            quantity: 1,
            unit_amount: 4900,
            total_amount: 4900,
          },
        ],
        created_at: '2026-03-01T09:00:00.000Z',
        updated_at: '2026-03-01T09:00:00.000Z',
      },
    },
    handler: async (ctx, { params }) => presentOrder(await getOrder(ctx.db, ctx.schoolId, params.order_id)),
  }),
];
