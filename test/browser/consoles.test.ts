/**
 * The consoles sign in on the first try, in a real browser (Debian's Chromium through
 * playwright-core): `/docs` "Authorize" (Scalar's own OAuth client, a popup, PKCE, HTTP Basic
 * `client_id:` at the token endpoint) and GraphiQL's "Sign in" (PKCE from the page), each with the
 * first-party console client of this deployment, then a real request from the page.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import type { TestApp } from '../support/app.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld } from '../support/world.ts';

const SHOTS = 'test-artifacts/screenshots';
const skip = onceSkip;

/** Signs in on Lectern's login page and allows on the consent page, wherever they appear. */
async function signInAndAllow(page: Page, email: string): Promise<void> {
  await page.waitForURL(/\/login\?/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('demo-password');
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL(/\/oauth\/authorize\?/);
  await page.getByText('Part of Lectern').waitFor();
  // A page of this very origin: named as such, with no warning about who made it.
  assert.match((await page.locator('h1').textContent()) ?? '', /on this site to use your account\?$/);
  assert.equal(await page.locator('.notice.warning').count(), 0);
  await page.getByRole('button', { name: 'Allow' }).click();
}

describe('the consoles sign in (Chromium)', () => {
  let live: LiveApp;
  let t: TestApp;
  let browser: Browser;
  let base: string;
  before(async () => {
    if (skip) return; // nothing was started
    mkdirSync(SHOTS, { recursive: true });
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    await createWorld(t);
    browser = await launchChromium();
  });
  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  it('/docs: Authorize signs the owner in (PKCE, console client) and "Test Request" → Send answers 200', {
    skip,
  }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/docs`);
    await page.getByText('Create a course').first().waitFor({ timeout: 30_000 });
    const tokenResponse = page.waitForResponse((r) => r.url() === `${base}/api/oauth/token`);
    const popupOpened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Authorize', exact: true }).click();
    const popup = await popupOpened;
    await signInAndAllow(popup, 'owner@example.com');
    const token = await tokenResponse;
    assert.equal(token.status(), 200, await token.text());
    // Scalar names the public client with HTTP Basic and an empty password (RFC 6749 §2.3.1).
    assert.equal(
      (await token.request().allHeaders()).authorization,
      `Basic ${Buffer.from('lectern-api-reference:').toString('base64')}`,
    );
    // Authorized: the scheme now shows its token and a "Clear" button instead of "Authorize".
    await page.getByRole('button', { name: 'Clear', exact: true }).first().waitFor();

    await page.getByText('List courses').first().click();
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const call = page.waitForResponse((r) => r.url().startsWith(`${base}/api/v1/courses`));
    await page.getByRole('button', { name: /Send/ }).first().click();
    const res = await call;
    assert.equal(res.status(), 200);
    assert.match((await res.request().allHeaders()).authorization ?? '', /^Bearer [A-Za-z0-9_-]{43}$/);
    await page.getByText('200 OK').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/docs-authorized.png` });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('the consent page of a full /docs request fits 375 px and passes axe; Allow works without JavaScript', {
    skip,
  }, async () => {
    /** Signs the owner in at 375 px and stops on the consent page of every operator scope. */
    const consentAt375 = async (javaScriptEnabled: boolean) => {
      const context = await browser.newContext({ viewport: { width: 375, height: 800 }, javaScriptEnabled });
      const page = await context.newPage();
      const authorize = new URL(`${base}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: 'lectern-api-reference',
        redirect_uri: `${base}/docs`,
        scope: ['openid', 'profile', 'email', 'offline_access', ...OPERATOR_SCOPES].join(' '),
        state: 'narrow',
        code_challenge: createHash('sha256')
          .update(randomBytes(32).toString('base64url'))
          .digest('base64url'),
        code_challenge_method: 'S256',
      })) {
        authorize.searchParams.set(k, v);
      }
      await page.goto(authorize.href);
      await page.waitForURL(/\/login\?/);
      await page.getByLabel('Email').fill('owner@example.com');
      await page.getByLabel('Password').fill('demo-password');
      await page.getByRole('button', { name: /sign in/i }).click();
      await page.waitForURL(/\/oauth\/authorize\?/);
      assert.equal(
        await page.locator('h1').textContent(),
        "Allow Lectern's API reference on this site to use your account?",
      );
      const items = page.getByRole('list', { name: 'What it may do' }).getByRole('listitem');
      assert.equal(await items.count(), 21);
      assert.equal(await items.filter({ hasText: /^Courses:/ }).count(), 1);
      assert.equal(await page.locator('.notice.warning').count(), 0);
      return { context, page };
    };

    const shown = await consentAt375(true);
    const width = await shown.page.evaluate('document.documentElement.scrollWidth');
    assert.ok(Number(width) <= 375, `scrollWidth ${width}`);
    await shown.page.screenshot({ path: `${SHOTS}/consent-docs-375.png`, fullPage: true });
    await assertAccessible(shown.page, 'the consent page at 375 px');
    await shown.context.close();

    const { context, page } = await consentAt375(false);
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${base}/docs?`)),
      page.getByRole('button', { name: 'Allow' }).click(),
    ]);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), 'narrow');
    assert.ok(back.searchParams.get('code'));
    await context.close();
  });

  it('GraphiQL opens with the schema loaded and no error, signs the student in with PKCE and runs { viewer { email } }', {
    skip,
  }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    const graphql: number[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => {
      if (r.url().startsWith(`${base}/account/graphql`) && r.request().method() === 'POST')
        graphql.push(r.status());
    });
    await page.goto(`${base}/account/graphql`);
    await page.getByText('Not signed in').waitFor();
    // The schema arrived by anonymous introspection: the documentation explorer lists viewer.
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByText('Query', { exact: true }).first().click();
    await docs.getByText('viewer', { exact: true }).first().waitFor();
    assert.deepEqual(graphql, [200]);
    await assertAccessible(page, 'the sign-in bar', '.sign-in-bar');

    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await signInAndAllow(page, 'student@example.com');
    await page.waitForURL(`${base}/account/graphql`);
    await page.getByText('Signed in (account:read account:write)').waitFor();

    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ viewer { email } }');
    const run = page.waitForResponse(
      (r) => r.url() === `${base}/account/graphql` && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: /Execute query/ }).click();
    const res = await run;
    assert.equal(res.status(), 200);
    assert.deepEqual(await res.json(), { data: { viewer: { email: 'student@example.com' } } });
    await page.locator('.graphiql-response').getByText('student@example.com').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/graphiql-signed-in.png` });
    assert.ok(
      graphql.every((s) => s === 200),
      graphql.join(' '),
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
