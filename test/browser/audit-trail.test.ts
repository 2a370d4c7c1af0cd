/**
 * The audit trail in Chromium: an owner reads who did what at Demo Academy, narrows it with the
 * filters by keyboard, and meets a bad date; each page is checked with axe, at desktop and phone
 * width (no sideways scrolling), and screenshotted in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { api } from '../admin/api.ts';
import { checkPage, launchChromium, onceSkip, SCREENSHOTS } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { issueTestToken } from '../support/tokens.ts';
import { createWorld } from '../support/world.ts';

const skip = onceSkip;
const PREFIX = 'audit-trail';

describe('the audit trail in Chromium', () => {
  let live: LiveApp;
  let browser: Browser;
  let page: Page;
  let audit: string;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    const world = await createWorld(live.t);
    const ownerId = world.userId('owner@example.com');
    audit = `${live.baseUrl}/admin/${world.demo.schoolId}/audit`;
    const { token } = await issueTestToken(live.t, {
      userId: ownerId,
      schoolId: world.demo.schoolId,
      scopes: OPERATOR_SCOPES,
      audience: 'operator',
    });
    const call = api(live.t, token);
    const course = await call('POST', '/api/v1/courses', {
      slug: 'intro-to-watercolour',
      title: 'Intro to Watercolour',
      price_amount: 4900,
    });
    assert.equal(course.status, 201);
    const patched = await call('PATCH', `/api/v1/courses/${course.body.id}`, { price_amount: 5900 });
    assert.equal(patched.status, 200);
    const renamed = await call('PATCH', `/api/v1/courses/${course.body.id}`, {
      title: 'Watercolour for Beginners',
      description: 'Paper, pigments and water.',
      price_amount: 6900,
    });
    assert.equal(renamed.status, 200);
    assert.equal(
      (await call('POST', '/api/v1/members', { email: 'jane@example.com', roles: ['lecturer'] })).status,
      201,
    );
    browser = await launchChromium();
    page = await browser.newPage();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  it('shows the whole trail in words after signing in', { skip }, async () => {
    await page.goto(audit);
    assert.equal(new URL(page.url()).pathname, '/login');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await Promise.all([page.waitForURL((u) => u.pathname.endsWith('/audit')), page.keyboard.press('Enter')]);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Demo Academy · Audit trail');
    const first = page.locator('#audit-events tbody tr').first();
    assert.match((await first.textContent()) ?? '', /Invited jane@example\.com as lecturer/);
    await page
      .getByText('Changed the title, description and price of the course “Watercolour for Beginners”')
      .waitFor();
    await page.getByText('Changed the price of “Intro to Watercolour” from $49.00 to $59.00').waitFor();
    await checkPage(page, PREFIX, 'all');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: `${SCREENSHOTS}/${PREFIX}-all-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('narrows the trail with the filters, by keyboard', { skip }, async () => {
    await page.getByLabel('What happened').focus();
    await page.getByLabel('What happened').selectOption({ label: 'Course changed' });
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'actor');
    await page.getByLabel('Who did it').selectOption({ label: 'Olivia Owner (owner@example.com)' });
    await page.getByRole('button', { name: 'Show entries' }).focus();
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get('type') === 'course.updated'),
      page.keyboard.press('Enter'),
    ]);
    assert.equal(await page.getByRole('heading', { level: 2, name: 'Matching entries' }).count(), 1);
    assert.equal(await page.locator('#audit-events tbody tr').count(), 2);
    assert.equal(
      await page.getByLabel('What happened').inputValue(),
      'course.updated',
      'the filter stays chosen',
    );
    await checkPage(page, PREFIX, 'filtered');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: `${SCREENSHOTS}/${PREFIX}-filtered-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('says what is wrong with a filter beside it, and when nothing matches', { skip }, async () => {
    const bad = await page.goto(`${audit}?from=2026-02-30&type=course.updated`);
    assert.equal(bad?.status(), 400);
    assert.equal(
      await page.locator('#from-error').textContent(),
      'Enter the first day as a date, e.g. 2026-03-01.',
    );
    await checkPage(page, PREFIX, 'bad-date');
    await page.goto(`${audit}?from=2001-01-01&to=2001-01-31`);
    assert.equal(await page.locator('#no-events').textContent(), 'No entries match these filters.');
    await checkPage(page, PREFIX, 'empty');
  });
});
