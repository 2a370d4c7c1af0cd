import { z } from 'zod';
import {
  COUPON_KINDS,
  type Coupon,
  CouponCreate,
  CouponPatch,
  createCoupon,
  deleteCoupon,
  getCoupon,
  listCoupons,
  ProductRefFields,
  updateCoupon,
} from '../../domain/commerce/coupons.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  Amount,
  bodyOf,
  Currency,
  Id,
  named,
  PageQuery,
  pageOf,
  QueryBool,
  SearchQuery,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

const CouponSchema = named(
  'Coupon',
  z.object({
    id: Id,
    code: z.string(),
    kind: z.enum(COUPON_KINDS),
    percent_off: declare(z.number().int(), { kind: 'percent' }).nullable(),
    amount_off: Amount.nullable(),
    currency: Currency.nullable(),
    max_redemptions: z.number().int().nullable(),
    redemptions_count: z.number().int(),
    expires_at: Timestamp.nullable(),
    applies_to: z.array(ProductRefFields).nullable().describe('Null: every product.'),
    active: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A discount code.',
);

const present = (c: Coupon) => toSnake(c);

const instants = { expires_at: Timestamp.nullable() };
const CreateBody = bodyOf(CouponCreate, instants);
const UpdateBody = bodyOf(CouponPatch, instants);
const ById = z.strictObject({ coupon_id: Id });

const example = {
  id: 'cpn_01jf3k6m2v8w9x0y1z2a3b4c5d',
  code: 'SPRING25',
  kind: 'percent',
  percent_off: 25,
  amount_off: null,
  currency: null,
  max_redemptions: 100,
  redemptions_count: 3,
  expires_at: '2026-06-01T00:00:00.000Z',
  applies_to: [{ type: 'course', id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d' }],
  active: true,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'coupons.get',
  summary: 'Get a coupon',
  scope: 'coupons:read',
  method: 'GET',
  path: '/api/v1/coupons/{coupon_id}',
  input: { params: ById },
  output: CouponSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getCoupon(ctx.db, ctx.schoolId, params.coupon_id)),
});

/** The coupon operations. */
export const couponOperations = [
  defineOperation({
    name: 'coupons.list',
    summary: 'List coupons',
    description: 'Coupons oldest first; filter by `active` or a `search` on the code.',
    scope: 'coupons:read',
    method: 'GET',
    path: '/api/v1/coupons',
    input: { query: z.strictObject({ ...PageQuery, active: QueryBool, search: SearchQuery }) },
    output: pageOf(CouponSchema),
    examples: { response: { data: [example], next_cursor: null } },
    handler: async (ctx, { query }) => {
      const page = await listCoupons(
        ctx.db,
        ctx.schoolId,
        { active: query.active, search: query.search },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'coupons.create',
    summary: 'Create a coupon',
    description:
      'A `percent` coupon needs `percent_off`; a `fixed` one `amount_off` and `currency`. Codes are unique per school (409 `code_taken`).',
    scope: 'coupons:write',
    method: 'POST',
    path: '/api/v1/coupons',
    input: { body: CreateBody },
    output: CouponSchema,
    status: 201,
    etag: true,
    examples: {
      request: { code: 'SPRING25', kind: 'percent', percent_off: 25, max_redemptions: 100 },
      response: example,
    },
    handler: async (ctx, { body }) => present(await createCoupon(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'coupons.update',
    summary: 'Update a coupon',
    scope: 'coupons:write',
    method: 'PATCH',
    path: '/api/v1/coupons/{coupon_id}',
    input: { params: ById, body: UpdateBody },
    output: CouponSchema,
    etag: true,
    current: get.handler,
    examples: { request: { active: false } },
    handler: async (ctx, { params, body }) =>
      present(await updateCoupon(ctx.db, ctx.schoolId, params.coupon_id, toCamel(body))),
  }),
  defineOperation({
    name: 'coupons.delete',
    summary: 'Delete a coupon',
    description: 'Past orders keep the code they used.',
    scope: 'coupons:write',
    method: 'DELETE',
    path: '/api/v1/coupons/{coupon_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteCoupon(ctx.db, ctx.schoolId, params.coupon_id),
  }),
];
