import { z } from 'zod';
import {
  connectStripe,
  disconnectStripe,
  getStripeConnection,
  type StripeConnection,
  StripeKeysFields,
} from '../../domain/commerce/stripe-accounts.ts';
import { defineOperation, type OperationContext } from '../define-operation.ts';
import { bodyOf, named, Timestamp, toCamel } from '../schemas.ts';

/**
 * The Stripe events a school selects for its webhook endpoint in Stripe's dashboard: the ones
 * the receiver (admin/payments-webhook.ts) acts on.
 */
const STRIPE_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'charge.refunded',
] as const;

/** Where Stripe posts the school's events: pasted by the owner into Stripe's dashboard. */
function stripeWebhookUrl(baseUrl: string, schoolId: string): string {
  return `${baseUrl}/api/v1/payments/stripe/webhook/${schoolId}`;
}

const StripeConnectionSchema = named(
  'StripeConnection',
  z.object({
    connected: z.boolean(),
    account_id: z.string().nullable().describe('The Stripe account (`acct_…`); null until connected.'),
    livemode: z.boolean().nullable().describe('False for a test-mode key; null until connected.'),
    connected_at: Timestamp.nullable(),
    webhook_url: z.string().describe('Paste this into a Stripe webhook endpoint of the account.'),
    webhook_events: z.array(z.enum(STRIPE_EVENTS)).describe('The events to select for that endpoint.'),
  }),
  'The school’s Stripe connection. Its keys are write-only: never returned.',
);

const ConnectBody = bodyOf(StripeKeysFields);

const present = (ctx: OperationContext, c: StripeConnection) => ({
  connected: c.connected,
  account_id: c.accountId,
  livemode: c.livemode,
  connected_at: c.connectedAt,
  webhook_url: stripeWebhookUrl(ctx.app.config.baseUrl, ctx.schoolId),
  webhook_events: [...STRIPE_EVENTS],
});

const example = {
  connected: true,
  account_id: 'acct_1Q2w3E4r5T6y7U8i',
  livemode: false,
  connected_at: '2026-03-01T09:00:00.000Z',
  webhook_url: 'https://lectern.example/api/v1/payments/stripe/webhook/sch_01jf3k6m2v8w9x0y1z2a3b4c5d',
  webhook_events: [...STRIPE_EVENTS],
};

/** Connecting the school's own Stripe account (docs/payments.md). */
export const paymentOperations = [
  defineOperation({
    name: 'school.get_stripe',
    summary: 'Get the Stripe connection',
    description:
      'Whether the school sells through Stripe, with the webhook URL and events to set up in Stripe.',
    scope: 'school:read',
    method: 'GET',
    path: '/api/v1/payments/stripe',
    input: {},
    output: StripeConnectionSchema,
    examples: { response: example },
    handler: async (ctx) => present(ctx, await getStripeConnection(ctx.db, ctx.schoolId)),
  }),
  defineOperation({
    name: 'school.connect_stripe',
    summary: 'Connect a Stripe account',
    description:
      'Checks the secret key with Stripe (`GET /v1/account`) and keeps both secrets encrypted; a key Stripe refuses is a 422 `stripe_key_refused` and nothing is kept. Replaces an earlier connection.',
    scope: 'school:write',
    method: 'PUT',
    path: '/api/v1/payments/stripe',
    input: { body: ConnectBody },
    output: StripeConnectionSchema,
    examples: {
      request: { secret_key: 'sk_test_51Q2w3E4r5T6y7U8iExample', webhook_secret: 'whsec_Example0123456789' },
      response: example,
    },
    handler: async (ctx, { body }) =>
      present(
        ctx,
        await connectStripe(
          ctx.db,
          { apiBase: ctx.app.config.stripe.apiBase, sealKey: ctx.app.config.secret },
          ctx.schoolId,
          toCamel(body),
        ),
      ),
  }),
  defineOperation({
    name: 'school.disconnect_stripe',
    summary: 'Disconnect Stripe',
    description: 'Deletes the school’s Stripe keys; paid courses go back to their external checkout URL.',
    scope: 'school:write',
    method: 'DELETE',
    path: '/api/v1/payments/stripe',
    input: {},
    handler: async (ctx) => disconnectStripe(ctx.db, ctx.schoolId),
  }),
];
