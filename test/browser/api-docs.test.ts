/**
 * `/docs` in a real browser (Debian's Chromium through playwright-core): Scalar renders the
 * admin API reference from `/openapi.json` under the page's CSP, and the page fetches nothing
 * from any other origin.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';

const skip = onceSkip;

describe('/docs in a browser', () => {
  let live: LiveApp;
  let browser: Browser;
  let base: string;
  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    base = live.baseUrl;
    browser = await launchChromium();
  });
  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  it('renders the reference with every resource group, no CSP violation and no third-party request', {
    skip,
  }, async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text()))
        problems.push(m.text());
    });
    const res = await page.goto(`${base}/docs`);
    assert.equal(res?.status(), 200);
    await page.getByText('Lectern Admin API').first().waitFor({ timeout: 30_000 });
    await page.getByText('Create a course').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const group of ['courses', 'curriculum', 'students', 'storage', 'analytics']) {
      assert.match(text.toLowerCase(), new RegExp(group.replace('_', '[ _]')));
    }
    mkdirSync('test-artifacts/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/screenshots/api-docs.png' });
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });
});
