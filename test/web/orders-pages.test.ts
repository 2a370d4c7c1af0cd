/**
 * `/admin/<school>/orders` and an order's page over HTTP: the list with its filters and paging,
 * amounts in the school's currency and locale, times in its zone, statuses in words; another
 * school's order is the unknown order's 404, and bad filters get the form back with the error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { FEBRUARY_ORDERS, type ShopSchool, shopSchool, tableRows, textOf } from './commerce-pages-support.ts';
import { assertPageHeaders, locationOf, signedIn } from './pages-support.ts';

describe('/admin/<school>/orders', () => {
  let t: TestApp;
  let world: World;
  let shop: ShopSchool;
  let owner: Browser;
  let path: string;
  let ada: string;
  let ben: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    shop = await shopSchool(t, world);
    owner = await signedIn(t, 'owner@example.com');
    path = `/admin/${shop.schoolId}/orders`;
    ada = `ada-${shop.schoolId}@example.com`;
    ben = `ben-${shop.schoolId}@example.com`;
  });
  after(() => t.close());

  async function page(query: string, status = 200): Promise<string> {
    const res = await owner.request(`${path}${query}`);
    assert.equal(res.status, status, query);
    assertPageHeaders(res);
    return res.text();
  }
  const nextOf = (body: string) =>
    /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(body)?.[1].replace(/&amp;/g, '&');

  it('lists orders newest first: when, who, what, the amount, coupon, status and refund in words', async () => {
    const body = await page('');
    assert.match(body, /<h1>Zone School \d+ · Orders<\/h1>/);
    assert.match(body, /<a href="[^"]+\/orders" aria-current="page">Orders<\/a>/);
    const rows = tableRows(body, 'orders');
    assert.equal(rows.length, 20);
    assert.deepEqual(rows.slice(0, 4), [
      [
        'ORD-00025',
        '12 Mar 2026, 10:00',
        `Ben Buyer ${ben}`,
        'Watercolour Basics',
        '€49.00',
        'None',
        'Failed',
        'None',
      ],
      [
        'ORD-00024',
        '10 Mar 2026, 10:00',
        `Ada Buyer ${ada}`,
        'Brush Guide',
        '€9.00',
        'None',
        'Partially refunded',
        '€4.00',
      ],
      ['ORD-00023', '5 Mar 2026, 11:00', `Ben Buyer ${ben}`, 'Sketching', '€26.10', 'SPRING', 'Paid', 'None'],
      // 23:30 UTC on 1 March is half past midnight on 2 March in Berlin.
      [
        'ORD-00022',
        '2 Mar 2026, 00:30',
        `Ada Buyer ${ada}`,
        'Watercolour Basics',
        '€49.00',
        'None',
        'Paid',
        'None',
      ],
    ]);
    assert.match(body, new RegExp(`<a href="${path}/${shop.orderIds.sketching}">ORD-00023</a>`));
    assert.match(body, /<time datetime="2026-03-01T23:30:00\.000Z">2 Mar 2026, 00:30<\/time>/);
    assert.doesNotMatch(body, /First page/);
    const next = nextOf(body);
    assert.ok(next);
    const second = await page(next.slice(path.length));
    const more = tableRows(second, 'orders');
    assert.equal(more.length, FEBRUARY_ORDERS + 4 - 20);
    assert.deepEqual(more.at(-1), [
      'ORD-00001',
      '1 Feb 2026, 13:00',
      `Cy Buyer cy-${shop.schoolId}@example.com`,
      'Sketching',
      '€10.00',
      'None',
      'Paid',
      'None',
    ]);
    assert.equal(nextOf(second), undefined, 'the last page');
    assert.match(second, new RegExp(`<li><a href="${path}">First page</a></li>`));
    // Another school's list never shows these.
    const demo = await (await owner.request(`/admin/${world.demo.schoolId}/orders`)).text();
    assert.doesNotMatch(demo, /Ada Buyer|Ben Buyer|Cy Buyer|€/);
    assert.match(demo, /\$49\.00/);
  });

  it('filters by status, buyer and the school’s days, and “Next page” keeps the filters', async () => {
    const refunded = tableRows(await page('?status=partially_refunded'), 'orders');
    assert.deepEqual(
      refunded.map((r) => r[0]),
      ['ORD-00024'],
    );
    const byEmail = await page(`?email=${encodeURIComponent(ada.toUpperCase())}`);
    assert.deepEqual(
      tableRows(byEmail, 'orders').map((r) => r[0]),
      ['ORD-00024', 'ORD-00022'],
    );
    assert.match(
      byEmail,
      new RegExp(`<input id="email" name="email" type="email" value="${ada.toUpperCase()}"`),
    );
    // Days in Berlin: 2 March begins at 23:00 UTC on 1 March.
    const days = tableRows(await page('?from=2026-03-02&to=2026-03-05'), 'orders');
    assert.deepEqual(
      days.map((r) => r[0]),
      ['ORD-00023', 'ORD-00022'],
    );
    // The order of 23:30 UTC on 1 March is on 2 March in Berlin.
    const none = await page('?from=2026-03-01&to=2026-03-01');
    assert.doesNotMatch(none, /<table class="stack" id="orders"/);
    assert.match(none, /<p class="muted" id="no-orders">No orders match these filters\.<\/p>/);
    const paid = await page('?status=paid&from=2026-01-01');
    assert.match(paid, /<option value="paid" selected>Paid<\/option>/);
    assert.equal(tableRows(paid, 'orders').length, 20);
    const next = nextOf(paid);
    assert.ok(next);
    const params = new URL(next, 'http://x').searchParams;
    assert.deepEqual(
      [params.get('status'), params.get('from'), params.get('email')],
      ['paid', '2026-01-01', null],
    );
    const rest = tableRows(await page(next.slice(path.length)), 'orders');
    assert.equal(rest.length, FEBRUARY_ORDERS + 2 - 20);
    assert.ok(rest.every((r) => r[6] === 'Paid'));
  });

  it('opens an order: items, amounts, coupon, refunds and status', async () => {
    const res = await owner.request(`${path}/${shop.orderIds.sketching}`);
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const body = await res.text();
    assert.match(body, /<h1>Order ORD-00023<\/h1>/);
    const facts = textOf(/<dl id="order-facts">([\s\S]*?)<\/dl>/.exec(body)![1]);
    assert.equal(facts, `Status Paid Placed 5 Mar 2026, 11:00 Buyer Ben Buyer ${ben} Coupon SPRING`);
    assert.deepEqual(tableRows(body, 'order-items'), [['Sketching', 'Course', '1', '€29.00', '€29.00']]);
    assert.deepEqual(tableRows(body, 'order-amounts'), [
      ['Items', '€29.00'],
      ['Discount (coupon SPRING)', '−\u2060€2.90'],
      ['Paid', '€26.10'],
      ['Refunded', '€0.00'],
      ['Kept', '€26.10'],
    ]);
    assert.match(body, /<p id="refund-said">No refunds\.<\/p>/);
    assert.match(body, new RegExp(`<a href="${path}">All orders</a>`));

    const refunded = await (await owner.request(`${path}/${shop.orderIds.guide}`)).text();
    assert.match(refunded, /<dd id="order-status">Partially refunded<\/dd>/);
    assert.deepEqual(tableRows(refunded, 'order-items'), [
      ['Brush Guide', 'Digital product', '1', '€9.00', '€9.00'],
    ]);
    assert.equal(
      textOf(/<p id="refund-said">([\s\S]*?)<\/p>/.exec(refunded)![1]),
      '€4.00 of €9.00 was refunded. The order was last updated 10 Mar 2026, 10:00 .',
    );
    assert.deepEqual(tableRows(refunded, 'order-amounts').slice(3), [
      ['Refunded', '€4.00'],
      ['Kept', '€5.00'],
    ]);
    const failed = await (await owner.request(`${path}/${shop.orderIds.failed}`)).text();
    assert.match(failed, /<dd id="order-status">Failed<\/dd>/);
    assert.match(
      failed,
      /<p id="refund-said">The payment failed: nothing was paid, so there is nothing to refund\.<\/p>/,
    );
    assert.doesNotMatch(
      body + refunded + failed,
      /<form method="post"(?! action="\/logout")/,
      'orders are read only',
    );
  });

  it('answers another school’s order exactly as an unknown one: 404', async () => {
    const demoOrder = await t.runtime.db
      .selectFrom('orders')
      .select('id')
      .where('school_id', '=', world.demo.schoolId)
      .executeTakeFirstOrThrow();
    const theirs = await owner.request(`${path}/${demoOrder.id}`);
    assert.equal(theirs.status, 404);
    const theirsBody = await theirs.text();
    assert.match(theirsBody, /<h1>Order not found<\/h1>/);
    assert.match(theirsBody, new RegExp(`<a href="${path}">Back to Orders</a>`));
    const unknown = await owner.request(`${path}/ord_00000000000000000000000000`);
    assert.equal(unknown.status, 404);
    assert.equal(await unknown.text(), theirsBody);
    const garbage = await owner.request(`${path}/${'x'.repeat(300)}`);
    assert.equal(garbage.status, 404);
    assert.equal(await garbage.text(), theirsBody);
    // The demo school's own page opens it.
    assert.equal((await owner.request(`/admin/${world.demo.schoolId}/orders/${demoOrder.id}`)).status, 200);
  });

  it('gives the filters back with the error beside the field for bad input, never a 500', async () => {
    const email = await page('?email=not-an-email&status=paid', 422);
    assert.match(
      email,
      /<input id="email" name="email" type="email" value="not-an-email"[^>]* aria-describedby="email-hint email-error" aria-invalid="true">/,
    );
    assert.match(email, /<p class="field-error" id="email-error">The email [^<]+\.<\/p>/);
    assert.match(email, /<option value="paid" selected>/, 'the other filters stay as chosen');
    assert.match(email, /No orders are shown until the filters are fixed\./);
    const status = await page('?status=shipped', 422);
    assert.match(
      status,
      /<select id="status" name="status" aria-describedby="status-error" aria-invalid="true">/,
    );
    assert.match(status, /<p class="field-error" id="status-error">Choose one of the listed statuses\.<\/p>/);
    const date = await page('?from=2026-13-01', 400);
    assert.match(
      date,
      /<p class="field-error" id="from-error">Enter a date as year-month-day, for example 2026-03-31\.<\/p>/,
    );
    const cursor = await page('?cursor=garbage', 400);
    assert.match(cursor, /That page of orders does not exist: start again from the first page\./);
    const hostile = await page(`?email=${encodeURIComponent('"><script>alert(1)</script>')}`, 422);
    assert.doesNotMatch(hostile, /<script>/);
  });

  it('is for the school’s operators only', async () => {
    const student = await signedIn(t, 'student@example.com');
    assert.equal((await student.request(`/admin/${world.demo.schoolId}/orders`)).status, 403);
    const otherOwner = await signedIn(t, 'other-owner@example.com');
    const list = await otherOwner.request(path);
    assert.equal(list.status, 403);
    const order = await otherOwner.request(`${path}/${shop.orderIds.sketching}`);
    assert.equal(order.status, 403);
    assert.doesNotMatch(await order.text(), /ORD-|€/);
    const anonymous = await t.request(`${path}/${shop.orderIds.sketching}`);
    assert.equal(anonymous.status, 302);
    assert.equal(
      locationOf(anonymous),
      `/login?return_to=${encodeURIComponent(`${path}/${shop.orderIds.sketching}`)}`,
    );
  });
});
