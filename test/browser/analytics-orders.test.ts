/**
 * The Analytics and Orders pages in a real browser (Debian's Chromium through playwright-core):
 * the demo owner reads the revenue chart over the default, a quick and a chosen range, mends a
 * range typed the wrong way round, then filters the orders and opens one. Each page gets axe,
 * desktop and 375 px screenshots with no sideways scroll, and one more in dark mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../support/app.ts';
import { checkPage, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld } from '../support/world.ts';

const skip = onceSkip;

/** A day (YYYY-MM-DD) `days` after `day`. */
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('Analytics and Orders in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let demo: string;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    demo = (await createWorld(t)).demo.schoolId;
    browser = await launchChromium();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  /** Opens `path` as the demo owner, signing in on the way (keyboard only). */
  async function ownerAt(path: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}${path}`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').focus();
    await page.keyboard.type('demo-password');
    await Promise.all([page.waitForURL((u) => u.pathname === path), page.keyboard.press('Enter')]);
    return page;
  }

  /** Screenshots of the page as it is, in dark mode, at desktop and phone width. */
  async function darkShots(page: Page, name: string): Promise<void> {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await checkPage(page, 'analytics-orders', `${name}-dark`);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }

  it('the owner reads the revenue chart over the default, a quick and a chosen range, and mends a bad range', {
    skip,
  }, async () => {
    const path = `/admin/${demo}/analytics`;
    const page = await ownerAt(path);
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), addDays(today, -29));
    assert.equal(await page.getByLabel('To', { exact: true }).inputValue(), today);
    await checkPage(page, 'analytics-orders', 'analytics-default');

    // Last 12 months: the demo's orders of 60 and 30 days ago are there, by month.
    await page
      .getByRole('navigation', { name: 'Quick ranges' })
      .getByRole('link', { name: 'Last 12 months' })
      .click();
    await page.waitForURL(/from=/);
    const chart = page.getByRole('img', { name: /^Net revenue by month/ });
    await chart.waitFor();
    const description = await chart.evaluate((svg) => svg.querySelector('desc')?.textContent ?? '');
    assert.match(
      description,
      /^One bar per month, sales less refunds\. Total \$75\.10 from 3 paid orders\. Highest: /,
    );
    const totals = page.locator('#revenue-totals tbody tr');
    assert.deepEqual(await totals.locator('td').allTextContents(), ['3', '$84.10', '$9.00', '$75.10']);
    assert.equal(
      await page.getByRole('link', { name: 'Last 12 months' }).getAttribute('aria-current'),
      'true',
    );
    // The chart scales down with the page: never wider than its column.
    const width = await chart.evaluate((svg) => svg.getBoundingClientRect().width);
    assert.ok(width > 250 && width <= 640, `chart ${width} px wide`);
    await checkPage(page, 'analytics-orders', 'analytics-12-months');
    await darkShots(page, 'analytics-12-months');

    // A chosen range, typed: 40 days are drawn by week.
    await page.getByLabel('From', { exact: true }).fill(addDays(today, -39));
    await page.getByLabel('To', { exact: true }).fill(today);
    await Promise.all([page.waitForURL(/from=/), page.getByRole('button', { name: 'Show figures' }).click()]);
    await page.getByRole('img', { name: /^Net revenue by week/ }).waitFor();
    assert.equal(await page.locator('#revenue-by-period-0 thead th').first().textContent(), 'Week');
    await checkPage(page, 'analytics-orders', 'analytics-chosen-range');

    // From after To: the form comes back with the error by From, and the focus can reach it.
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByLabel('To', { exact: true }).fill(addDays(today, -5));
    await Promise.all([page.waitForURL(/from=/), page.getByRole('button', { name: 'Show figures' }).click()]);
    assert.equal(await page.getByLabel('From', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#from-error').textContent(), 'From must be before To.');
    assert.equal(await page.locator('svg').count(), 0);
    await checkPage(page, 'analytics-orders', 'analytics-range-error');
    await page.context().close();
  });

  it('the owner filters the orders, opens one and goes back to the list', { skip }, async () => {
    const path = `/admin/${demo}/orders`;
    const page = await ownerAt(path);
    const rows = page.locator('#orders tbody tr');
    assert.equal(await rows.count(), 3);
    // Newest first: the refunded cheat sheets of ten days ago.
    assert.deepEqual((await rows.first().locator('td').allTextContents()).slice(1), [
      'Sam Studentstudent@example.com',
      'TypeScript Cheat Sheet Pack',
      '$9.00',
      'None',
      'Refunded',
      '$9.00',
    ]);
    await checkPage(page, 'analytics-orders', 'orders-list');
    await darkShots(page, 'orders-list');

    await page.getByLabel('Status').selectOption({ label: 'Paid' });
    await Promise.all([
      page.waitForURL(/status=paid/),
      page.getByRole('button', { name: 'Show orders' }).click(),
    ]);
    assert.equal(await rows.count(), 2);
    assert.equal(await page.getByLabel('Status').inputValue(), 'paid');
    await checkPage(page, 'analytics-orders', 'orders-paid');

    // The order with the coupon: its page says the discount and what was kept.
    await page.getByRole('link', { name: 'ORD-00002' }).click();
    await page.getByRole('heading', { name: 'Order ORD-00002' }).waitFor();
    assert.equal(await page.locator('#order-status').textContent(), 'Paid');
    assert.deepEqual(await page.locator('#order-amounts td').allTextContents(), [
      '$29.00',
      '−\u2060$2.90',
      '$26.10',
      '$0.00',
      '$26.10',
    ]);
    await checkPage(page, 'analytics-orders', 'order-detail');
    await darkShots(page, 'order-detail');
    await page.getByRole('link', { name: 'All orders' }).click();
    await page.waitForURL((u) => u.pathname === path && u.search === '');
    await page.context().close();
  });
});
