/**
 * GraphiQL in a real browser (Debian's Chromium through playwright-core): the page renders under
 * its strict CSP, loads nothing from another origin, and runs a query with a member token put in
 * its Headers editor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { chromiumSkip, launchChromium } from '../support/chromium.ts';
import { type AccountFixture, seedAccountFixture } from '../support/world-account.ts';

const skip = chromiumSkip;

describe('GraphiQL in Chromium', () => {
  let t: TestApp;
  let f: AccountFixture;
  let server: RunningServer;
  let browser: Browser;
  before(async () => {
    if (skip) return; // nothing was started
    t = await createTestApp();
    f = await seedAccountFixture(t);
    server = await listen(t.app, '127.0.0.1', 0);
    browser = await launchChromium();
  });
  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await server?.shutdown(100);
    await t?.close();
  });

  it('renders under its CSP with same-origin assets only and runs a query with a bearer token', {
    skip,
  }, async () => {
    const token = await f.token(['account:read']);
    const page = await browser.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
    });
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(server.url) && !url.startsWith('blob:') && !url.startsWith('data:'))
        foreign.push(url);
    });
    await page.goto(`${server.url}/account/graphql`);
    await page.getByText('Lectern Account API').first().waitFor();

    // Put the token in the Headers editor (Monaco), replacing the placeholder.
    await page.getByText('Headers', { exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .monaco-editor').last();
    await headers.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${token}` }));
    const response = page.waitForResponse(
      (r) => r.url().endsWith('/account/graphql') && r.request().method() === 'POST' && r.status() === 200,
    );
    await page.locator('.graphiql-execute-button').click();
    const res = await response;
    const body = await res.json();
    assert.equal(body.data?.viewer?.id, f.student);
    await page.getByText(f.student).first().waitFor();
    assert.deepEqual(foreign, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
