/**
 * Account recovery and settings in a real browser (Debian's Chromium through playwright-core):
 * a student forgets the password, follows the emailed link (real mail through the
 * in-process SMTP server), sets a new one and changes name and password on /account/settings; a
 * locked account meets the lockout page and an owner unlocks it from /admin. Every page is
 * screenshotted and checked with axe-core.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { ACCOUNT_FAILURE_LIMIT } from '../../src/web/login.ts';
import type { TestApp } from '../support/app.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';

const SHOTS = 'test-artifacts/screenshots';

describe('account recovery, settings and unlock in Chromium', () => {
  let live: LiveApp;
  let bare: LiveApp;
  let t: TestApp;
  let smtp: TestSmtpServer;
  let base: string;
  let browser: Browser;
  let demo: string;

  before(async () => {
    if (onceSkip) return; // nothing to start
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startTestSmtpServer();
    live = await startLiveApp({ SMTP_URL: smtp.url });
    ({ t, baseUrl: base } = live);
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    // A second deployment without SMTP_URL, for the page that says no link can be sent.
    bare = await startLiveApp();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await live?.close();
    await bare?.close();
    await smtp?.close();
  });

  async function check(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: `${SHOTS}/recovery-${name}.png`, fullPage: true });
    await assertAccessible(page, name);
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('forgot password → emailed link → new password → settings: name, password, other sessions', {
    skip: onceSkip,
  }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    assert.equal(new URL(page.url()).pathname, '/password-reset');
    await check(page, 'request');
    await page.getByLabel('Email').fill('student@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.waitForURL(/\/password-reset\/sent$/);
    await check(page, 'sent');

    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('student@example.com'));
    const link = linkIn(mail, `${base}/password-reset/`);
    await page.goto(link);
    await check(page, 'new-password');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('New password, again').fill('short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /at least 8 characters/);
    await check(page, 'new-password-error');
    await page.getByLabel('New password', { exact: true }).fill('a-fresh-password');
    await page.getByLabel('New password, again').fill('a-fresh-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(/\/password-reset\/done$/);
    await check(page, 'done');
    // The link is spent: the same address now explains what happened.
    await page.goto(link);
    await check(page, 'dead-link');

    await signIn(page, 'student@example.com', 'a-fresh-password');
    // A student of one school lands in its learning area; their account page is a link away.
    await page.waitForURL(/\/schools\/demo\/learn$/);
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: /Change your name or password/ }).click();
    await check(page, 'settings');
    await page.getByLabel('Your name').fill('Sam S. Student');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.waitForURL(/done=name/);
    assert.equal(await page.getByLabel('Your name').inputValue(), 'Sam S. Student');
    await check(page, 'settings-name-saved');
    await page.getByLabel('Current password').fill('not-it');
    await page.getByLabel('New password', { exact: true }).fill('yet-another-password');
    await page.getByLabel('New password, again').fill('yet-another-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    assert.equal(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');
    await check(page, 'settings-password-error');
    await page.getByLabel('Current password').fill('a-fresh-password');
    await page.getByLabel('New password', { exact: true }).fill('yet-another-password');
    await page.getByLabel('New password, again').fill('yet-another-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/done=password/);
    await check(page, 'settings-password-changed');
    await context.close();
  });

  it('a locked account sees how long and what to do; an owner unlocks it from /admin', {
    skip: onceSkip,
  }, async () => {
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      const login = await t.request('/login');
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(await login.text())![1];
      const res = await t.request('/login', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          csrf_token: csrf,
          email: 'lecturer@example.com',
          password: 'wrong',
        }).toString(),
      });
      assert.equal(res.status, 401);
    }
    const person = await browser.newContext();
    const page = await person.newPage();
    await signIn(page, 'lecturer@example.com', 'demo-password');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Try again in 15 minutes/);
    await check(page, 'lockout');

    const owner = await browser.newContext();
    const admin = await owner.newPage();
    await signIn(admin, 'owner@example.com', 'demo-password');
    await admin.waitForURL(/\/admin\//);
    await admin.goto(`${base}/admin/${demo}/locked`);
    await check(admin, 'admin-locked');
    await admin.getByRole('button', { name: 'Unlock Leo Lecturer' }).click();
    await admin.waitForURL(/done=unlocked/);
    await check(admin, 'admin-unlocked');

    await signIn(page, 'lecturer@example.com', 'demo-password');
    await page.waitForURL(new RegExp(`/admin/${demo}/courses$`));
    await person.close();
    await owner.close();
  });

  it('without SMTP_URL the reset page says so, accessibly', { skip: onceSkip }, async () => {
    const page = await browser.newPage();
    await page.goto(`${bare.baseUrl}/password-reset`);
    assert.match((await page.getByRole('status').textContent()) ?? '', /cannot send email/);
    await check(page, 'request-no-mail');
    await page.close();
  });
});
