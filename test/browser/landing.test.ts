/**
 * The front page and the browser 404 in Chromium, checked with axe-core.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { assertAccessible, launchChromium, onceSkip } from '../support/chromium.ts';

const skip = onceSkip;
const SHOTS = 'test-artifacts/screenshots';

describe('landing page and 404 in Chromium', () => {
  let t: TestApp;
  let server: RunningServer;
  let browser: Browser;
  let base: string;
  before(async () => {
    if (skip) return; // nothing to start
    t = await createTestApp({ BASE_URL: 'http://127.0.0.1:1' });
    server = await listen(t.app, '127.0.0.1', 0);
    base = server.url;
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    if (skip) return;
    await browser?.close();
    await server?.shutdown(1000);
    await t?.close();
  });

  it('GET / is an accessible page whose links lead on', { skip }, async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), 'Welcome · Lectern');
    await assertAccessible(page, 'the landing page');
    await page.screenshot({ path: `${SHOTS}/landing.png`, fullPage: true });
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/login`);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Sign in to Lectern');
    await page.close();
  });

  it('an unknown address is an accessible HTML 404 with a way back', { skip }, async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/no/such/page`);
    assert.equal(res?.status(), 404);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Page not found');
    await assertAccessible(page, 'the 404 page');
    await page.screenshot({ path: `${SHOTS}/not-found.png`, fullPage: true });
    await page.getByRole('link', { name: 'front page' }).click();
    await page.waitForURL(`${base}/`);
    await page.close();
  });
});
