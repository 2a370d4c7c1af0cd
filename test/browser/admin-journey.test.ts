/**
 * The operator and member pages in a real browser (Debian's Chromium through playwright-core):
 * an owner turns the MCP connections beta on, creates a member app and copies its client_id; a
 * student authorizes it in a second browser context; the owner sees and revokes the connection,
 * and the token stops working. Every page is screenshotted and checked with axe-core.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import type { TestApp } from '../support/app.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld } from '../support/world.ts';

const SHOTS = 'test-artifacts/screenshots';
const skip = onceSkip;

describe('admin area and account page in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let callback: Server;
  let callbackBase: string;
  let demo: string;
  let shot = 0;

  before(async () => {
    if (skip) return; // nothing was started
    mkdirSync(SHOTS, { recursive: true });
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    demo = (await createWorld(t)).demo.schoolId;
    // The member app's loopback redirect target: a tiny page, as a CLI tool would serve.
    callback = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><title>Done</title><p>You can close this window.</p></html>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackBase = `http://127.0.0.1:${(callback.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await live?.close();
  });

  /** Screenshot (numbered, in journey order) and accessibility check of the current page. */
  async function check(page: Page, name: string): Promise<void> {
    shot += 1;
    await page.screenshot({ path: `${SHOTS}/${String(shot).padStart(2, '0')}-${name}.png`, fullPage: true });
    await assertAccessible(page, name);
  }

  async function signIn(context: BrowserContext, email: string, path: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${base}${path}`);
    assert.match(new URL(page.url()).pathname, /^\/login$/);
    // Keyboard only: the email field, then the password, then Enter submits.
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'password');
    await page.keyboard.type('demo-password');
    await Promise.all([page.waitForURL((u) => u.pathname !== '/login'), page.keyboard.press('Enter')]);
    return page;
  }

  it('the accessibility check can fail: a page with an unlabelled control and an image without alt', {
    skip,
  }, async () => {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body><img src="data:,"><input type="text"></body></html>');
    await assert.rejects(() => assertAccessible(page, 'probe'), /image-alt|label/);
    await page.close();
  });

  it('owner creates a member app, student authorizes it, owner revokes it, the token stops working', {
    skip,
  }, async () => {
    const owner = await browser.newContext();
    // The student is on a phone-sized screen: the pages must work narrow too.
    const student = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });

    // Sign-in page, then the admin area of the owner's only school.
    const loginPage = await owner.newPage();
    await loginPage.goto(`${base}/login`);
    await check(loginPage, 'login');
    await loginPage.close();
    const page = await signIn(owner, 'owner@example.com', '/admin');
    assert.equal(new URL(page.url()).pathname, `/admin/${demo}`);
    await check(page, 'admin-settings-on');

    // The demo has the beta on: switch it off (Developers disappears), then on again.
    await page.getByRole('button', { name: 'Turn off MCP connections' }).click();
    await page.waitForURL(/done=beta-off/);
    assert.equal(await page.locator('#mcp-status').textContent(), 'Off');
    assert.equal(await page.getByRole('link', { name: 'OAuth applications' }).count(), 0);
    await check(page, 'admin-settings-off');
    await page.getByRole('button', { name: 'Turn on MCP connections' }).click();
    await page.waitForURL(/done=beta-on/);
    assert.equal(await page.locator('#mcp-status').textContent(), 'On');

    // Developers → OAuth applications → Create an app; first a mistake, shown by the field.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'OAuth applications' })
      .click();
    await check(page, 'apps-list');
    await page.getByRole('link', { name: 'Create an app' }).click();
    await check(page, 'app-new');
    await page.getByLabel('Name', { exact: true }).fill('Study Planner');
    await page.getByLabel('Redirect URIs').fill('http://evil.example/callback');
    await page.getByRole('button', { name: 'Create app' }).click();
    assert.equal(await page.getByLabel('Redirect URIs').getAttribute('aria-invalid'), 'true');
    assert.match((await page.locator('#redirect_uris-error').textContent()) ?? '', /is not allowed/);
    await check(page, 'app-new-error');
    await page.getByLabel('Redirect URIs').fill('http://127.0.0.1/callback');
    await page.getByLabel(/account:write/).check();
    // POST-redirect-GET: the form lands on the app's own page.
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.waitForURL(/done=created/);
    const clientId = ((await page.locator('#client-id').textContent()) ?? '').trim();
    assert.match(clientId, /^app_[0-9a-z]{26}$/);
    await check(page, 'app-created');

    // The student, in a browser of their own, authorizes the app (PKCE S256, RFC 8707 resource).
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(12).toString('base64url');
    const redirectUri = `${callbackBase}/callback`;
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid email account:read',
      resource: base,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    })) {
      authorize.searchParams.set(k, v);
    }
    const consent = await signIn(student, 'student@example.com', `${authorize.pathname}${authorize.search}`);
    assert.equal(new URL(consent.url()).pathname, '/oauth/authorize');
    assert.match((await consent.locator('h1').textContent()) ?? '', /Allow Study Planner/);
    await check(consent, 'consent');
    const picker = consent.getByLabel('School');
    if ((await picker.count()) > 0) await picker.selectOption(demo);
    await Promise.all([
      consent.waitForURL((u) => u.href.startsWith(redirectUri)),
      consent.getByRole('button', { name: 'Allow' }).click(),
    ]);
    const returned = new URL(consent.url());
    assert.equal(returned.searchParams.get('state'), state);
    assert.equal(returned.searchParams.get('iss'), base);
    const code = returned.searchParams.get('code');
    assert.ok(code);

    // The app exchanges the code over HTTP, as a CLI would.
    const tokenRes = await fetch(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: base,
      }),
    });
    assert.equal(tokenRes.status, 200);
    const tokens = (await tokenRes.json()) as { access_token: string; scope: string };
    assert.equal(tokens.scope, 'openid email account:read');
    const userinfo = () =>
      fetch(`${base}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal((await userinfo()).status, 200);

    // The student sees the connection on their account page.
    await consent.goto(`${base}/account`);
    assert.match((await consent.locator('main').textContent()) ?? '', /Study Planner/);
    await check(consent, 'account');
    const forbidden = await consent.goto(`${base}/admin/${demo}`);
    assert.equal(forbidden?.status(), 403);
    await check(consent, 'admin-forbidden');

    // The owner sees it under Connected apps and revokes it.
    await page.getByRole('link', { name: 'Connected apps' }).click();
    const row = page.getByRole('row', { name: /Study Planner/ });
    assert.match((await row.textContent()) ?? '', /student@example\.com/);
    await check(page, 'connected-apps');
    // Revoking asks first: the confirmation page, then the POST.
    await row.getByRole('link', { name: 'Revoke Study Planner for student@example.com' }).click();
    await page.waitForURL(/\/connected\/revoke\?grant=/);
    assert.match((await page.locator('h1').textContent()) ?? '', /Revoke Study Planner\?/);
    await check(page, 'connected-revoke-confirm');
    assert.equal((await userinfo()).status, 200, 'the confirmation page revokes nothing');
    await page.getByRole('button', { name: 'Revoke access' }).click();
    await page.waitForURL(/done=revoked/);
    assert.equal(await page.getByRole('row', { name: /Study Planner/ }).count(), 0);
    await check(page, 'connected-apps-revoked');

    // The token no longer works (RFC 6750 §3.1 invalid_token).
    const after = await userinfo();
    assert.equal(after.status, 401);
    assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    // Delete confirmation page, for the record, then delete.
    await page.goto(`${base}/admin/${demo}/apps/${clientId}/delete`);
    await check(page, 'app-delete-confirm');
    await page.getByRole('button', { name: 'Delete app' }).click();
    await page.waitForURL(/done=deleted/);
    assert.equal(await page.getByRole('link', { name: 'Study Planner' }).count(), 0);

    await owner.close();
    await student.close();
  });
  it('a confidential app: the secret once after the redirect, a refresh shows it no more, rotation states its overlap, disconnecting asks first, apps stay listed while the beta is off', {
    skip,
  }, async () => {
    const owner = await browser.newContext();
    const page = await signIn(owner, 'owner@example.com', `/admin/${demo}/apps/new`);
    await page.getByLabel('Name', { exact: true }).fill('Server Sync');
    await page.getByLabel('Redirect URIs').fill(`${callbackBase}/callback`);
    await page.getByLabel(/Confidential/).check();
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.waitForURL(/\/secret$/);
    const secret = ((await page.locator('#client-secret').textContent()) ?? '').trim();
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!page.url().includes(secret));
    await check(page, 'app-secret-once');
    const clientId = ((await page.locator('#client-id').textContent()) ?? '').trim();

    // A refresh neither re-creates the app nor shows the secret again.
    const reloaded = await page.reload();
    assert.equal(reloaded?.status(), 410);
    assert.equal(await page.locator('#client-secret').count(), 0);
    await check(page, 'app-secret-gone');
    const rows = await t.runtime.db
      .selectFrom('oauth_clients')
      .select('id')
      .where('name', '=', 'Server Sync')
      .execute();
    assert.equal(rows.length, 1);

    // Rotation: the new secret once, and until when the old one keeps working.
    await page.goto(`${base}/admin/${demo}/apps/${clientId}`);
    assert.match((await page.locator('#rotation-help').textContent()) ?? '', /keeps working for 24 hours/);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForURL(/\/secret$/);
    assert.match((await page.locator('main').textContent()) ?? '', /The previous one keeps working until/);
    assert.notEqual(((await page.locator('#client-secret').textContent()) ?? '').trim(), secret);
    await check(page, 'app-secret-rotated');
    await page.getByRole('link', { name: 'Continue to Server Sync' }).click();
    await check(page, 'app-detail-overlap');

    // A person's own connection: disconnecting asks first.
    const student = await browser.newContext();
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: DEMO_MEMBER_APP_ID,
      redirect_uri: `${callbackBase}/callback`,
      scope: 'openid account:read',
      resource: base,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'st',
    })) {
      authorize.searchParams.set(k, v);
    }
    const consent = await signIn(student, 'student@example.com', `${authorize.pathname}${authorize.search}`);
    const picker = consent.getByLabel('School');
    if ((await picker.count()) > 0) await picker.selectOption(demo);
    await Promise.all([
      consent.waitForURL((u) => u.href.startsWith(callbackBase)),
      consent.getByRole('button', { name: 'Allow' }).click(),
    ]);
    const code = new URL(consent.url()).searchParams.get('code')!;
    const exchanged = await fetch(`${base}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${callbackBase}/callback`,
        client_id: DEMO_MEMBER_APP_ID,
        code_verifier: verifier,
        resource: base,
      }),
    });
    assert.equal(exchanged.status, 200);
    await consent.goto(`${base}/account`);
    await consent.getByRole('link', { name: /^Disconnect Demo Member App at Demo Academy/ }).click();
    await consent.waitForURL(/\/account\/connections\/revoke\?grant=/);
    await check(consent, 'account-disconnect-confirm');
    await consent.getByRole('button', { name: 'Disconnect' }).click();
    await consent.waitForURL(/done=revoked/);
    assert.match((await consent.locator('main').textContent()) ?? '', /The app was disconnected/);
    await student.close();

    // Beta off: the apps stay listed (from Settings) and deletable.
    await page.goto(`${base}/admin/${demo}`);
    await page.getByRole('button', { name: 'Turn off MCP connections' }).click();
    await page.waitForURL(/done=beta-off/);
    await page.getByRole('link', { name: 'Review or delete member apps' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /MCP connections are off/);
    await check(page, 'apps-list-beta-off');
    await page.getByRole('link', { name: 'Server Sync' }).click();
    await page.getByRole('link', { name: /^Delete Server Sync/ }).click();
    await page.getByRole('button', { name: 'Delete app' }).click();
    await page.waitForURL(/done=deleted/);
    assert.equal(await page.getByRole('link', { name: 'Server Sync' }).count(), 0);
    await page.goto(`${base}/admin/${demo}`);
    await page.getByRole('button', { name: 'Turn on MCP connections' }).click();
    await page.waitForURL(/done=beta-on/);
    await owner.close();
  });
});
