import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revenueTotals } from '../../src/domain/commerce/analytics.ts';
import {
  countOrders,
  findOrder,
  getOrder,
  listOrders,
  recordOrder,
} from '../../src/domain/commerce/orders.ts';
import { createDomainFixture, type DomainFixture } from '../support/world-domain.ts';
import { problemOf } from './problem-of.ts';

describe('orders repository contract', () => {
  let f: DomainFixture;
  before(async () => {
    f = await createDomainFixture();
    await f.db
      .insertInto('coupons')
      .values({
        id: 'cpn_01hzzzzzzzzzzzzzzzzzzzzzzz',
        school_id: f.schoolA,
        code: 'SAVE10',
        kind: 'percent',
        percent_off: 10,
        amount_off: null,
        currency: null,
        max_redemptions: null,
        redemptions_count: 1,
        expires_at: null,
        applies_to: null,
        active: 1,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    await recordOrder(f.db, f.schoolA, {
      userId: f.alice,
      currency: 'USD',
      items: [{ productType: 'course', productId: 'crs_x', title: 'Course X', unitAmount: 4900 }],
      createdAt: '2026-01-10T12:00:00Z',
    });
    await recordOrder(f.db, f.schoolA, {
      userId: f.alice,
      currency: 'USD',
      items: [
        { productType: 'course', productId: 'crs_y', title: 'Course Y', unitAmount: 2000 },
        {
          productType: 'digital_product',
          productId: 'dp_z',
          title: 'Workbook',
          unitAmount: 500,
          quantity: 2,
        },
      ],
      discountAmount: 300,
      couponId: 'cpn_01hzzzzzzzzzzzzzzzzzzzzzzz',
      createdAt: '2026-02-10T12:00:00Z',
    });
    await recordOrder(f.db, f.schoolA, {
      userId: f.bob,
      currency: 'USD',
      status: 'refunded',
      refundedAmount: 1000,
      items: [{ productType: 'event', productId: 'evt_1', title: 'Workshop', unitAmount: 1000 }],
      createdAt: '2026-03-10T12:00:00Z',
    });
    await recordOrder(f.db, f.schoolB, {
      userId: f.carol,
      currency: 'EUR',
      items: [{ productType: 'course', productId: 'crs_b', title: 'B', unitAmount: 100 }],
    });
  });
  after(() => f.close());

  it('computes totals from items and numbers orders per school', async () => {
    const page = await listOrders(f.db, f.schoolA);
    assert.deepEqual(
      page.data.map((o) => o.number),
      ['ORD-00003', 'ORD-00002', 'ORD-00001'],
    );
    const withCoupon = page.data[1];
    assert.equal(withCoupon.subtotalAmount, 3000);
    assert.equal(withCoupon.discountAmount, 300);
    assert.equal(withCoupon.totalAmount, 2700);
    assert.equal(withCoupon.couponCode, 'SAVE10');
    assert.equal(withCoupon.currency, 'USD');
    assert.equal(withCoupon.createdAt, '2026-02-10T12:00:00.000Z');
    assert.deepEqual(
      withCoupon.items.map((i) => [i.productType, i.title, i.quantity, i.unitAmount, i.totalAmount]),
      [
        ['course', 'Course Y', 1, 2000, 2000],
        ['digital_product', 'Workbook', 2, 500, 1000],
      ],
    );
    const theirs = (await listOrders(f.db, f.schoolB)).data[0];
    assert.equal(theirs.number, 'ORD-00001');
  });

  it('filters by status, user and creation window, newest first, with cursors', async () => {
    assert.deepEqual(
      (await listOrders(f.db, f.schoolA, { status: 'refunded' })).data.map((o) => o.user.email),
      ['bob@example.com'],
    );
    assert.equal((await listOrders(f.db, f.schoolA, { userId: f.alice })).data.length, 2);
    const feb = await listOrders(f.db, f.schoolA, {
      createdFrom: '2026-02-01',
      createdTo: '2026-03-01T00:00:00Z',
    });
    assert.deepEqual(
      feb.data.map((o) => o.number),
      ['ORD-00002'],
    );
    assert.equal(await countOrders(f.db, f.schoolA, { createdFrom: '2026-02-01' }), 2);
    const p1 = await listOrders(f.db, f.schoolA, {}, { limit: 2 });
    const p2 = await listOrders(f.db, f.schoolA, {}, { limit: 2, cursor: p1.next_cursor });
    assert.deepEqual(
      [...p1.data, ...p2.data].map((o) => o.number),
      ['ORD-00003', 'ORD-00002', 'ORD-00001'],
    );
    assert.equal(p2.next_cursor, null);
    assert.equal((await problemOf(listOrders(f.db, f.schoolA, { status: 'open' as never }))).status, 422);
    assert.equal((await problemOf(listOrders(f.db, f.schoolA, { createdFrom: 'last week' }))).status, 422);
  });

  it('gets one order with items; another school gets 404', async () => {
    const [latest] = (await listOrders(f.db, f.schoolA, {}, { limit: 1 })).data;
    assert.deepEqual(await getOrder(f.db, f.schoolA, latest.id), latest);
    assert.equal(await findOrder(f.db, f.schoolB, latest.id), undefined);
    assert.equal((await problemOf(getOrder(f.db, f.schoolB, latest.id))).code, 'not_found');
  });

  it('sums revenue net of refunds by currency', async () => {
    const range = { from: '2026-01-01T00:00:00.000Z', to: '2027-01-01T00:00:00.000Z' };
    assert.deepEqual(await revenueTotals(f.db, f.schoolA, range), [
      {
        currency: 'USD',
        grossAmount: 4900 + 2700 + 1000,
        refundedAmount: 1000,
        netAmount: 4900 + 2700,
        orders: 3,
      },
    ]);
  });

  it('refuses inconsistent orders', async () => {
    const p = await problemOf(
      recordOrder(f.db, f.schoolA, {
        userId: f.alice,
        currency: 'usd',
        items: [{ productType: 'course', productId: 'c', title: 'C', unitAmount: 100 }],
        discountAmount: 500,
      }),
    );
    assert.deepEqual(
      (p.errors as Array<{ field: string }>).map((e) => e.field),
      ['currency', 'discountAmount'],
    );
    assert.equal(
      (
        await problemOf(
          recordOrder(f.db, f.schoolA, {
            userId: 'usr_none',
            currency: 'USD',
            items: [{ productType: 'course', productId: 'c', title: 'C', unitAmount: 1 }],
          }),
        )
      ).status,
      404,
    );
  });
});
