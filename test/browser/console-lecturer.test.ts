/**
 * A lecturer in the console, in Chromium: signed in, they land on the courses they teach, read a
 * course's students' progress, add a section and a lecture to it (checked through the admin
 * API), and are refused a course they do not teach and the pages of owners and admins.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../support/app.ts';
import { checkPage, chromiumSkip, launchChromium, signInOnPage } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = chromiumSkip;

describe('a lecturer in the console, in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let world: World;
  let page: Page;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    world = await createWorld(t);
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  async function sectionsOf(courseId: string): Promise<{ title: string; lectures: { title: string }[] }[]> {
    const res = await t.request(`/api/v1/courses/${courseId}/curriculum`, {
      headers: { authorization: `Bearer ${await world.demo.token()}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { sections: { title: string; lectures: { title: string }[] }[] }).sections;
  }

  it('lands on their courses and reads the progress of their students', { skip }, async () => {
    const demo = world.demo.schoolId;
    await page.goto(`${base}/login`);
    await signInOnPage(
      page,
      'lecturer@example.com',
      world.password,
      (u) => u.pathname === `/admin/${demo}/courses`,
    );
    const course = world.demo.courseIds.typescript;
    await page.goto(`${base}/admin/${world.demo.schoolId}/courses/${course}`);
    await page.getByRole('link', { name: 'Students and progress' }).click();
    await page.getByRole('heading', { name: 'Students of Getting Started with TypeScript' }).waitFor();
    const row = page.getByRole('row', { name: /Sam Student/ });
    assert.match((await row.textContent()) ?? '', /50 %/);
    await checkPage(page, 'lecturer', 'students');
  });

  it('sees only the courses they teach and edits the curriculum of one', { skip }, async () => {
    await page.goto(`${base}/admin`);
    await page.waitForURL((u) => u.pathname === `/admin/${world.demo.schoolId}/courses`);
    const main = page.getByRole('navigation', { name: 'Main' });
    assert.deepEqual(await main.getByRole('link').allTextContents(), ['Courses', 'My account']);
    const titles = await page.getByRole('table').getByRole('link').allTextContents();
    assert.deepEqual(titles.sort(), [
      'Advanced Course Marketing',
      'Getting Started with TypeScript',
      'Web Accessibility Essentials',
    ]);
    await checkPage(page, 'lecturer', 'courses');

    await page.getByRole('link', { name: 'Getting Started with TypeScript' }).click();
    await page.getByRole('heading', { name: 'Getting Started with TypeScript' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Edit course' }).count(), 0);
    await checkPage(page, 'lecturer', 'course');

    await page.getByRole('link', { name: 'Edit curriculum' }).click();
    await page.getByLabel('Title').fill('Office hours');
    await Promise.all([page.waitForURL(/done=section-added/), page.getByLabel('Title').press('Enter')]);
    await page.getByRole('link', { name: 'Add lecture to “Office hours”' }).click();
    await page.getByLabel('Text').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Title').fill('Questions and answers');
    await page.getByLabel('Text', { exact: true }).fill('Bring your questions.');
    await Promise.all([
      page.waitForURL(/done=lecture-added/),
      page.getByRole('button', { name: 'Add lecture' }).click(),
    ]);
    await checkPage(page, 'lecturer', 'curriculum');
    const sections = await sectionsOf(world.demo.courseIds.typescript);
    const added = sections.at(-1);
    assert.equal(added?.title, 'Office hours');
    assert.deepEqual(
      added?.lectures.map((l) => l.title),
      ['Questions and answers'],
    );
  });

  it('is refused a course they do not teach and the pages of owners and admins', { skip }, async () => {
    const demo = world.demo.schoolId;
    const sql = world.demo.courseIds.sql;
    const res = await page.goto(`${base}/admin/${demo}/courses/${sql}/curriculum`);
    assert.equal(res?.status(), 404);
    await checkPage(page, 'lecturer', 'not-taught');
    const coupons = await page.goto(`${base}/admin/${demo}/coupons`);
    assert.equal(coupons?.status(), 403);
    await page.getByRole('link', { name: 'Go to your courses' }).waitFor();
    await checkPage(page, 'lecturer', 'owners-only');
  });
});
