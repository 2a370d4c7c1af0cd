/**
 * Invitations in a real browser (Debian's Chromium through playwright-core): an owner
 * invites a lecturer from the members page; with SMTP the email arrives at an in-process SMTP
 * server and the lecturer follows its link, sets a name and password and lands signed in;
 * without SMTP the link is shown once on the members page. Every page is checked with axe-core.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';

interface Live extends LiveApp {
  demo: string;
}

async function startLive(env: Record<string, string> = {}): Promise<Live> {
  const live = await startLiveApp(env);
  await seedDemoData(live.t.runtime.db);
  return { ...live, demo: (await findSchoolBySubdomain(live.t.runtime.db, 'demo'))!.id };
}

async function signIn(page: Page, live: Live, email: string, path: string): Promise<void> {
  await page.goto(`${live.baseUrl}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('demo-password');
  await Promise.all([
    page.waitForURL((u) => u.pathname !== '/login'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** On the members page: invite `email` as lecturer (the default role). */
async function invite(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await Promise.all([
    page.waitForURL(/done=invited/),
    page.getByRole('button', { name: 'Send invitation' }).click(),
  ]);
}

/** The invited person sets a name and password on the link's page and lands on /account. */
async function join(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await assertAccessible(page, 'join page');
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('Choose a password').fill('a-fine-password');
  await Promise.all([
    page.waitForURL(/\/account$/),
    page.getByRole('button', { name: /^Join Demo Academy/ }).click(),
  ]);
  await assertAccessible(page, 'account after joining');
}

describe('invitations in Chromium', () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let mailed: Live;
  let linked: Live;

  before(async () => {
    if (onceSkip) return; // nothing to start
    smtp = await startTestSmtpServer();
    mailed = await startLive({ SMTP_URL: smtp.url });
    linked = await startLive();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await mailed?.close();
    await linked?.close();
    await smtp?.close();
  });

  it('by email: the owner invites a lecturer, who follows the mailed link, joins and is signed in', {
    skip: onceSkip,
  }, async () => {
    const ownerContext = await browser.newContext();
    const owner = await ownerContext.newPage();
    await signIn(owner, mailed, 'owner@example.com', `/admin/${mailed.demo}/members`);
    assert.equal(new URL(owner.url()).pathname, `/admin/${mailed.demo}/members`);
    await assertAccessible(owner, 'members page');
    await invite(owner, 'lina@example.com');
    assert.match((await owner.getByRole('status').first().textContent()) ?? '', /created and emailed/);
    assert.equal(await owner.locator('#invitation-link').count(), 0, 'a mailed link is never shown');
    await assertAccessible(owner, 'members page after inviting');

    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('lina@example.com'));
    const link = linkIn(mail, `${mailed.baseUrl}/invitations/`);
    const lina = await (await browser.newContext()).newPage();
    await join(lina, link, 'Lina Lecturer');
    const user = await findUserByEmail(mailed.t.runtime.db, 'lina@example.com');
    assert.deepEqual((await findMembership(mailed.t.runtime.db, mailed.demo, user!.id))!.roles, ['lecturer']);
    await lina.goto(link);
    assert.match((await lina.locator('h1').textContent()) ?? '', /no longer valid/);
    await assertAccessible(lina, 'used link page');
    await ownerContext.close();
  });

  it('without SMTP: the link is shown once after the redirect; a reload does not show it again', {
    skip: onceSkip,
  }, async () => {
    const owner = await (await browser.newContext()).newPage();
    await signIn(owner, linked, 'owner@example.com', `/admin/${linked.demo}/members`);
    await invite(owner, 'leo@example.com');
    const link = ((await owner.locator('#invitation-link').textContent()) ?? '').trim();
    assert.match(link, new RegExp(`^${linked.baseUrl}/invitations/[A-Za-z0-9_-]{43}$`));
    await assertAccessible(owner, 'members page with the one-time link');
    await owner.reload();
    assert.equal(await owner.locator('#invitation-link').count(), 0);
    const leo = await (await browser.newContext()).newPage();
    await join(leo, link, 'Leo Lecturer');
  });

  it('an existing account signs in from the invitation and accepts; a wrong account is told; removal asks first', {
    skip: onceSkip,
  }, async () => {
    const owner = await (await browser.newContext()).newPage();
    await signIn(owner, linked, 'owner@example.com', `/admin/${linked.demo}/members`);
    await invite(owner, 'other-student@example.com');
    const link = ((await owner.locator('#invitation-link').textContent()) ?? '').trim();
    // The owner's own browser is the wrong account for this invitation.
    await owner.goto(link);
    assert.match(
      (await owner.getByRole('main').textContent()) ?? '',
      /This invitation is for other-student@example\.com/,
    );
    await assertAccessible(owner, 'invitation for another account');
    const student = await (await browser.newContext()).newPage();
    await student.goto(link);
    await assertAccessible(student, 'sign in to accept');
    // The same page for any email: join with a name and password, or sign in to accept.
    mkdirSync('test-artifacts/screenshots', { recursive: true });
    await student.screenshot({ path: 'test-artifacts/screenshots/invitation-join.png', fullPage: true });
    await student.setViewportSize({ width: 375, height: 800 });
    await student.screenshot({ path: 'test-artifacts/screenshots/invitation-join-375.png', fullPage: true });
    assert.equal(
      await student.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      true,
      'no sideways scrolling at 375 px',
    );
    await student.getByRole('link', { name: 'Sign in to accept' }).click();
    await student.getByLabel('Email').fill('other-student@example.com');
    await student.getByLabel('Password').fill('demo-password');
    await Promise.all([
      student.waitForURL((u) => u.pathname.startsWith('/invitations/')),
      student.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await assertAccessible(student, 'accept page');
    await Promise.all([
      student.waitForURL(/\/account$/),
      student.getByRole('button', { name: /^Accept and join Demo Academy/ }).click(),
    ]);
    const user = await findUserByEmail(linked.t.runtime.db, 'other-student@example.com');
    assert.deepEqual((await findMembership(linked.t.runtime.db, linked.demo, user!.id))!.roles, ['lecturer']);
    // Removing someone goes through a confirmation page.
    await owner.goto(`${linked.baseUrl}/admin/${linked.demo}/members`);
    await owner.getByRole('link', { name: 'Remove lecturer@example.com' }).click();
    await assertAccessible(owner, 'remove confirmation');
    await Promise.all([
      owner.waitForURL(/done=removed/),
      owner.getByRole('button', { name: 'Remove lecturer@example.com' }).click(),
    ]);
    await assertAccessible(owner, 'members page after removing');
    const bad = await (await browser.newContext()).newPage();
    await bad.goto(`${linked.baseUrl}/invitations/not-a-real-token`);
    assert.match((await bad.locator('h1').textContent()) ?? '', /Invitation not found/);
    await assertAccessible(bad, 'unknown invitation link');
  });
});
