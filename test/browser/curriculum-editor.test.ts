/**
 * The curriculum editor and the files page in a real browser (Debian's Chromium through
 * playwright-core): the demo owner adds a section and a lecture to a demo course, moves the
 * lecture up, and the admin API sees the new order; every page (the editor, the lecture form of
 * each type, a delete confirmation, the files page) gets checkPage: axe, desktop and 375 px
 * screenshots, no sideways scrolling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../support/app.ts';
import { checkPage, launchChromium, onceSkip } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = onceSkip;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

interface Section {
  id: string;
  title: string;
  lectures: { id: string; title: string }[];
}

describe('curriculum editor and files page in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let world: World;
  let base: string;
  let browser: Browser;
  let page: Page;
  let editor: string;

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    world = await createWorld(t);
    editor = `/admin/${world.demo.schoolId}/courses/${world.demo.courseIds.typescript}/curriculum`;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    // Sign in on the way to the editor: the login page brings the owner back to it.
    await page.goto(`${base}${editor}`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await Promise.all([page.waitForURL((u) => u.pathname === editor), page.keyboard.press('Enter')]);
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  async function curriculum(): Promise<Section[]> {
    const token = await world.demo.token();
    const res = await t.request(`/api/v1/courses/${world.demo.courseIds.typescript}/curriculum`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { sections: Section[] }).sections;
  }

  it('the owner adds a section and a lecture, moves the lecture up; the API sees the order', {
    skip,
  }, async () => {
    await page.goto(`${base}${editor}`);
    assert.equal(await page.locator('h1').textContent(), 'Getting Started with TypeScript');
    await checkPage(page, 'curriculum', 'editor');

    // A section, by keyboard: the Title field, then Enter submits the form.
    await page.getByLabel('Title').fill('Bonus material');
    await Promise.all([page.waitForURL(/done=section-added/), page.getByLabel('Title').press('Enter')]);
    assert.equal(await page.getByRole('status').textContent(), 'The section was added.');
    assert.deepEqual(
      (await curriculum()).map((s) => s.title),
      ['Foundations', 'Putting it to work', 'Bonus material'],
    );

    // A text lecture at the end of Foundations.
    await page.getByRole('link', { name: 'Add lecture to “Foundations”' }).click();
    await page.getByLabel('Text').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Title').fill('Recap');
    await page.getByLabel('Duration (minutes)').fill('4');
    await page.getByLabel('Text', { exact: true }).fill('# Recap\n\nWhat we covered.');
    await Promise.all([
      page.waitForURL(/done=lecture-added/),
      page.getByRole('button', { name: 'Add lecture' }).click(),
    ]);
    let foundations = (await curriculum())[0];
    assert.deepEqual(
      foundations.lectures.map((l) => l.title),
      ['Welcome and setup', 'Types and values', 'Reading: compiler options', 'Recap'],
    );

    // Move it up, with the keyboard: focus the button, press Enter.
    const moveUp = page.getByRole('button', { name: 'Move up: lecture “Recap”' });
    await moveUp.focus();
    await Promise.all([page.waitForURL(/done=lecture-moved/), page.keyboard.press('Enter')]);
    foundations = (await curriculum())[0];
    assert.deepEqual(
      foundations.lectures.map((l) => l.title),
      ['Welcome and setup', 'Types and values', 'Recap', 'Reading: compiler options'],
    );
    await checkPage(page, 'curriculum', 'editor-after');
  });

  it('the lecture forms of each type, a refused form and the delete confirmations pass the checks', {
    skip,
  }, async () => {
    const [foundations] = await curriculum();
    const newLecture = `${base}${editor}/sections/${foundations.id}/lectures/new`;
    await page.goto(newLecture);
    await checkPage(page, 'curriculum', 'lecture-type');
    await page.goto(`${newLecture}?type=video`);
    await checkPage(page, 'curriculum', 'lecture-video');
    await page.goto(`${newLecture}?type=text`);
    await checkPage(page, 'curriculum', 'lecture-text');
    await page.goto(`${newLecture}?type=file`);
    await checkPage(page, 'curriculum', 'lecture-file');
    await page.goto(`${newLecture}?type=quiz`);
    await page.getByLabel('Question', { exact: true }).first().fill('Which keyword declares a constant?');
    await page.getByLabel('Choice 1', { exact: true }).first().fill('let');
    await checkPage(page, 'curriculum', 'lecture-quiz');
    // Saved with one choice and no title: the form again, each error by its field.
    await page.getByRole('button', { name: 'Add lecture' }).click();
    await page.waitForSelector('#lecture-title-error');
    assert.equal(
      await page.locator('#q1-answer-error').textContent(),
      'Question 1 needs at least two choices.',
    );
    await checkPage(page, 'curriculum', 'lecture-quiz-refused');

    await page.goto(`${base}${editor}`);
    await page.getByRole('link', { name: 'Delete lecture “Recap”' }).click();
    assert.equal(await page.locator('h1').textContent(), 'Delete lecture “Recap”?');
    await checkPage(page, 'curriculum', 'delete-lecture');
    await Promise.all([
      page.waitForURL(/done=lecture-deleted/),
      page.getByRole('button', { name: 'Delete lecture' }).click(),
    ]);
    await page.getByRole('link', { name: 'Delete section “Bonus material”' }).click();
    await checkPage(page, 'curriculum', 'delete-section');
    await Promise.all([
      page.waitForURL(/done=section-deleted/),
      page.getByRole('button', { name: 'Delete section' }).click(),
    ]);
    assert.deepEqual(
      (await curriculum()).map((s) => [s.title, s.lectures.length]),
      [
        ['Foundations', 3],
        ['Putting it to work', 3],
      ],
    );
  });

  it('the files page: upload a PNG, see it listed in words', { skip }, async () => {
    await page.goto(`${base}/admin/${world.demo.schoolId}/files`);
    await checkPage(page, 'files', 'empty');
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'course-logo.png',
      mimeType: 'image/png',
      buffer: PNG,
    });
    await Promise.all([
      page.waitForURL(/done=uploaded/),
      page.getByRole('button', { name: 'Upload file' }).click(),
    ]);
    const row = page.getByRole('row', { name: /course-logo\.png/ });
    assert.match(
      ((await row.textContent()) ?? '').replace(/\s+/g, ' '),
      /course-logo\.png PNG image 16 bytes /,
    );
    await checkPage(page, 'files', 'uploaded');
    // A refused type: the reason by the field.
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'page.html',
      mimeType: 'text/html',
      buffer: Buffer.from('<p>hi</p>'),
    });
    await page.getByRole('button', { name: 'Upload file' }).click();
    await page.waitForSelector('#file-error');
    await checkPage(page, 'files', 'refused');
    // The video form now offers nothing new (a PNG is no video), the file form offers the PNG.
    const [foundations] = await curriculum();
    await page.goto(`${base}${editor}/sections/${foundations.id}/lectures/new?type=file`);
    assert.equal(await page.getByRole('option', { name: 'course-logo.png (PNG image)' }).count(), 1);
    await checkPage(page, 'curriculum', 'lecture-file-with-files');
  });
});
