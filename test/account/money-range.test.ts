import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';
import { gql } from './graphql.ts';

// A price operators may set (the admin API takes up to 100000000000 minor units) but GraphQL's
// 32-bit Int cannot carry.
const BIG = 2_147_483_648;

describe(`Account API: money above 2^31 on ${ENGINE}`, () => {
  let t: TestApp;
  let f: AccountFixture;
  before(async () => {
    t = await createTestApp();
    f = await seedAccountFixture(t);
  });
  after(() => t.close());

  it('Money.amount carries every amount the admin API accepts, exactly, as a JSON number', async () => {
    await t.runtime.db.updateTable('membership_plans').set({ price_amount: BIG }).execute();
    const order = await recordOrder(t.runtime.db, f.schoolA, {
      userId: f.student,
      currency: 'USD',
      items: [{ productType: 'course', productId: f.courses.lifetime, title: 'Big', unitAmount: BIG }],
    });
    const res = await gql(
      t,
      await f.token(['account:read']),
      `{ viewer {
        orders(first: 1) { nodes { id total { amount } items { unitPrice { amount } } } }
        subscriptions { nodes { plan { price { amount currency } } } }
      } }`,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data.viewer.orders.nodes, [
      { id: order.id, total: { amount: BIG }, items: [{ unitPrice: { amount: BIG } }] },
    ]);
    assert.deepEqual(res.body.data.viewer.subscriptions.nodes, [
      { plan: { price: { amount: BIG, currency: 'USD' } } },
    ]);
  });
});
