/**
 * `/docs` in a real browser (Debian's Chromium through playwright-core): Scalar renders the
 * admin API reference from `/openapi.json` under the page's CSP, and the page fetches nothing
 * from any other origin.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { CHROMIUM, chromiumSkip } from '../support/chromium.ts';

const skip = chromiumSkip;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('/docs in a browser', () => {
  let t: TestApp;
  let server: RunningServer;
  let browser: Browser;
  let base: string;
  before(async () => {
    if (skip) return; // nothing was started
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ BASE_URL: base });
    server = await listen(t.app, '127.0.0.1', port);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  });
  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await server?.shutdown(1000);
    await t?.close();
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
