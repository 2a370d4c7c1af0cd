/**
 * Refunding Stripe-paid orders: over the admin API (`orders.refund`, which the MCP tool shares)
 * with Lectern's own Idempotency-Key on `POST /v1/refunds`, and from Stripe's dashboard as a
 * signed `charge.refunded` notice. A full refund ends the access the order gave.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';
import { type SellingSchool, sellingSchool } from './scene.ts';

describe('refunds', () => {
  let t: TestApp;
  let stand: StripeStandIn;
  let school: SellingSchool;
  let other: SellingSchool;
  before(async () => {
    stand = await startStripeStandIn();
    t = await createTestApp({ STRIPE_API_BASE: stand.base });
    school = await sellingSchool(t, stand, 'Refunder');
    other = await sellingSchool(t, stand, 'Bystander');
  });
  after(async () => {
    await t.close();
    await stand.close();
  });

  /** A buyer who paid for the course (through the notice), with the order and its payment intent. */
  async function paidOrder(s: SellingSchool) {
    const buyer = await s.buyer();
    const { orderId, sessionId } = await s.checkout(buyer);
    const session = stand.pay(sessionId);
    assert.equal((await s.deliver(stand.event('checkout.session.completed', session))).status, 200);
    return { buyer, orderId, paymentIntent: session.payment_intent! };
  }
  const enrolment = (s: SellingSchool, userId: string) =>
    t.runtime.db
      .selectFrom('enrollments')
      .select(['expires_at'])
      .where('school_id', '=', s.schoolId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
  const refundEvents = async (s: SellingSchool, orderId: string) =>
    (
      await t.runtime.db
        .selectFrom('domain_events')
        .select('data')
        .where('school_id', '=', s.schoolId)
        .where('type', '=', 'order.refunded')
        .execute()
    )
      .map((e) => JSON.parse(e.data))
      .filter((d) => d.order_id === orderId)
      .map((d) => [d.status, d.refunded_amount]);

  it('is a destructive catalogue operation (an MCP tool with destructiveHint)', () => {
    const op = adminOperations.find((o) => o.name === 'orders.refund')!;
    assert.deepEqual(op.annotations, { readOnly: false, destructive: true, idempotent: false });
    assert.equal(op.scope, 'school:write');
  });

  it('refunds part, then the rest: partially_refunded, then refunded and the access ended', async () => {
    const { buyer, orderId, paymentIntent } = await paidOrder(school);
    const call = api(t, await school.token(['school:write']));
    const from = stand.calls.length;
    const part = await call('POST', `/api/v1/orders/${orderId}/refund`, { amount: 1500 });
    assert.equal(part.status, 200, JSON.stringify(part.body));
    assert.deepEqual(
      [part.body.status, part.body.refunded_amount, part.body.total_amount],
      ['partially_refunded', 1500, 5000],
    );
    assert.equal((await enrolment(school, buyer)).expires_at, null, 'a partial refund keeps the access');
    const [refundCall] = stand.calls.slice(from);
    assert.equal(`${refundCall.method} ${refundCall.path}`, 'POST /v1/refunds');
    assert.deepEqual(refundCall.params, { payment_intent: paymentIntent, amount: '1500' });
    assert.equal(refundCall.idempotencyKey, `lectern-refund-${orderId}-0-1500`);

    const tooMuch = await call('POST', `/api/v1/orders/${orderId}/refund`, { amount: 3501 });
    assert.equal(tooMuch.status, 422);
    assert.deepEqual(tooMuch.body.errors, [
      { field: 'body.amount', message: 'must be at most 3500, what is left to refund' },
    ]);

    const rest = await call('POST', `/api/v1/orders/${orderId}/refund`, {});
    assert.equal(rest.status, 200);
    assert.deepEqual([rest.body.status, rest.body.refunded_amount], ['refunded', 5000]);
    const ended = (await enrolment(school, buyer)).expires_at;
    assert.ok(ended !== null && Date.parse(ended) <= Date.now(), 'a full refund ends the access');
    assert.deepEqual(await refundEvents(school, orderId), [
      ['partially_refunded', 1500],
      ['refunded', 5000],
    ]);

    const again = await call('POST', `/api/v1/orders/${orderId}/refund`, {});
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'not_refundable');
  });

  it('a refund repeated with the same Idempotency-Key refunds once', async () => {
    const { orderId } = await paidOrder(school);
    const call = api(t, await school.token(['school:write']));
    const key = { 'idempotency-key': `refund-${orderId}` };
    const first = await call('POST', `/api/v1/orders/${orderId}/refund`, { amount: 1000 }, key);
    const second = await call('POST', `/api/v1/orders/${orderId}/refund`, { amount: 1000 }, key);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.body.refunded_amount, 1000);
    assert.equal(stand.charge((await paymentOf(orderId))!).amount_refunded, 1000, 'Stripe refunded once');
  });

  it('a refund made in Stripe’s dashboard arrives as charge.refunded and changes the order once', async () => {
    const { buyer, orderId, paymentIntent } = await paidOrder(school);
    const charge = stand.refundInDashboard(paymentIntent, 5000);
    const event = stand.event('charge.refunded', charge);
    const answers = await Promise.all([school.deliver(event), school.deliver(event), school.deliver(event)]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200],
    );
    const order = await api(t, await school.token(['orders:read']))('GET', `/api/v1/orders/${orderId}`);
    assert.deepEqual([order.body.status, order.body.refunded_amount], ['refunded', 5000]);
    assert.notEqual((await enrolment(school, buyer)).expires_at, null);
    assert.deepEqual(await refundEvents(school, orderId), [['refunded', 5000]]);
  });

  it('a refund here and its charge.refunded notice change the order once', async () => {
    const { orderId, paymentIntent } = await paidOrder(school);
    const call = api(t, await school.token(['school:write']));
    assert.equal((await call('POST', `/api/v1/orders/${orderId}/refund`, { amount: 2000 })).status, 200);
    assert.equal(
      (await school.deliver(stand.event('charge.refunded', stand.charge(paymentIntent)))).status,
      200,
    );
    assert.deepEqual(await refundEvents(school, orderId), [['partially_refunded', 2000]]);
  });

  it('another school’s order is a 404 and nothing is refunded; a notice about it changes nothing', async () => {
    const { orderId, paymentIntent } = await paidOrder(other);
    const res = await api(t, await school.token(['school:write']))(
      'POST',
      `/api/v1/orders/${orderId}/refund`,
      {},
    );
    assert.equal(res.status, 404);
    const charge = stand.refundInDashboard(paymentIntent, 5000);
    assert.equal((await school.deliver(stand.event('charge.refunded', charge))).status, 200);
    const order = await api(t, await other.token(['orders:read']))('GET', `/api/v1/orders/${orderId}`);
    assert.deepEqual([order.body.status, order.body.refunded_amount], ['paid', 0]);
  });

  it('an order not paid through Stripe is not refundable here (409)', async () => {
    const buyer = await school.buyer();
    const order = await recordOrder(t.runtime.db, school.schoolId, {
      userId: buyer,
      currency: 'EUR',
      items: [{ productType: 'course', productId: school.courseId, title: 'Imported', unitAmount: 100 }],
    });
    const res = await api(t, await school.token(['school:write']))(
      'POST',
      `/api/v1/orders/${order.id}/refund`,
      {},
    );
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'not_refundable');
  });

  async function paymentOf(orderId: string) {
    const row = await t.runtime.db
      .selectFrom('order_payments')
      .select('payment_intent_id')
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    return row?.payment_intent_id;
  }
});
