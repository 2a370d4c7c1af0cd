import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

// One past PostgreSQL's 32-bit `integer`: where the attack run got a 500 on PostgreSQL.
const BIG = 2_147_483_648;
const MAX_AMOUNT = 100_000_000_000;
const MAX_COUNT = 2_147_483_647;

/** A resource with an integer field, how to create it with a value, and the field's range. */
interface Case {
  readonly name: string;
  readonly path: string;
  readonly field: string;
  readonly max: number;
  readonly body: (n: number, value: number) => Record<string, unknown>;
}

const MONEY: Case[] = [
  {
    name: 'course price_amount',
    path: '/api/v1/courses',
    field: 'price_amount',
    max: MAX_AMOUNT,
    body: (n, v) => ({ slug: `big-${n}`, title: `Big ${n}`, price_amount: v }),
  },
  {
    name: 'coupon amount_off',
    path: '/api/v1/coupons',
    field: 'amount_off',
    max: MAX_AMOUNT,
    body: (n, v) => ({ code: `BIG${n}`, kind: 'fixed', amount_off: v, currency: 'EUR' }),
  },
  {
    name: 'membership plan price_amount',
    path: '/api/v1/membership-plans',
    field: 'price_amount',
    max: MAX_AMOUNT,
    body: (n, v) => ({ name: `Plan ${n}`, interval: 'year', price_amount: v, currency: 'EUR' }),
  },
  {
    name: 'digital product price_amount',
    path: '/api/v1/digital-products',
    field: 'price_amount',
    max: MAX_AMOUNT,
    body: (n, v) => ({ title: `Product ${n}`, price_amount: v, currency: 'EUR' }),
  },
];

const COUNTS: Case[] = [
  {
    name: 'coupon max_redemptions',
    path: '/api/v1/coupons',
    field: 'max_redemptions',
    max: MAX_COUNT,
    body: (n, v) => ({ code: `MAX${n}`, kind: 'percent', percent_off: 5, max_redemptions: v }),
  },
];

describe(`admin API: integer ranges, the same on ${ENGINE}`, () => {
  let t: TestApp;
  let s: SchoolFixture;
  let call: ReturnType<typeof api>;
  let n = 0;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
    call = api(t, await s.token());
  });
  after(() => t.close());

  /** The exact 422 problem for one field above its maximum. */
  function assertTooBig(r: Awaited<ReturnType<typeof call>>, field: string, max: number): void {
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.equal(r.body.code, 'validation_failed');
    assert.deepEqual(r.body.errors, [
      { field: `body.${field}`, message: `Too big: expected number to be <=${max}` },
    ]);
  }

  for (const c of MONEY) {
    it(`${c.name}: 2^31 is accepted and read back exactly on create and PATCH; above ${c.max} is a 422`, async () => {
      const created = await call('POST', c.path, c.body(++n, BIG));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body[c.field], BIG);
      const url = `${c.path}/${created.body.id}`;
      assert.equal((await call('GET', url)).body[c.field], BIG);

      const patched = await call('PATCH', url, { [c.field]: c.max });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body[c.field], c.max);
      const read = await call('GET', url);
      assert.strictEqual(read.body[c.field], c.max);

      assertTooBig(await call('POST', c.path, c.body(++n, c.max + 1)), c.field, c.max);
      assertTooBig(await call('PATCH', url, { [c.field]: c.max + 1 }), c.field, c.max);
      assert.equal((await call('GET', url)).body[c.field], c.max, 'a refused PATCH changes nothing');
    });
  }

  for (const c of COUNTS) {
    it(`${c.name}: counts stop at ${c.max} (PostgreSQL integer), on create and PATCH`, async () => {
      const created = await call('POST', c.path, c.body(++n, c.max));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body[c.field], c.max);
      const url = `${c.path}/${created.body.id}`;
      assertTooBig(await call('POST', c.path, c.body(++n, BIG)), c.field, c.max);
      assertTooBig(await call('PATCH', url, { [c.field]: BIG }), c.field, c.max);
      assert.equal((await call('GET', url)).body[c.field], c.max);
    });
  }

  it('orders and revenue analytics read amounts above 2^31 back as exact numbers', async () => {
    const courseId = (
      await call('POST', '/api/v1/courses', { slug: 'pricey', title: 'Pricey', price_amount: BIG })
    ).body.id;
    const student = await s.person(['student']);
    const order = await recordOrder(t.runtime.db, s.schoolId, {
      userId: student,
      currency: 'EUR',
      items: [{ productType: 'course', productId: courseId, title: 'Pricey', unitAmount: BIG, quantity: 2 }],
      discountAmount: 1,
    });
    const got = await call('GET', `/api/v1/orders/${order.id}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.strictEqual(got.body.subtotal_amount, 2 * BIG);
    assert.strictEqual(got.body.discount_amount, 1);
    assert.strictEqual(got.body.total_amount, 2 * BIG - 1);
    assert.strictEqual(got.body.items[0].unit_amount, BIG);
    assert.strictEqual(got.body.items[0].total_amount, 2 * BIG);
    const revenue = await call('GET', '/api/v1/analytics/summary');
    assert.equal(revenue.status, 200, JSON.stringify(revenue.body));
    assert.deepEqual(
      revenue.body.revenue.find((r: { currency: string }) => r.currency === 'EUR'),
      { currency: 'EUR', gross_amount: 2 * BIG - 1, refunded_amount: 0, net_amount: 2 * BIG - 1, orders: 1 },
    );
  });
});
