/**
 * Every generated group of the console in Chromium, as an owner of the demo school sees it: its
 * list (or, for a single resource, its details), the first item's page and the form for a new one
 * each pass axe, are screenshotted at desktop and phone width and never scroll sideways; the
 * navigation names each group by its link.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CONSOLE_GROUPS } from '../../src/web/admin/console/registry.ts';
import { checkPage, launchChromium, onceSkip, signInOnPage } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = onceSkip;

describe('every generated console group in Chromium', () => {
  let live: LiveApp;
  let browser: Browser;
  let world: World;
  let page: Page;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    world = await createWorld(live.t);
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    await page.goto(`${live.baseUrl}/login`);
    await signInOnPage(page, 'owner@example.com', world.password);
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  it('list, first item and new form of each group pass the checks; the navigation links each', {
    skip,
  }, async () => {
    const area = `${live.baseUrl}/admin/${world.demo.schoolId}`;
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const group of CONSOLE_GROUPS) {
      const res = await page.goto(`${area}/${group.slug}`);
      assert.equal(res?.status(), 200, group.slug);
      await checkPage(page, 'console-group', `${group.slug}-${group.single ? 'details' : 'list'}`);
      if (group.single) continue;
      assert.equal(await nav.getByRole('link', { name: group.name, exact: true }).count(), 1, group.name);
      // The first row's link opens its page (a group the demo school has none of shows none).
      const first = page.getByRole('table').getByRole('link').first();
      if ((await first.count()) > 0) {
        await Promise.all([page.waitForLoadState('load'), first.click()]);
        assert.doesNotMatch(await page.locator('main').innerText(), /\b(crs|usr|enr|cpn|evt)_[0-9a-z]{10,}/);
        await checkPage(page, 'console-group', `${group.slug}-detail`);
      }
      const create = await page.goto(`${area}/${group.slug}/new`);
      if (create?.status() === 200) await checkPage(page, 'console-group', `${group.slug}-new`);
    }
  });
});
