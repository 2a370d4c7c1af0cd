/**
 * An operator hands a member a password reset link (no SMTP), in Chromium (the pages carry no script: the
 * CSP forbids them), at desktop width and at 375 px: the members page, the confirmation page and the link shown once
 * are screenshotted and checked with axe; the link then sets a new password the member signs in with.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';

const SHOTS = 'test-artifacts/screenshots';
const skip = onceSkip;

describe('an operator sends a password reset link, in Chromium', () => {
  let live: LiveApp;
  let browser: Browser;
  let demo: string;

  before(async () => {
    if (skip) return; // nothing was started
    mkdirSync(SHOTS, { recursive: true });
    live = await startLiveApp();
    await seedDemoData(live.t.runtime.db);
    demo = (await findSchoolBySubdomain(live.t.runtime.db, 'demo'))!.id;
    browser = await launchChromium();
  });
  after(async () => {
    if (skip) return;
    await browser?.close();
    await live?.close();
  });

  async function check(page: Page, name: string, width: number): Promise<void> {
    await page.screenshot({ path: `${SHOTS}/member-password-reset-${name}-${width}.png`, fullPage: true });
    await assertAccessible(page, `${name} at ${width} px`);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scroll <= Math.max(width, 375), `${name}: scrollWidth ${scroll} at ${width} px`);
  }

  async function journey(width: number, email: string): Promise<void> {
    const viewport = { width, height: 800 };
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`${live.baseUrl}/login`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await Promise.all([
      page.waitForURL((u) => u.pathname !== '/login'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    assert.match(new URL(page.url()).pathname, /^\/admin/, 'staff land in the console');

    await page.goto(`${live.baseUrl}/admin/${demo}/members`);
    await check(page, 'members', width);
    await page.getByRole('link', { name: `Send password reset link to ${email}` }).click();
    assert.match(await page.locator('h1').innerText(), /^Send a password reset link to /);
    await check(page, 'confirm', width);
    await page.getByRole('button', { name: 'Send password reset link' }).click();
    const link = (await page.locator('#password-reset-link').innerText()).trim();
    assert.ok(link.startsWith(`${live.baseUrl}/password-reset/`), link);
    await check(page, 'link-shown', width);
    await page.reload();
    assert.equal(await page.locator('#password-reset-link').count(), 0, 'shown once');
    await context.close();

    const member = await browser.newContext({ viewport });
    member.setDefaultTimeout(15_000);
    const own = await member.newPage();
    await own.goto(link);
    await own.getByLabel('New password', { exact: true }).fill('chosen-by-the-member-1');
    await own.getByLabel('New password, again').fill('chosen-by-the-member-1');
    await own.getByRole('button', { name: 'Set new password' }).click();
    assert.equal(new URL(own.url()).pathname, '/password-reset/done');
    await own.goto(`${live.baseUrl}/login`);
    await own.getByLabel('Email').fill(email);
    await own.getByLabel('Password').fill('chosen-by-the-member-1');
    await Promise.all([
      own.waitForURL((u) => u.pathname !== '/login'),
      own.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    // Where each lands after signing in: a student in their school's learning area, staff in the console.
    const landing = email === 'student@example.com' ? '/schools/demo/learn' : `/admin/${demo}/courses`;
    assert.equal(new URL(own.url()).pathname, landing);
    await member.close();
  }

  it(
    'at 1280 px: members page → confirmation → link shown once → new password works (student@example.com)',
    { skip },
    () => journey(1280, 'student@example.com'),
  );
  it(
    'at 375 px: members page → confirmation → link shown once → new password works (lecturer@example.com)',
    { skip },
    () => journey(375, 'lecturer@example.com'),
  );
});
