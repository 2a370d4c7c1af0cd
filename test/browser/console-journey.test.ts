/**
 * The console's generated pages in Chromium: an owner makes and publishes a course and makes a
 * coupon through the pages alone (both checked through the admin API), and every page kind of
 * several groups (list, detail, new, edit, delete confirmation; the school's details) passes
 * axe, is screenshotted at desktop and phone width and never scrolls sideways.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api } from '../admin/api.ts';
import type { TestApp } from '../support/app.ts';
import { checkPage, chromiumSkip, launchChromium, signInOnPage } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = chromiumSkip;

describe('the console’s generated pages in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let world: World;
  let call: ReturnType<typeof api>;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    world = await createWorld(t);
    call = api(t, await world.demo.token());
    browser = await launchChromium();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  async function signIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/admin`);
    await signInOnPage(page, 'owner@example.com', world.password);
    return page;
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

  it('an owner makes a priced course with a section and a lecture, publishes it and makes a coupon, all through the pages', {
    skip,
  }, async () => {
    const page = await signIn();
    await nav(page).getByRole('link', { name: 'Courses', exact: true }).click();
    await page.getByRole('heading', { name: 'Courses' }).waitFor();
    await page.getByRole('link', { name: 'New course' }).click();
    await page.getByLabel(/^Title/).fill('Ink and Wash');
    await page.getByLabel(/^Slug/).fill('ink-and-wash');
    await page.getByLabel(/^Price/).fill('39.00');
    await page.getByRole('button', { name: 'Create course' }).click();
    await page.waitForURL(/done=created/);
    await page.getByRole('heading', { name: 'Ink and Wash' }).waitFor();
    const courseId = new URL(page.url()).pathname.split('/').pop() ?? '';

    // Its first section and lecture, in the curriculum editor.
    await page.getByRole('link', { name: 'Edit curriculum' }).click();
    await page.getByLabel('Title').fill('First strokes');
    await Promise.all([page.waitForURL(/done=section-added/), page.getByLabel('Title').press('Enter')]);
    await page.getByRole('link', { name: 'Add lecture to “First strokes”' }).click();
    await page.getByLabel('Text').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Title').fill('Holding the brush');
    await page.getByLabel('Text', { exact: true }).fill('Hold it loosely, near the ferrule.');
    await Promise.all([
      page.waitForURL(/done=lecture-added/),
      page.getByRole('button', { name: 'Add lecture' }).click(),
    ]);
    const curriculum = await call('GET', `/api/v1/courses/${courseId}/curriculum`);
    assert.equal(curriculum.status, 200);
    assert.deepEqual(
      curriculum.body.sections.map((s: { title: string; lectures: { title: string }[] }) => [
        s.title,
        s.lectures.map((l) => l.title),
      ]),
      [['First strokes', ['Holding the brush']]],
    );

    await page.goto(`${base}/admin/${world.demo.schoolId}/courses/${courseId}`);
    await page.getByRole('link', { name: 'Edit course' }).click();
    await page.getByLabel(/^Status/).selectOption('published');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=saved/);
    const course = await call('GET', `/api/v1/courses/${courseId}`);
    assert.equal(course.status, 200);
    assert.equal(course.body.title, 'Ink and Wash');
    assert.equal(course.body.price_amount, 3900);
    assert.equal(course.body.status, 'published');

    await nav(page).getByRole('link', { name: 'Coupons', exact: true }).click();
    await page.getByRole('link', { name: 'New coupon' }).click();
    await page.getByLabel(/^Code/).fill('INK20');
    await page.getByLabel(/^Discount type/).selectOption('percent');
    await page.getByLabel(/^Percent off/).fill('20');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    await page.waitForURL(/done=created/);
    const coupons = await call('GET', '/api/v1/coupons?search=INK20');
    assert.equal(coupons.status, 200);
    assert.equal(coupons.body.data.length, 1);
    assert.equal(coupons.body.data[0].percent_off, 20);
    assert.equal(coupons.body.data[0].active, true);
    await page.context().close();
  });

  it('a refused field and a lost race are shown on the page, and checked like every page', {
    skip,
  }, async () => {
    const page = await signIn();
    const courses = `${base}/admin/${world.demo.schoolId}/courses`;
    await page.goto(`${courses}/new`);
    await page.getByLabel(/^Title/).fill('Half a course');
    await page.getByLabel(/^Slug/).fill('Not a slug');
    await page.getByRole('button', { name: 'Create course' }).click();
    assert.equal(await page.getByLabel(/^Slug/).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel(/^Title/).inputValue(), 'Half a course');
    await checkPage(page, 'console', 'courses-new-error');

    const made = await call('POST', '/api/v1/courses', {
      title: 'Raced in a browser',
      slug: 'raced-browser',
    });
    await page.goto(`${courses}/${made.body.id}/edit`);
    await call('PATCH', `/api/v1/courses/${made.body.id}`, { title: 'Their title' });
    await page.getByLabel(/^Title/).fill('My title');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Someone changed this course since you opened it').waitFor();
    assert.equal(await page.getByLabel(/^Title/).inputValue(), 'My title');
    await checkPage(page, 'console', 'courses-edit-conflict');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=saved/);
    assert.equal((await call('GET', `/api/v1/courses/${made.body.id}`)).body.title, 'My title');
    await page.context().close();
  });

  /** List, detail, edit, delete confirmation and new form of one group, each checked. */
  async function everyPageKind(slug: string): Promise<void> {
    const page = await signIn();
    await page.goto(`${base}/admin/${world.demo.schoolId}/${slug}`);
    await checkPage(page, 'console', `${slug}-list`);
    await page.locator('table a').first().click();
    await page.waitForURL(new RegExp(`/${slug}/[^/]+$`));
    const detail = page.url();
    await checkPage(page, 'console', `${slug}-detail`);
    await page
      .getByRole('link', { name: /^Edit / })
      .first()
      .click();
    await checkPage(page, 'console', `${slug}-edit`);
    await page.goto(detail);
    await page.getByRole('link', { name: /^Delete / }).click();
    await checkPage(page, 'console', `${slug}-delete`);
    await page.goto(`${base}/admin/${world.demo.schoolId}/${slug}/new`);
    await checkPage(page, 'console', `${slug}-new`);
    await page.context().close();
  }

  it('courses: every page kind passes the checks', { skip }, () => everyPageKind('courses'));
  it('coupons: every page kind passes the checks', { skip }, () => everyPageKind('coupons'));
  it('events: every page kind passes the checks', { skip }, () => everyPageKind('events'));
  it('pages: every page kind passes the checks', { skip }, () => everyPageKind('pages'));

  it('school details and appearance pass the checks', { skip }, async () => {
    const page = await signIn();
    await page.goto(`${base}/admin/${world.demo.schoolId}`);
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'School details' })
      .click();
    await checkPage(page, 'console', 'school-detail');
    await page.getByRole('link', { name: /^Edit / }).click();
    await checkPage(page, 'console', 'school-edit');
    await page.goto(`${base}/admin/${world.demo.schoolId}/appearance/edit`);
    await checkPage(page, 'console', 'appearance-edit');
    await page.context().close();
  });
});
