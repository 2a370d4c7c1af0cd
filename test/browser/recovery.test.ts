/**
 * Account recovery and settings in a real browser (Debian's Chromium through playwright-core,
 * issue #16): a student forgets the password, follows the emailed link (real mail through the
 * in-process SMTP server), sets a new one and changes name and password on /account/settings; a
 * locked account meets the lockout page and an owner unlocks it from /admin. Every page is
 * screenshotted and checked with axe-core.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { ACCOUNT_FAILURE_LIMIT } from '../../src/web/login.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-artifacts/screenshots';
const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
const skip = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM} (CI installs it); browser tests skipped`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core through the DevTools protocol (the pages' CSP allows no scripts); serious or worse fails. */
async function assertAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `accessibility of ${name}`,
  );
}

describe('account recovery, settings and unlock in Chromium (issue #16)', { skip }, () => {
  let t: TestApp;
  let bare: TestApp;
  let smtp: TestSmtpServer;
  let server: RunningServer;
  let bareServer: RunningServer;
  let base: string;
  let bareBase: string;
  let browser: Browser;
  let demo: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startTestSmtpServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ BASE_URL: base, SMTP_URL: smtp.url });
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    server = await listen(t.app, '127.0.0.1', port);
    // A second deployment without SMTP_URL, for the page that says no link can be sent.
    const barePort = await freePort();
    bareBase = `http://127.0.0.1:${barePort}`;
    bare = await createTestApp({ BASE_URL: bareBase });
    bareServer = await listen(bare.app, '127.0.0.1', barePort);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
    await server?.shutdown(1000);
    await bareServer?.shutdown(1000);
    await t?.close();
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

  it('forgot password → emailed link → new password → settings: name, password, other sessions', async () => {
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
    await page.waitForURL(/\/account$/);
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

  it('a locked account sees how long and what to do; an owner unlocks it from /admin', async () => {
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
    await admin.waitForURL(/\/account$/);
    await admin.goto(`${base}/admin/${demo}/locked`);
    await check(admin, 'admin-locked');
    await admin.getByRole('button', { name: 'Unlock Leo Lecturer' }).click();
    await admin.waitForURL(/done=unlocked/);
    await check(admin, 'admin-unlocked');

    await signIn(page, 'lecturer@example.com', 'demo-password');
    await page.waitForURL(/\/account$/);
    await person.close();
    await owner.close();
  });

  it('without SMTP_URL the reset page says so, accessibly', async () => {
    const page = await browser.newPage();
    await page.goto(`${bareBase}/password-reset`);
    assert.match((await page.getByRole('status').textContent()) ?? '', /cannot send email/);
    await check(page, 'request-no-mail');
    await page.close();
  });
});
