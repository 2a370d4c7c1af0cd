import { z } from 'zod';
import { refundOrder } from '../../domain/commerce/refunds.ts';
import { defineOperation } from '../define-operation.ts';
import { Amount, Id } from '../schemas.ts';
import { OrderSchema, presentOrder } from './orders.ts';

/** Refunding an order paid through the school's Stripe account (docs/payments.md). */
export const refundOperations = [
  defineOperation({
    name: 'orders.refund',
    summary: 'Refund an order',
    description:
      'Refunds an order paid through Stripe, in full (no `amount`) or in part, with `POST /v1/refunds` on the school’s account. The order then reads `partially_refunded` or `refunded`; a full refund ends the course access the order gave. Send an `Idempotency-Key` so a retried request never refunds twice. 409 `not_refundable` for an order not paid through Stripe or already refunded in full.',
    scope: 'school:write',
    method: 'POST',
    path: '/api/v1/orders/{order_id}/refund',
    input: {
      params: z.strictObject({ order_id: Id }),
      body: z.strictObject({
        amount: Amount.min(1)
          .optional()
          .describe('Minor units; at most what is left to refund. Default: all of it.'),
      }),
    },
    output: OrderSchema,
    annotations: { destructive: true },
    examples: { request: { amount: 1500 } },
    handler: async (ctx, { params, body }) =>
      presentOrder(
        await refundOrder(
          ctx.db,
          { apiBase: ctx.app.config.stripe.apiBase, sealKey: ctx.app.config.secret },
          ctx.schoolId,
          params.order_id,
          body.amount,
        ),
      ),
  }),
];
