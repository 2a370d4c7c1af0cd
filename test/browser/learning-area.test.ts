/**
 * The learning area in a real browser (Debian's Chromium through playwright-core): the student
 * signs in, lands in My courses, continues TypeScript at Generics and marks it complete, and the
 * Account API sees the progress. Every kind of page is checked with axe and screenshotted at
 * desktop and phone width (checkPage), one of them in dark mode too; the player's one script
 * resumes a real video and saves its position.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection, updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { setEnrollmentExpiry } from '../../src/domain/learning/enrollments.ts';
import { recordLectureProgress } from '../../src/domain/learning/record-progress.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { gql } from '../account/graphql.ts';
import type { TestApp } from '../support/app.ts';
import { checkPage, chromiumSkip, launchChromium, SCREENSHOTS, signInOnPage } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = chromiumSkip;
const PREFIX = 'learn';
const TS = `/schools/demo/learn/courses/${DEMO.courses.typescript}`;

describe('learning area in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let base: string;
  let world: World;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let byTitle: Map<string, string>;

  /** The TypeScript enrollment as the Account API reports it. */
  async function accountView(): Promise<{
    progressPercent: number;
    lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
  }> {
    const token = await world.demo.token(['openid', 'account:read'], 'member', world.demo.studentId);
    const res = await gql(
      t,
      token,
      '{ viewer { enrolledCourses(first: 10) { nodes { slug progressPercent lastWatchedLecture { lectureId positionSeconds } } } } }',
    );
    return res.body.data.viewer.enrolledCourses.nodes.find(
      (n: { slug: string }) => n.slug === DEMO.courses.typescript,
    );
  }

  before(async () => {
    if (skip) return; // nothing was started
    live = await startLiveApp();
    ({ t, baseUrl: base } = live);
    world = await createWorld(t);
    const db = t.runtime.db;
    const rows = await db
      .selectFrom('lectures')
      .select(['id', 'title'])
      .where('school_id', '=', world.demo.schoolId)
      .execute();
    byTitle = new Map(rows.map((r) => [r.title, r.id]));
    const pdf = await storeFile(
      db,
      localFileStore(t.config.filesDir),
      t.config.uploadLimitBytes,
      world.demo.schoolId,
      {
        bytes: new TextEncoder().encode('%PDF-1.4\n% cheat sheet\n'),
        contentType: 'application/pdf',
        filename: 'typescript-cheat-sheet.pdf',
      },
    );
    await updateLecture(db, world.demo.schoolId, byTitle.get('Cheat sheet (PDF)')!, { fileId: pdf.id });
    await updateLecture(db, world.demo.schoolId, byTitle.get('Check your understanding')!, {
      body: [
        '1. Which type takes a type parameter?',
        '   - [ ] string',
        '   - [x] Array<T>',
        '   - [ ] number',
        '2. Is `strict` worth turning on?',
        '   - [x] Yes',
        '   - [ ] No',
      ].join('\n'),
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });

  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
  });

  it('the student signs in and lands in My courses: TypeScript at 50 %', { skip }, async () => {
    await page.goto(`${base}/login`);
    await signInOnPage(
      page,
      'student@example.com',
      world.password,
      (u) => u.pathname === '/schools/demo/learn',
    );
    assert.equal(await page.locator('h1').textContent(), 'My courses');
    const card = page.locator('ul.cards > li', { hasText: 'Getting Started with TypeScript' });
    assert.match((await card.textContent()) ?? '', /50 % complete/);
    assert.equal(await card.locator('progress').getAttribute('value'), '50');
    await checkPage(page, PREFIX, 'my-courses');
  });

  it('Continue opens Generics at its saved place; Mark complete moves on and the Account API sees it', {
    skip,
  }, async () => {
    const card = page.locator('ul.cards > li', { hasText: 'Getting Started with TypeScript' });
    await Promise.all([
      page.waitForURL(/\/lectures\//),
      card.getByRole('link', { name: 'Continue' }).click(),
    ]);
    assert.equal(new URL(page.url()).pathname, `${TS}/lectures/${byTitle.get('Generics')}`);
    assert.equal(await page.locator('h1').textContent(), 'Generics');
    assert.equal(await page.locator('video').getAttribute('data-start'), '95');
    assert.equal(
      await page
        .getByRole('complementary', { name: 'Course outline' })
        .locator('a[aria-current="page"]')
        .textContent(),
      'Generics (15 min)',
    );
    await checkPage(page, PREFIX, 'player-video');
    assert.equal((await accountView()).progressPercent, 50);
    await Promise.all([
      page.waitForURL(/done=next/),
      page.getByRole('button', { name: 'Mark complete' }).click(),
    ]);
    assert.equal(await page.locator('h1').textContent(), 'Check your understanding');
    assert.equal((await accountView()).progressPercent, 66);
    assert.match((await page.locator('#course-progress').textContent()) ?? '', /66 % complete/);
  });

  it('the quiz: wrong answers are marked by the question, right ones complete it', { skip }, async () => {
    await checkPage(page, PREFIX, 'player-quiz');
    await page.getByLabel('string').check();
    await page.getByLabel('Yes').check();
    await Promise.all([
      page.waitForURL(/checked=1/),
      page.getByRole('button', { name: 'Check answers' }).click(),
    ]);
    assert.equal(await page.locator('#q0-status').textContent(), 'Not right');
    assert.equal(await page.locator('#q1-status').textContent(), 'Right');
    await checkPage(page, PREFIX, 'player-quiz-checked');
    await page.getByLabel('Array<T>').check();
    await Promise.all([page.waitForURL(/q0=1/), page.getByRole('button', { name: 'Check answers' }).click()]);
    assert.match((await page.locator('#quiz-result').textContent()) ?? '', /All 2 answers are right/);
    assert.equal((await accountView()).progressPercent, 83);
  });

  it('a file lecture: Download through the checked route', { skip }, async () => {
    await page.getByRole('link', { name: /^Next: Cheat sheet/ }).click();
    await page.waitForURL(new RegExp(byTitle.get('Cheat sheet (PDF)')!));
    const link = page.getByRole('link', { name: 'Download typescript-cheat-sheet.pdf' });
    assert.equal(await link.count(), 1);
    await checkPage(page, PREFIX, 'player-file');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.equal(download.suggestedFilename(), 'typescript-cheat-sheet.pdf');
  });

  it('a text lecture and the course overview', { skip }, async () => {
    await page.goto(`${base}${TS}/lectures/${byTitle.get('Reading: compiler options')}`);
    assert.match((await page.locator('article').textContent()) ?? '', /The options that matter most/);
    await checkPage(page, PREFIX, 'player-text');
    await page.getByRole('link', { name: 'Getting Started with TypeScript' }).first().click();
    await page.waitForURL((u) => u.pathname === TS);
    assert.match((await page.locator('main').textContent()) ?? '', /5 of 6 lectures completed/);
    await checkPage(page, PREFIX, 'course-overview');
  });

  it('orders, events and subscription', { skip }, async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.waitForURL(/\/learn\/orders$/);
    assert.match((await page.locator('table').textContent()) ?? '', /\$26\.10/);
    await checkPage(page, PREFIX, 'orders');
    await nav.getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(/\/learn\/events$/);
    await page.getByRole('button', { name: 'Register' }).first().click();
    await page.waitForURL(/done=registered/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /You are registered/);
    await checkPage(page, PREFIX, 'events');
    await nav.getByRole('link', { name: 'Subscription' }).click();
    await page.waitForURL(/\/learn\/subscription$/);
    assert.match((await page.locator('main').textContent()) ?? '', /All Access Monthly/);
    await checkPage(page, PREFIX, 'subscription');
  });

  it('a course the student is not enrolled in, and an expired enrollment', { skip }, async () => {
    const db = t.runtime.db;
    const course = await createCourse(db, world.demo.schoolId, {
      slug: 'design-basics',
      title: 'Design Basics',
      status: 'published',
      priceAmount: 1500,
    });
    const section = await createSection(db, world.demo.schoolId, course.id, { title: 'One' });
    const lecture = await createLecture(db, world.demo.schoolId, section.id, {
      title: 'Colour',
      type: 'text',
    });
    await page.goto(`${base}/schools/demo/learn/courses/design-basics/lectures/${lecture.id}`);
    assert.equal(await page.locator('h1').textContent(), "You're not enrolled in this course");
    assert.equal(
      await page.getByRole('link', { name: 'See Design Basics' }).getAttribute('href'),
      '/schools/demo/courses/design-basics',
    );
    await checkPage(page, PREFIX, 'not-enrolled');

    const enrollment = await db
      .selectFrom('enrollments')
      .select('id')
      .where('user_id', '=', world.demo.studentId)
      .where('course_id', '=', world.demo.courseIds.accessibility)
      .executeTakeFirstOrThrow();
    await setEnrollmentExpiry(db, world.demo.schoolId, enrollment.id, '2026-03-03T12:00:00.000Z');
    await page.goto(
      `${base}/schools/demo/learn/courses/${DEMO.courses.accessibility}/lectures/${byTitle.get('Keyboard navigation')}`,
    );
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /Your access ended on March 3, 2026; contact the school/,
    );
    assert.equal(await page.locator('video').count(), 0);
    await checkPage(page, PREFIX, 'player-expired');
  });

  it('dark mode: the player in the dark colour scheme', { skip }, async () => {
    const dark = await browser.newContext({ colorScheme: 'dark', viewport: { width: 1280, height: 800 } });
    await dark.addCookies(await context.cookies());
    const p = await dark.newPage();
    await p.goto(`${base}${TS}/lectures/${byTitle.get('Generics')}`);
    const background = await p.evaluate('getComputedStyle(document.body).backgroundColor');
    assert.equal(background, 'rgb(21, 23, 26)');
    await p.screenshot({ path: `${SCREENSHOTS}/${PREFIX}-player-dark-desktop.png`, fullPage: true });
    await p.setViewportSize({ width: 375, height: 740 });
    await p.screenshot({ path: `${SCREENSHOTS}/${PREFIX}-player-dark-phone.png`, fullPage: true });
    await dark.close();
  });

  it('the player script resumes a real video where it stopped and saves the position as it plays', {
    skip,
  }, async () => {
    // A four-second WebM made by the browser itself (canvas → MediaRecorder), on a blank page.
    const maker = await context.newPage();
    const base64 = (await maker.evaluate(`new Promise((resolve) => {
      const canvas = document.createElement('canvas');
      canvas.width = 160; canvas.height = 90;
      const g = canvas.getContext('2d');
      let frame = 0;
      const timer = setInterval(() => { g.fillStyle = frame++ % 2 ? '#1f4b99' : '#8fb3ff'; g.fillRect(0, 0, 160, 90); }, 40);
      const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const parts = [];
      recorder.ondataavailable = (e) => parts.push(e.data);
      recorder.onstop = async () => {
        clearInterval(timer);
        const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
        let s = ''; for (const b of bytes) s += String.fromCharCode(b);
        resolve(btoa(s));
      };
      recorder.start();
      setTimeout(() => recorder.stop(), 4000);
    })`)) as string;
    await maker.close();
    const db = t.runtime.db;
    const video = await storeFile(
      db,
      localFileStore(t.config.filesDir),
      t.config.uploadLimitBytes,
      world.demo.schoolId,
      {
        bytes: new Uint8Array(Buffer.from(base64, 'base64')),
        contentType: 'video/webm',
        filename: 'types-and-values.webm',
      },
    );
    const lectureId = byTitle.get('Types and values')!;
    await updateLecture(db, world.demo.schoolId, lectureId, { fileId: video.id });
    await recordLectureProgress(db, world.demo.schoolId, world.demo.studentId, {
      lectureId,
      positionSeconds: 2,
    });

    await page.goto(`${base}${TS}/lectures/${lectureId}`);
    const player = page.locator('video');
    assert.equal(await player.getAttribute('data-start'), '2');
    // Polled by evaluate: waitForFunction evaluates strings, which the page's CSP forbids.
    const until = async (expression: string, timeoutMs = 10_000) => {
      for (const end = Date.now() + timeoutMs; !(await page.evaluate(expression)); ) {
        assert.ok(Date.now() < end, `timed out waiting for ${expression}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until('document.querySelector("video").readyState >= 1');
    await until('document.querySelector("video").currentTime >= 1.5');
    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/position') && r.request().method() === 'POST',
    );
    await page.evaluate(
      'document.querySelector("video").muted = true; document.querySelector("video").play()',
    );
    await until('document.querySelector("video").ended', 15_000);
    assert.equal((await saved).status(), 204);
    const view = await accountView();
    assert.equal(view.lastWatchedLecture?.lectureId, lectureId);
    assert.ok((view.lastWatchedLecture?.positionSeconds ?? 0) >= 3, JSON.stringify(view.lastWatchedLecture));
  });

  it('without JavaScript the video is still there and Mark complete still works', { skip }, async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    await plain.addCookies(await context.cookies());
    const p = await plain.newPage();
    await p.goto(`${base}${TS}/lectures/${byTitle.get('Generics')}`);
    assert.equal(await p.locator('video[controls]').count(), 1);
    await p.goto(`${base}${TS}/lectures/${byTitle.get('Cheat sheet (PDF)')}`);
    await Promise.all([
      p.waitForURL(/done=completed/),
      p.getByRole('button', { name: 'Mark complete' }).click(),
    ]);
    assert.match((await p.getByRole('status').first().textContent()) ?? '', /Lecture marked complete/);
    assert.equal((await accountView()).progressPercent, 100);
    await plain.close();
  });
});
