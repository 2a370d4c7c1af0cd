/**
 * Buying a course through the school's Stripe account and fulfilling it exactly once: the real
 * SDK against the Stripe stand-in makes the Checkout Session; the school's webhook URL takes the
 * signed notices over HTTP, as Stripe delivers them. Signature rules cite Stripe's documentation
 * of webhook signatures (https://docs.stripe.com/webhooks#verify-events).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCourseCheckout } from '../../src/domain/commerce/checkout.ts';
import { createCoupon } from '../../src/domain/commerce/coupons.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts';
import { type SellingSchool, sellingSchool } from './scene.ts';

const REFUSED = {
  type: 'about:blank',
  title: 'Bad Request',
  status: 400,
  code: 'bad_request',
  detail: 'The Stripe-Signature header does not verify with this endpoint’s signing secret.',
};

describe('buying a course and fulfilling it exactly once', () => {
  let t: TestApp;
  let stand: StripeStandIn;
  let school: SellingSchool;
  let other: SellingSchool;
  before(async () => {
    stand = await startStripeStandIn();
    t = await createTestApp({ STRIPE_API_BASE: stand.base });
    school = await sellingSchool(t, stand, 'Seller');
    other = await sellingSchool(t, stand, 'Rival');
  });
  after(async () => {
    await t.close();
    await stand.close();
  });

  const db = () => t.runtime.db;
  const ordersOf = (schoolId: string, userId?: string) => {
    let q = db().selectFrom('orders').selectAll().where('school_id', '=', schoolId);
    if (userId) q = q.where('user_id', '=', userId);
    return q.execute();
  };
  const enrolmentsOf = (schoolId: string, userId: string) =>
    db()
      .selectFrom('enrollments')
      .selectAll()
      .where('school_id', '=', schoolId)
      .where('user_id', '=', userId)
      .execute();
  const completed = (sessionId: string, type = 'checkout.session.completed') =>
    stand.event(type, stand.pay(sessionId));

  it('makes a pending order and one Checkout Session with Lectern’s Idempotency-Key; a second click reuses them', async () => {
    const buyer = await buyerOf(school);
    const from = stand.calls.length;
    const first = await school.checkout(buyer);
    const again = await school.checkout(buyer);
    assert.deepEqual(again, first, 'the same pending order and session');
    const calls = stand.calls.slice(from);
    assert.equal(calls.length, 1, 'one call to Stripe for two clicks');
    const [call] = calls;
    assert.equal(`${call.method} ${call.path}`, 'POST /v1/checkout/sessions');
    assert.equal(call.account, school.stripe.id);
    assert.equal(call.idempotencyKey, `lectern-checkout-${first.orderId}`);
    const email = (
      await db().selectFrom('users').select('email').where('id', '=', buyer).executeTakeFirstOrThrow()
    ).email;
    assert.deepEqual(call.params, {
      mode: 'payment',
      line_items: [
        {
          quantity: '1',
          price_data: { currency: 'eur', unit_amount: '5000', product_data: { name: 'Watercolour basics' } },
        },
      ],
      client_reference_id: first.orderId,
      metadata: { school_id: school.schoolId, order_id: first.orderId },
      payment_intent_data: { metadata: { school_id: school.schoolId, order_id: first.orderId } },
      customer_email: email,
      success_url: `http://lectern.test/s/${school.schoolId}/checkout/done?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `http://lectern.test/s/${school.schoolId}/courses/${school.courseId}`,
    });
    assert.equal(first.url, `${stand.base}/pay/${first.sessionId}`);
    // Pending is no order yet: nothing counts as revenue, nobody is let in.
    assert.deepEqual(await ordersOf(school.schoolId, buyer), []);
    assert.deepEqual(await enrolmentsOf(school.schoolId, buyer), []);
  });

  it('prices the line after a coupon by Lectern’s own rules, and refuses one that does not apply', async () => {
    const coupon = await createCoupon(db(), school.schoolId, {
      code: 'SPRING20',
      kind: 'percent',
      percentOff: 20,
      appliesTo: [{ type: 'course', id: school.courseId }],
    });
    await createCoupon(db(), school.schoolId, {
      code: 'OLD',
      kind: 'percent',
      percentOff: 50,
      expiresAt: '2020-01-01T00:00:00Z',
    });
    await createCoupon(db(), school.schoolId, {
      code: 'DOLLARS',
      kind: 'fixed',
      amountOff: 500,
      currency: 'USD',
    });
    const buyer = await buyerOf(school);
    const settings = { apiBase: t.config.stripe.apiBase, sealKey: t.config.secret };
    const start = (couponCode: string) =>
      startCourseCheckout(db(), settings, school.schoolId, {
        userId: buyer,
        courseId: school.courseId,
        couponCode,
        successUrl: 'http://lectern.test/done',
        cancelUrl: 'http://lectern.test/course',
      });
    assert.deepEqual(await start('old'), { ok: false, reason: 'coupon_expired' });
    assert.deepEqual(await start('DOLLARS'), { ok: false, reason: 'coupon_wrong_currency' });
    assert.deepEqual(await start('NOPE'), { ok: false, reason: 'coupon_unknown' });
    const theirs = await startCourseCheckout(db(), settings, other.schoolId, {
      userId: buyer,
      courseId: other.courseId,
      couponCode: 'SPRING20',
      successUrl: 'http://lectern.test/done',
      cancelUrl: 'http://lectern.test/course',
    });
    assert.deepEqual(theirs, { ok: false, reason: 'coupon_unknown' }, 'a coupon is its own school’s');

    const started = await start('spring20');
    assert.ok(started.ok);
    assert.deepEqual(
      {
        sub: started.checkout.subtotalAmount,
        off: started.checkout.discountAmount,
        total: started.checkout.totalAmount,
      },
      { sub: 5000, off: 1000, total: 4000 },
    );
    const call = stand.calls.at(-1)!;
    assert.equal(
      (call.params.line_items as Array<{ price_data: { unit_amount: string } }>)[0].price_data.unit_amount,
      '4000',
    );

    // Paid: the order carries the coupon, and its redemption is counted once.
    const res = await school.deliver(completed(started.checkout.sessionId));
    assert.equal(res.status, 200);
    const [order] = await ordersOf(school.schoolId, buyer);
    assert.deepEqual(
      {
        status: order.status,
        total: order.total_amount,
        discount: order.discount_amount,
        code: order.coupon_code,
      },
      { status: 'paid', total: 4000, discount: 1000, code: 'SPRING20' },
    );
    const after = await db()
      .selectFrom('coupons')
      .select('redemptions_count')
      .where('id', '=', coupon.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.redemptions_count, 1);
  });

  it('fulfils once however often and however concurrently the same notice arrives', async () => {
    const buyer = await buyerOf(school);
    const { orderId, sessionId } = await school.checkout(buyer);
    const event = completed(sessionId);
    const answers = await Promise.all(Array.from({ length: 12 }, () => school.deliver(event)));
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(12).fill(200),
    );
    for (const r of answers) assert.deepEqual(await r.json(), { received: true });
    const orders = await ordersOf(school.schoolId, buyer);
    assert.equal(orders.length, 1);
    assert.equal(orders[0].id, orderId, 'the pending order’s id is the paid order’s');
    assert.equal(orders[0].status, 'paid');
    const enrolments = await enrolmentsOf(school.schoolId, buyer);
    assert.deepEqual(
      enrolments.map((e) => [e.course_id, e.source, e.expires_at]),
      [[school.courseId, 'order', null]],
    );
    const paidEvents = await db()
      .selectFrom('domain_events')
      .select('data')
      .where('school_id', '=', school.schoolId)
      .where('type', '=', 'order.paid')
      .execute();
    assert.equal(
      paidEvents.filter((e) => JSON.parse(e.data).order_id === orderId).length,
      1,
      'one order.paid',
    );
    // A later duplicate, and the async success of the same session, change nothing either.
    assert.equal((await school.deliver(event)).status, 200);
    assert.equal(
      (await school.deliver(completed(sessionId, 'checkout.session.async_payment_succeeded'))).status,
      200,
    );
    assert.equal((await ordersOf(school.schoolId, buyer)).length, 1);
  });

  it('leaves an unpaid session unfulfilled until its async payment succeeds', async () => {
    const buyer = await buyerOf(school);
    const { sessionId } = await school.checkout(buyer);
    const unpaid = stand.event('checkout.session.completed', {
      ...stand.sessions.get(sessionId)!,
      account: undefined,
    });
    assert.equal((await school.deliver(unpaid)).status, 200);
    assert.deepEqual(await ordersOf(school.schoolId, buyer), []);
    assert.deepEqual(await enrolmentsOf(school.schoolId, buyer), []);
    assert.equal(
      (await school.deliver(completed(sessionId, 'checkout.session.async_payment_succeeded'))).status,
      200,
    );
    assert.equal((await ordersOf(school.schoolId, buyer)).length, 1);
    assert.equal((await enrolmentsOf(school.schoolId, buyer)).length, 1);
  });

  describe('refuses with a 400 what Stripe did not sign for this school (https://docs.stripe.com/webhooks#verify-events)', () => {
    let event: object;
    let buyer: string;
    before(async () => {
      buyer = await buyerOf(school);
      event = completed((await school.checkout(buyer)).sessionId);
    });
    const refusedWith = async (res: Response) => {
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      await isRefusal(res, `/api/v1/payments/stripe/webhook/${school.schoolId}`);
      assert.deepEqual(await ordersOf(school.schoolId, buyer), [], 'nothing changed');
    };

    it('unsigned', async () => refusedWith(await school.deliver(event, { signature: null })));
    it('signed with another secret (forged)', async () =>
      refusedWith(await school.deliver(event, { secret: 'whsec_forgedforgedforged' })));
    it('signed by another school’s account', async () =>
      refusedWith(await school.deliver(event, { secret: other.stripe.webhookSecret })));
    it('a signature over another payload', async () => {
      const sig = stand.sign(JSON.stringify({ ...event, id: 'evt_other' }), school.stripe.webhookSecret);
      await refusedWith(await school.deliver(event, { signature: sig }));
    });
    it('a malformed header', async () =>
      refusedWith(await school.deliver(event, { signature: 't=abc,v1=zz' })));
    // https://docs.stripe.com/webhooks#replay-attacks: a timestamp older than the 5-minute tolerance.
    it('stale: signed 301 seconds ago', async () =>
      refusedWith(await school.deliver(event, { t: Math.floor(Date.now() / 1000) - 301 })));
    it('a school that has not connected Stripe, or does not exist, reads the same', async () => {
      const res = await t.request('/api/v1/payments/stripe/webhook/sch_00000000000000000000000000', {
        method: 'POST',
        headers: { 'stripe-signature': stand.sign('{}', school.stripe.webhookSecret) },
        body: '{}',
      });
      assert.equal(res.status, 400);
      await isRefusal(res, '/api/v1/payments/stripe/webhook/sch_00000000000000000000000000');
    });
    it('within the tolerance (signed 4 minutes ago) it is taken', async () => {
      const res = await school.deliver(event, { t: Math.floor(Date.now() / 1000) - 240 });
      assert.equal(res.status, 200);
      assert.equal((await ordersOf(school.schoolId, buyer)).length, 1);
    });
  });

  it('a genuine notice of this school naming another school’s order changes nothing', async () => {
    const buyer = await buyerOf(other);
    const theirs = await other.checkout(buyer);
    const event = completed(theirs.sessionId);
    const res = await school.deliver(event);
    assert.equal(res.status, 200);
    assert.deepEqual(await ordersOf(other.schoolId, buyer), []);
    assert.deepEqual(await ordersOf(school.schoolId, buyer), []);
    assert.deepEqual(await enrolmentsOf(other.schoolId, buyer), []);
    // Delivered where it belongs, it is fulfilled.
    assert.equal((await other.deliver(event)).status, 200);
    assert.equal((await ordersOf(other.schoolId, buyer)).length, 1);
  });

  it('a batch of notices with duplicates, delivered concurrently, fulfils each order once', async () => {
    const buyers = await Promise.all(Array.from({ length: 30 }, () => buyerOf(other)));
    const sessions = [];
    for (const b of buyers) sessions.push(await other.checkout(b));
    const events = sessions.map((s) => completed(s.sessionId));
    // Each notice twice side by side (the same wave, concurrently), then once more, late and in reverse.
    const notices = [...events.flatMap((e) => [e, e]), ...events.toReversed()];
    const statuses: number[] = [];
    for (let i = 0; i < notices.length; i += 10) {
      const wave = await Promise.all(notices.slice(i, i + 10).map((e) => other.deliver(e)));
      statuses.push(...wave.map((r) => r.status));
    }
    assert.deepEqual(statuses, Array(notices.length).fill(200));
    const orders = await ordersOf(other.schoolId);
    const ids = new Set(sessions.map((s) => s.orderId));
    const batch = orders.filter((o) => ids.has(o.id));
    assert.equal(batch.length, 30, 'every order paid');
    assert.equal(new Set(orders.map((o) => o.number)).size, orders.length, 'order numbers unique');
    for (const b of buyers) assert.equal((await enrolmentsOf(other.schoolId, b)).length, 1);
  });
});

/** The one refusal body (RFC 9457), the same whatever failed, so it tells nothing about the school. */
async function isRefusal(res: Response, path: string): Promise<void> {
  const { request_id, ...body } = await res.json();
  assert.deepEqual(body, { ...REFUSED, instance: path });
  assert.match(request_id, /^[0-9a-f-]{36}$/);
}

async function buyerOf(school: SellingSchool): Promise<string> {
  return school.buyer();
}
