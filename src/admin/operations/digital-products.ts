import { z } from 'zod';
import {
  createDigitalProduct,
  type DigitalProduct,
  DigitalProductCreate,
  DigitalProductPatch,
  deleteDigitalProduct,
  getDigitalProduct,
  listDigitalProducts,
  PRODUCT_STATUSES,
  updateDigitalProduct,
} from '../../domain/commerce/digital-products.ts';
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
  SearchQuery,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

const ProductSchema = named(
  'DigitalProduct',
  z.object({
    id: Id,
    title: z.string(),
    description: declare(z.string(), { kind: 'long_text' }),
    price_amount: Amount,
    currency: Currency,
    file_id: Id.nullable().describe('A file of the school’s store (upload with `storage.upload`).'),
    status: z.enum(PRODUCT_STATUSES),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A downloadable product.',
);
const present = (p: DigitalProduct) => toSnake(p);
const ById = z.strictObject({ digital_product_id: Id });
const example = {
  id: 'dpr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  title: 'Workbook (PDF)',
  description: 'Exercises for every chapter.',
  price_amount: 1900,
  currency: 'EUR',
  file_id: 'fil_01jf3k6m2v8w9x0y1z2a3b4c5d',
  status: 'published',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'digital_products.get',
  summary: 'Get a digital product',
  scope: 'digital_products:read',
  method: 'GET',
  path: '/api/v1/digital-products/{digital_product_id}',
  input: { params: ById },
  output: ProductSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) =>
    present(await getDigitalProduct(ctx.db, ctx.schoolId, params.digital_product_id)),
});

/** The digital product operations. */
export const digitalProductOperations = [
  defineOperation({
    name: 'digital_products.list',
    summary: 'List digital products',
    scope: 'digital_products:read',
    method: 'GET',
    path: '/api/v1/digital-products',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(PRODUCT_STATUSES).optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(ProductSchema),
    handler: async (ctx, { query }) => {
      const page = await listDigitalProducts(
        ctx.db,
        ctx.schoolId,
        { status: query.status, search: query.search },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'digital_products.create',
    summary: 'Create a digital product',
    description: 'The currency defaults to the school’s. Publishing needs a `file_id`.',
    scope: 'digital_products:write',
    method: 'POST',
    path: '/api/v1/digital-products',
    input: {
      body: bodyOf(DigitalProductCreate),
    },
    output: ProductSchema,
    status: 201,
    etag: true,
    examples: {
      request: { title: 'Workbook (PDF)', price_amount: 1900, currency: 'EUR' },
      response: example,
    },
    handler: async (ctx, { body }) =>
      present(await createDigitalProduct(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'digital_products.update',
    summary: 'Update a digital product',
    scope: 'digital_products:write',
    method: 'PATCH',
    path: '/api/v1/digital-products/{digital_product_id}',
    input: { params: ById, body: bodyOf(DigitalProductPatch) },
    output: ProductSchema,
    etag: true,
    current: get.handler,
    handler: async (ctx, { params, body }) =>
      present(await updateDigitalProduct(ctx.db, ctx.schoolId, params.digital_product_id, toCamel(body))),
  }),
  defineOperation({
    name: 'digital_products.delete',
    summary: 'Delete a digital product',
    scope: 'digital_products:write',
    method: 'DELETE',
    path: '/api/v1/digital-products/{digital_product_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteDigitalProduct(ctx.db, ctx.schoolId, params.digital_product_id),
  }),
];
