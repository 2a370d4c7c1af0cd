/**
 * `/admin/<school>/analytics` over HTTP: a range of the school's days, revenue and enrollments
 * as server-drawn charts with their numbers as tables in the school's currency and locale, the
 * same figures as the admin API, and bad ranges answered by the form with the error by its field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld, type World } from '../support/world.ts';
import { type ShopSchool, shopSchool, tableRows, textOf } from './commerce-pages-support.ts';
import { assertPageHeaders, locationOf, signedIn } from './pages-support.ts';

/** A day (YYYY-MM-DD) `days` after `day`. */
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);

interface Revenue {
  gross_amount: number;
  refunded_amount: number;
  net_amount: number;
  orders: number;
}
/** The parts of the analytics operations' answers these tests read. */
interface Answer {
  revenue: Revenue[];
  new_enrollments: number;
  totals: Revenue[];
  by_day: { date: string; net_amount: number; orders: number }[];
  courses: { title: string; enrollments: number; completed_enrollments: number }[];
}

describe('/admin/<school>/analytics', () => {
  let t: TestApp;
  let world: World;
  let shop: ShopSchool;
  let owner: Browser;
  let path: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    shop = await shopSchool(t, world);
    owner = await signedIn(t, 'owner@example.com');
    path = `/admin/${shop.schoolId}/analytics`;
  });
  after(() => t.close());

  /** The admin API's answer to the demo owner at `schoolId`. */
  async function api(schoolId: string, operation: string, query: Record<string, string>): Promise<Answer> {
    const { token } = await issueTestToken(t, {
      userId: world.userId('owner@example.com'),
      schoolId,
      scopes: OPERATOR_SCOPES,
      audience: 'operator',
    });
    const res = await t.request(`/api/v1/analytics/${operation}?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200, operation);
    return (await res.json()) as Answer;
  }

  async function page(query: string, status = 200): Promise<string> {
    const res = await owner.request(`${path}${query}`);
    assert.equal(res.status, status, query);
    assertPageHeaders(res);
    return res.text();
  }

  it('draws revenue and enrollments by the school’s days, in euros as en-GB writes them', async () => {
    const body = await page('?from=2026-03-01&to=2026-03-14');
    assert.match(body, /<h1>Zone School \d+ · Analytics<\/h1>/);
    assert.match(body, /<a href="[^"]+\/analytics" aria-current="page">Analytics<\/a>/);
    assert.equal(
      textOf(/<p id="range-said">([\s\S]*?)<\/p>/.exec(body)![1]),
      'Figures from 1 Mar 2026 to 14 Mar 2026 .',
    );
    assert.match(body, /<input id="from" name="from" type="date" value="2026-03-01" required>/);
    assert.match(body, /<input id="to" name="to" type="date" value="2026-03-14" required>/);
    assert.match(body, /Days in the school’s time zone \(Europe\/Berlin\), both included\./);
    assert.deepEqual(tableRows(body, 'revenue-totals'), [['Euro', '3', '€84.10', '€4.00', '€80.10']]);
    assert.deepEqual(tableRows(body, 'summary'), [
      ['New enrollments Enrollments that started in the range.', '2'],
      ['Completed enrollments Enrollments completed in the range.', '0'],
      ['Active students Students who made progress on a lecture in the range.', '0'],
      ['Students with access Students with an enrollment that had not expired at the end of the range.', '2'],
    ]);
    // The order of 23:30 UTC on 1 March is 00:30 on 2 March in Berlin: the school's day.
    const days = tableRows(body, 'revenue-by-period-0');
    assert.equal(days.length, 14);
    assert.deepEqual(days.slice(0, 2), [
      ['1 Mar 2026', '0', '€0.00'],
      ['2 Mar 2026', '1', '€49.00'],
    ]);
    assert.deepEqual(days[4], ['5 Mar 2026', '1', '€26.10'], 'the coupon’s 10 % is off');
    assert.deepEqual(days[9], ['10 Mar 2026', '1', '€5.00'], 'net of the €4.00 refund');
    assert.deepEqual(days[11], ['12 Mar 2026', '0', '€0.00'], 'a failed payment is no revenue');
    assert.match(body, /<tfoot><tr><th scope="row">Total<\/th><td>3<\/td><td>€80\.10<\/td><\/tr><\/tfoot>/);
    // The chart: one accessible image with a title and a description that says the total.
    const chart = /<svg id="revenue-chart-0"[\s\S]*?<\/svg>/.exec(body)![0];
    assert.match(
      chart,
      /^<svg id="revenue-chart-0" role="img" aria-labelledby="revenue-chart-0-title revenue-chart-0-desc" viewBox="0 0 360 210" width="100%"/,
    );
    assert.match(
      chart,
      /<title id="revenue-chart-0-title">Net revenue by day, 1 Mar 2026 to 14 Mar 2026<\/title>/,
    );
    assert.match(
      chart,
      /<desc id="revenue-chart-0-desc">One bar per day, sales less refunds\. Total €80\.10 from 3 paid orders\. Highest: 2 Mar 2026, €49\.00\.<\/desc>/,
    );
    assert.equal(chart.match(/<rect class="bar"/g)?.length, 14);
    assert.match(chart, />€80\.00<\/text>/, 'the axis says amounts');
    assert.match(chart, />1 Mar<\/text>/, 'and days');
    const enrollments = tableRows(body, 'enrollments-by-period');
    assert.deepEqual(
      [enrollments[1], enrollments[4]],
      [
        ['2 Mar 2026', '1'],
        ['5 Mar 2026', '1'],
      ],
    );
    assert.match(
      body,
      /<desc id="enrollments-chart-desc">One bar per day\. Total 2 new enrollments\. Highest: 2 Mar 2026, 1 new enrollment\.<\/desc>/,
    );
    assert.deepEqual(tableRows(body, 'course-completion'), [
      ['Sketching', '1', '0', '0%', '0%', '0'],
      ['Watercolour Basics', '1', '0', '0%', '0%', '0'],
    ]);
    assert.doesNotMatch(body, /crs_|ord_|net_amount|EUR/, 'no ids, setting names or codes');
  });

  it('shows the admin API’s figures: each bar is the summary of its day, the totals the range’s', async () => {
    const body = await page('?from=2026-03-01&to=2026-03-14');
    const berlinDay = (day: string) => `${addDays(day, -1)}T23:00:00.000Z`; // CET, before the switch
    const whole = await api(shop.schoolId, 'summary', {
      from: berlinDay('2026-03-01'),
      to: berlinDay('2026-03-15'),
    });
    const euros = (minor: number) => `€${(minor / 100).toFixed(2)}`;
    const [total] = whole.revenue;
    assert.deepEqual(tableRows(body, 'revenue-totals')[0].slice(1), [
      String(total.orders),
      euros(total.gross_amount),
      euros(total.refunded_amount),
      euros(total.net_amount),
    ]);
    assert.equal(tableRows(body, 'summary')[0][1], String(whole.new_enrollments));
    const rows = tableRows(body, 'revenue-by-period-0');
    const enrollments = tableRows(body, 'enrollments-by-period');
    for (let i = 0; i < 14; i++) {
      const day = addDays('2026-03-01', i);
      const one = await api(shop.schoolId, 'summary', {
        from: berlinDay(day),
        to: berlinDay(addDays(day, 1)),
      });
      const net = one.revenue[0]?.net_amount ?? 0;
      assert.deepEqual(rows[i].slice(1), [String(one.revenue[0]?.orders ?? 0), euros(net)], day);
      assert.equal(enrollments[i][1], String(one.new_enrollments), day);
    }
    const completion = await api(shop.schoolId, 'course-completion', {
      from: berlinDay('2026-03-01'),
      to: berlinDay('2026-03-15'),
    });
    assert.deepEqual(
      tableRows(body, 'course-completion').map((r) => [r[0], r[1], r[2]]),
      completion.courses.map((c) => [c.title, String(c.enrollments), String(c.completed_enrollments)]),
    );

    // The demo school keeps UTC days: its bars are the revenue report's days, as dollars in "en".
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    const from = addDays(today, -30);
    const demo = await (
      await owner.request(`/admin/${world.demo.schoolId}/analytics?from=${from}&to=${today}`)
    ).text();
    const report = await api(world.demo.schoolId, 'revenue', {
      from: `${from}T00:00:00.000Z`,
      to: `${addDays(today, 1)}T00:00:00.000Z`,
    });
    assert.ok(report.by_day.length >= 2, 'the demo’s orders of 30 and 10 days ago');
    const label = (day: string) =>
      new Intl.DateTimeFormat('en', {
        timeZone: 'UTC',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
      }).format(new Date(`${day}T00:00:00.000Z`));
    const dollars = (minor: number) => `$${(minor / 100).toFixed(2)}`;
    const demoRows = tableRows(demo, 'revenue-by-period-0');
    for (const d of report.by_day) {
      assert.deepEqual(
        demoRows.find((r) => r[0] === label(d.date)),
        [label(d.date), String(d.orders), dollars(d.net_amount)],
        d.date,
      );
    }
    const net = report.totals[0].net_amount;
    assert.match(demo, new RegExp(`Total ${dollars(net).replace('$', '\\$').replace('.', '\\.')} from`));
  });

  it('draws longer ranges by week and by month', async () => {
    const weeks = await page('?from=2026-02-01&to=2026-03-14');
    const byWeek = tableRows(weeks, 'revenue-by-period-0');
    assert.equal(byWeek.length, 6);
    assert.deepEqual(byWeek[0], ['1 Feb 2026 to 7 Feb 2026', '7', '€70.00']);
    assert.deepEqual(byWeek[5], ['8 Mar 2026 to 14 Mar 2026', '1', '€5.00']);
    assert.match(weeks, /<th scope="col">Week<\/th>/);
    assert.match(
      weeks,
      /<title id="revenue-chart-0-title">Net revenue by week, 1 Feb 2026 to 14 Mar 2026<\/title>/,
    );
    const months = await page('?from=2025-04-01&to=2026-03-31');
    const byMonth = tableRows(months, 'revenue-by-period-0');
    assert.equal(byMonth.length, 12);
    assert.deepEqual(byMonth[0], ['April 2025', '0', '€0.00']);
    assert.deepEqual(byMonth.slice(10), [
      ['February 2026', '21', '€210.00'],
      ['March 2026', '3', '€80.10'],
    ]);
    assert.equal(months.match(/<rect class="bar"/g)?.length, 24, 'twelve bars in each chart');
    assert.match(months, />Apr<\/text>[\s\S]*>Jan<\/text>/, 'every third month is named on the axis');
  });

  it('opens on the last 30 days of the school’s zone, with quick ranges, and says when there is nothing yet', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(t.clock.now());
    const body = await page('');
    assert.match(
      body,
      new RegExp(`<input id="from" name="from" type="date" value="${addDays(today, -29)}" required>`),
    );
    assert.match(body, new RegExp(`<input id="to" name="to" type="date" value="${today}" required>`));
    const quick = [...body.matchAll(/<li><a href="([^"]+)"( aria-current="true")?>([^<]+)<\/a><\/li>/g)].map(
      (m) => [m[3], m[1].replace(/&amp;/g, '&'), Boolean(m[2])],
    );
    assert.deepEqual(quick, [
      ['Last 7 days', `${path}?from=${addDays(today, -6)}&to=${today}`, false],
      ['Last 30 days', `${path}?from=${addDays(today, -29)}&to=${today}`, true],
      [
        'Last 12 months',
        `${path}?from=${(() => {
          const d = new Date(`${today.slice(0, 7)}-01T00:00:00.000Z`);
          d.setUTCMonth(d.getUTCMonth() - 11);
          return d.toISOString().slice(0, 10);
        })()}&to=${today}`,
        false,
      ],
    ]);
    assert.match(
      body,
      /<div id="nothing-yet"><div class="notice warning" role="status"><p>Nothing yet in this range: no orders, enrollments or lecture progress from/,
    );
    assert.match(body, /<p class="muted" id="no-revenue">No revenue in this range yet/);
    assert.match(body, /<p class="muted" id="no-enrollments">No new enrollments in this range yet\.<\/p>/);
    assert.doesNotMatch(body, /<svg/);
  });

  it('gives the form back with the error beside the field for a bad date or range, never a 500', async () => {
    const bad = await page('?from=2026-02-30&to=2026-03-01', 400);
    assert.match(
      bad,
      /<input id="from" name="from" type="date" value="2026-02-30" required aria-invalid="true" aria-describedby="from-error">/,
    );
    assert.match(
      bad,
      /<p class="field-error" id="from-error">Enter a date as year-month-day, for example 2026-03-31\.<\/p>/,
    );
    assert.doesNotMatch(bad, /id="to-error"/);
    assert.doesNotMatch(bad, /id="summary"/, 'no figures for a range that is not one');
    const hostile = await page(`?to=${encodeURIComponent('<script>alert(1)</script>')}`, 400);
    assert.doesNotMatch(hostile, /<script>/);
    assert.match(
      hostile,
      /value="&lt;script&gt;alert\(1\)&lt;\/script&gt;" required aria-invalid="true" aria-describedby="to-error"/,
    );
    const backwards = await page('?from=2026-03-10&to=2026-03-01', 422);
    assert.match(backwards, /<p class="field-error" id="from-error">From must be before To\.<\/p>/);
    assert.match(backwards, /value="2026-03-10" required aria-invalid="true"/);
    const long = await page('?from=2020-01-01&to=2026-03-01', 422);
    assert.match(long, /<p class="field-error" id="from-error">The range may span at most 731 days\.<\/p>/);
    const repeated = await page('?from=2026-03-01&from=2026-03-02&to=2026-03-14');
    assert.match(repeated, /value="2026-03-01"/);
  });

  it('is for the school’s operators only', async () => {
    const student = await signedIn(t, 'student@example.com');
    assert.equal((await student.request(`/admin/${world.demo.schoolId}/analytics`)).status, 403);
    const otherOwner = await signedIn(t, 'other-owner@example.com');
    const refused = await otherOwner.request(path);
    assert.equal(refused.status, 403);
    assert.doesNotMatch(await refused.text(), /Zone School|€/);
    const anonymous = await t.request(path);
    assert.equal(anonymous.status, 302);
    assert.equal(locationOf(anonymous), `/login?return_to=${encodeURIComponent(path)}`);
  });
});
