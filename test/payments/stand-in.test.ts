/**
 * The Stripe stand-in answers the real `stripe` SDK as Stripe does, so tests that use it hold
 * for Stripe: errors (https://docs.stripe.com/api/errors), Idempotency-Key replay
 * (https://docs.stripe.com/api/idempotent_requests) and signatures the SDK's own
 * `webhooks.constructEvent` accepts (https://docs.stripe.com/webhooks#verify-events).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { stripeClient } from '../../src/domain/commerce/stripe-client.ts';
import { type StandInAccount, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';

describe('the Stripe stand-in, through the real SDK', () => {
  let stand: StripeStandIn;
  let account: StandInAccount;
  let stripe: Stripe;
  before(async () => {
    stand = await startStripeStandIn();
    account = stand.account();
    stripe = stripeClient(stand.base, account.secretKey);
  });
  after(() => stand.close());

  const session = {
    mode: 'payment' as const,
    line_items: [
      { quantity: 1, price_data: { currency: 'eur', unit_amount: 700, product_data: { name: 'X' } } },
    ],
    client_reference_id: 'ord_1',
    success_url: 'https://x.test/ok?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://x.test/back',
  };

  it('answers GET /v1/account for a known key, and a 401 authentication error for another', async () => {
    assert.equal((await stripe.accounts.retrieveCurrent()).id, account.id);
    await assert.rejects(stripeClient(stand.base, 'sk_test_unknown').accounts.retrieveCurrent(), (err) => {
      assert.ok(err instanceof Stripe.errors.StripeAuthenticationError);
      assert.equal(err.statusCode, 401);
      return true;
    });
  });

  it('replays the first answer for the same Idempotency-Key and parameters, and refuses other parameters', async () => {
    const first = await stripe.checkout.sessions.create(session, { idempotencyKey: 'k-1' });
    const again = await stripe.checkout.sessions.create(session, { idempotencyKey: 'k-1' });
    assert.equal(again.id, first.id);
    assert.equal(again.lastResponse.headers['idempotent-replayed'], 'true');
    await assert.rejects(
      stripe.checkout.sessions.create(
        { ...session, client_reference_id: 'ord_2' },
        { idempotencyKey: 'k-1' },
      ),
      (err) => {
        assert.ok(err instanceof Stripe.errors.StripeIdempotencyError);
        assert.equal(err.statusCode, 400);
        return true;
      },
    );
    const other = await stripe.checkout.sessions.create(session, { idempotencyKey: 'k-2' });
    assert.notEqual(other.id, first.id);
  });

  it('reads a session back; another account cannot', async () => {
    const made = await stripe.checkout.sessions.create(session);
    const read = await stripe.checkout.sessions.retrieve(made.id);
    assert.deepEqual(
      [read.amount_total, read.currency, read.client_reference_id, read.payment_status],
      [700, 'eur', 'ord_1', 'unpaid'],
    );
    const stranger = stripeClient(stand.base, stand.account().secretKey);
    await assert.rejects(stranger.checkout.sessions.retrieve(made.id), (err) => {
      assert.ok(err instanceof Stripe.errors.StripeInvalidRequestError);
      assert.equal(err.statusCode, 404);
      assert.equal(err.code, 'resource_missing');
      return true;
    });
  });

  it('refunds a paid session’s payment intent up to its amount', async () => {
    const made = await stripe.checkout.sessions.create(session);
    const intent = stand.pay(made.id).payment_intent!;
    const refund = await stripe.refunds.create({ payment_intent: intent, amount: 300 });
    assert.deepEqual([refund.object, refund.amount, refund.status], ['refund', 300, 'succeeded']);
    await assert.rejects(stripe.refunds.create({ payment_intent: intent, amount: 401 }), (err) => {
      assert.ok(err instanceof Stripe.errors.StripeInvalidRequestError);
      assert.equal(err.code, 'amount_too_large');
      return true;
    });
    assert.equal(stand.charge(intent).amount_refunded, 300);
  });

  it('opens a billing portal session', async () => {
    const portal = await stripe.billingPortal.sessions.create({
      customer: 'cus_1',
      return_url: 'https://x.test',
    });
    assert.equal(portal.object, 'billing_portal.session');
    assert.match(portal.url, /^http:\/\/127\.0\.0\.1:\d+\/billing\/bps_/);
  });

  it('signs events so that the SDK’s constructEvent accepts them, and not with another secret', () => {
    const payload = JSON.stringify(stand.event('checkout.session.completed', { id: 'cs_test_1' }));
    const header = stand.sign(payload, account.webhookSecret);
    assert.equal(
      stripe.webhooks.constructEvent(payload, header, account.webhookSecret).type,
      'checkout.session.completed',
    );
    assert.throws(
      () => stripe.webhooks.constructEvent(payload, header, 'whsec_another'),
      Stripe.errors.StripeSignatureVerificationError,
    );
    const old = stand.sign(payload, account.webhookSecret, Math.floor(Date.now() / 1000) - 301);
    assert.throws(
      () => stripe.webhooks.constructEvent(payload, old, account.webhookSecret, 300),
      Stripe.errors.StripeSignatureVerificationError,
    );
  });
});
