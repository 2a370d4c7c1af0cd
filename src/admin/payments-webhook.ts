import { Hono } from 'hono';
import type Stripe from 'stripe';
import { fulfilCheckoutSession, type PaidSession } from '../domain/commerce/fulfilment.ts';
import { applyChargeRefunded } from '../domain/commerce/refunds.ts';
import { stripeKeysOf } from '../domain/commerce/stripe-accounts.ts';
import { constructStripeEvent } from '../domain/commerce/stripe-client.ts';
import { problemResponse } from '../errors/handler.ts';
import { problems } from '../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { nowMs } from '../store/time.ts';

/**
 * How old a signed notice may be: Stripe's own default, five minutes
 * (https://docs.stripe.com/webhooks#replay-attacks), so a captured notice cannot be replayed later.
 */
const SIGNATURE_TOLERANCE_SECONDS = 300;

const SCHOOL_ID = /^sch_[0-9a-z]{26}$/;

// One answer for every refusal: an unknown school, a missing, forged or stale signature, or
// another account's notice all read the same, so the URL tells nobody which schools exist.
const refused = () =>
  problems.badRequest('The Stripe-Signature header does not verify with this endpoint’s signing secret.');

/** The fields fulfilment reads, from a Checkout Session object of a notice. */
function paidSession(object: Stripe.Checkout.Session): PaidSession {
  return {
    id: object.id,
    client_reference_id: object.client_reference_id,
    payment_status: object.payment_status,
    amount_total: object.amount_total,
    currency: object.currency,
    payment_intent: object.payment_intent,
  };
}

/**
 * The receiver of each school's Stripe notices (`POST /api/v1/payments/stripe/webhook/<school>`,
 * the `webhook_url` of admin/operations/payments.ts): a server-to-server endpoint, authenticated
 * by Stripe's signature with the school's webhook secret, not by a bearer token. A verified
 * notice is answered 200 whatever it changed (a duplicate changes nothing), so Stripe stops
 * redelivering it; a refused one 400, so it never counts as received.
 */
export function createStripeWebhookApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/api/v1/payments/stripe/webhook/:schoolId', async (c) => {
    const schoolId = c.req.param('schoolId');
    const payload = await c.req.text();
    const signature = c.req.header('stripe-signature');
    const keys = SCHOOL_ID.test(schoolId)
      ? await stripeKeysOf(ctx.db, ctx.config.secret, schoolId)
      : undefined;
    if (!keys || !signature) return problemResponse(c, refused());
    let event: Stripe.Event;
    try {
      event = constructStripeEvent(
        payload,
        signature,
        keys.webhookSecret,
        SIGNATURE_TOLERANCE_SECONDS,
        nowMs(),
      );
    } catch {
      return problemResponse(c, refused());
    }
    // A Connect notice names the account it is about: it must be this school's.
    if (event.account && event.account !== keys.accountId) return problemResponse(c, refused());
    let outcome = 'ignored';
    if (
      event.type === 'checkout.session.completed' ||
      event.type === 'checkout.session.async_payment_succeeded'
    ) {
      outcome = await fulfilCheckoutSession(ctx.db, schoolId, paidSession(event.data.object));
    } else if (event.type === 'charge.refunded') {
      // A refund made in Stripe's dashboard (or the notice of one made here) changes the order the same way.
      outcome = await applyChargeRefunded(ctx.db, schoolId, event.data.object);
    }
    ctx.logger.info({ schoolId, stripeEvent: event.id, type: event.type, outcome }, 'stripe notice');
    return c.json({ received: true });
  });
  return app;
}
