/**
 * A school's public site in Chromium: a visitor goes from the front page to Demo Academy, sees
 * only published courses, opens a free preview, signs up (a mistake first, shown by the field),
 * opens the link of the mail and presses its button, comes back to the course signed in, enrols
 * in the free course and lands in the learning area; the
 * enrollment shows through the admin API. Every kind of page is checked with axe and screenshotted
 * at desktop and phone width (checkPage), and once in dark mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import type { TestApp } from '../support/app.ts';
import { checkPage, chromiumSkip, launchChromium, SCREENSHOTS } from '../support/chromium.ts';
import { type LiveApp, startLiveApp } from '../support/live-app.ts';
import { linkIn, startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, type World } from '../support/world.ts';

const skip = chromiumSkip;
const PREFIX = 'school-site';

describe('a school site in Chromium', () => {
  let live: LiveApp;
  let t: TestApp;
  let w: World;
  let base: string;
  let browser: Browser;
  let smtp: TestSmtpServer;

  before(async () => {
    if (skip) return; // nothing was started
    smtp = await startTestSmtpServer();
    live = await startLiveApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    ({ t, baseUrl: base } = live);
    w = await createWorld(t);
    browser = await launchChromium();
  });
  after(async () => {
    if (skip) return; // nothing was started
    await browser?.close();
    await live?.close();
    await smtp?.close();
  });

  /** The admin API as Demo Academy's owner. */
  // biome-ignore lint/suspicious/noExplicitAny: admin API JSON, asserted field by field
  async function admin(path: string): Promise<any> {
    const res = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${await w.demo.token()}` },
    });
    assert.equal(res.status, 200);
    return res.json();
  }

  const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();

  it('a visitor finds the school, previews a lecture, signs up, enrols in the free course', {
    skip,
  }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();

    // The front page lists the school by name.
    await page.goto(`${base}/`);
    await checkPage(page, PREFIX, 'front-page');
    await page.getByRole('link', { name: 'Demo Academy' }).click();
    await page.waitForURL(`${base}/schools/demo/`);
    assert.equal(await h1(page), 'Demo Academy');
    assert.equal(await page.getByRole('heading', { name: 'Learn the modern web' }).count(), 1);
    await checkPage(page, PREFIX, 'home');

    // The catalogue: published courses only, with their prices.
    await page
      .getByRole('navigation', { name: 'Demo Academy' })
      .getByRole('link', { name: 'Courses' })
      .click();
    await page.waitForURL(`${base}/schools/demo/courses`);
    const titles = await page.getByRole('heading', { level: 2 }).allInnerTexts();
    assert.deepEqual(titles, [
      'Getting Started with TypeScript',
      'Web Accessibility Essentials',
      'SQL for Course Creators',
    ]);
    await checkPage(page, PREFIX, 'courses');

    // A paid course: its checkout link; then the free one, and a free preview signed out.
    await page.getByRole('link', { name: 'Getting Started with TypeScript' }).click();
    assert.equal(
      await page.getByRole('link', { name: 'Buy for $49.00' }).getAttribute('href'),
      DEMO.checkoutUrl,
    );
    await checkPage(page, PREFIX, 'course-paid');
    await page.goto(`${base}/schools/demo/courses/${DEMO.courses.sql}`);
    await checkPage(page, PREFIX, 'course-free');
    await page.getByRole('link', { name: 'Selecting rows' }).click();
    assert.equal(await h1(page), 'Selecting rows');
    await checkPage(page, PREFIX, 'preview');
    await page.getByRole('link', { name: 'See the whole course: SQL for Course Creators' }).click();

    // Sign up from the course page, with a mistake first (shown by the field), by keyboard.
    await page.getByRole('link', { name: 'Sign up to enrol' }).click();
    await page.waitForURL(/\/schools\/demo\/signup\?return_to=/);
    await checkPage(page, PREFIX, 'signup');
    await page.getByLabel('Your name').fill('Vic Visitor');
    await page.getByLabel('Email').fill('vic@example');
    await page.getByLabel('Choose a password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.locator('#password-error').innerText(),
      'The password must be at least 8 characters.',
    );
    await checkPage(page, PREFIX, 'signup-errors');
    await page.getByLabel('Email').fill('vic@example.com');
    await page.getByLabel('Choose a password').fill('a-long-password');
    await page.getByLabel('Choose a password').press('Enter');
    await page.waitForURL(`${base}/schools/demo/signup`);
    assert.equal(await h1(page), 'Check your email');
    await checkPage(page, PREFIX, 'signup-sent');
    const noAccount = await t.runtime.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'vic@example.com')
      .executeTakeFirst();
    assert.equal(noAccount, undefined, 'no account until the mailed link is pressed');

    // The mail's link shows a form; with the password it makes the account and signs the person in.
    const mail = await smtp.waitFor((m) => m.envelopeTo.includes('vic@example.com'));
    await page.goto(linkIn(mail, `${base}/schools/demo/signup/confirm?`));
    assert.equal(await h1(page), 'Confirm your email address');
    await checkPage(page, PREFIX, 'signup-confirm');
    // The password chosen at sign-up: whoever presses the link must know it too.
    await page.getByLabel('Your password').fill('a-long-password');
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.waitForURL(`${base}/schools/demo/courses/${DEMO.courses.sql}`);

    // Signed in, back on the course: Enrol, and the learning area is where it lands.
    assert.equal(
      await page.getByRole('link', { name: 'My courses' }).getAttribute('href'),
      '/schools/demo/learn',
    );
    await checkPage(page, PREFIX, 'course-signed-in');
    await page.getByRole('button', { name: 'Enrol' }).click();
    await page.waitForURL(`${base}/schools/demo/learn`);
    const user = (
      await t.runtime.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'vic@example.com')
        .executeTakeFirstOrThrow()
    ).id;
    const enrollments = await admin(`/api/v1/enrollments?user_id=${user}`);
    assert.deepEqual(
      enrollments.data.map((e: { course_id: string }) => e.course_id),
      [w.demo.courseIds.sql],
    );
    await page.goto(`${base}/schools/demo/courses/${DEMO.courses.sql}`);
    assert.equal(
      await page.getByRole('link', { name: 'Continue' }).getAttribute('href'),
      `/schools/demo/learn/courses/${DEMO.courses.sql}`,
    );
    await checkPage(page, PREFIX, 'course-enrolled');
    await context.close();
  });

  it('events, posts, a page and a form, sent with an error first; the answers reach the admin API', {
    skip,
  }, async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/schools/demo/events`);
    assert.equal(await page.getByRole('heading', { name: DEMO.events.qa }).count(), 1);
    assert.equal(await page.getByText(DEMO.events.workshop).count(), 0);
    await checkPage(page, PREFIX, 'events');
    await page.goto(`${base}/schools/demo/posts`);
    await checkPage(page, PREFIX, 'posts');
    await page.getByRole('link', { name: 'Welcome to Demo Academy' }).click();
    await checkPage(page, PREFIX, 'post');
    await page.getByRole('link', { name: 'About us' }).click();
    assert.equal(await h1(page), 'About us');
    await checkPage(page, PREFIX, 'page');

    await page.getByRole('link', { name: 'Contact us' }).click();
    await checkPage(page, PREFIX, 'form');
    await page.getByLabel('Your name').fill('Fay Form');
    await page.getByLabel('Email').fill('fay');
    await page.getByLabel('Message').fill('Is there a student discount?');
    await page.getByRole('button', { name: 'Send' }).click();
    assert.equal(
      await page.locator('#f-email-error').innerText(),
      'Email must be an email address, like name@example.com.',
    );
    await checkPage(page, PREFIX, 'form-errors');
    await page.getByLabel('Email').fill('fay@example.com');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\?sent=1$/);
    await checkPage(page, PREFIX, 'form-sent');
    const formId = new URL(page.url()).pathname.split('/').pop();
    const submissions = await admin(`/api/v1/forms/${formId}/submissions?limit=100`);
    assert.deepEqual(submissions.data.at(-1).data, {
      name: 'Fay Form',
      email: 'fay@example.com',
      message: 'Is there a student discount?',
    });
    await page.close();
  });

  it('a draft course is a 404 page with a way on; the site in dark mode', { skip }, async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/schools/demo/courses/${DEMO.courses.draft}`);
    assert.equal(res?.status(), 404);
    assert.equal(await h1(page), 'Not found');
    await checkPage(page, PREFIX, 'not-found');
    await page.getByRole('link', { name: 'courses of Demo Academy' }).click();
    await page.waitForURL(`${base}/schools/demo/courses`);
    const unknown = await page.goto(`${base}/schools/no-such-school/`);
    assert.equal(unknown?.status(), 404);
    await checkPage(page, PREFIX, 'no-school');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${base}/schools/demo/`);
    await checkPage(page, PREFIX, 'home-dark');
    await page.goto(`${base}/schools/demo/courses/${DEMO.courses.typescript}`);
    await page.screenshot({ path: `${SCREENSHOTS}/${PREFIX}-course-dark-desktop.png`, fullPage: true });
    await page.close();
  });
});
