/**
 * The console's generated forms in a real browser: a small page of the site's layout around
 * formFields for several catalogue bodies (empty, filled, with errors), filled in with the
 * keyboard, posted, read back with readFields and shown with displayValue. Each page gets the
 * checks every page for people gets (axe, desktop and 375 px screenshots, no sideways scroll),
 * in light and dark mode.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { Browser, Page } from 'playwright-core';
import type { z } from 'zod';
import { adminOperations } from '../../src/admin/catalogue.ts';
import {
  displayValue,
  type FieldContext,
  type FieldOptions,
  fieldErrorsOf,
  formFields,
  readFields,
} from '../../src/web/admin/console/fields.ts';
import { type Html, sendPage } from '../../src/web/layout.ts';
import { notice } from '../../src/web/shared/page-kit.ts';
import { checkPage, launchChromium, onceSkip } from '../support/chromium.ts';

const skip = onceSkip;
const fc: FieldContext = { currency: 'EUR', locale: 'en-GB', timeZone: 'Europe/Berlin' };
const schemaOf = (name: string) => adminOperations.find((o) => o.name === name)?.input.body as z.ZodType;

const OPTIONS: Record<string, FieldOptions> = {
  'courses.create': {
    choices: {
      lecturer_ids: [
        { value: 'lec_1', label: 'Ada Lovelace' },
        { value: 'lec_2', label: 'Grace Hopper' },
      ],
    },
  },
  'students.enroll': {
    omit: ['user_id'],
    choices: { course_id: [{ value: 'crs_1', label: 'Introduction to Python' }] },
  },
};

/** A page of the site's layout with one generated form (and the form's own error above it). */
function formPage(
  name: string,
  values: Record<string, unknown> | undefined,
  errors: Record<string, string>,
): Html {
  return html`<h1>${name}</h1>
${errors[''] ? notice('error', errors['']) : ''}
<form method="post" action="/form/${name}" novalidate>
${formFields(schemaOf(name), values, errors, fc, OPTIONS[name])}
<div class="actions start"><button class="primary" type="submit">Save</button></div>
</form>`;
}

describe('console fields in Chromium', () => {
  let browser: Browser;
  let server: ReturnType<typeof serve>;
  let base: string;
  let page: Page;
  const saved = new Map<string, Record<string, unknown>>();

  before(async () => {
    if (skip) return; // nothing is started
    const app = new Hono();
    app.get('/form/:name', (c) => {
      const name = c.req.param('name');
      const preset = c.req.query('preset') ? PRESETS[name] : undefined;
      return sendPage(c, 200, name, formPage(name, preset?.values, preset?.errors ?? {}), { wide: true });
    });
    app.post('/form/:name', async (c) => {
      const name = c.req.param('name');
      const form = new URLSearchParams(await c.req.text());
      const read = readFields(schemaOf(name), form, fc, OPTIONS[name]);
      if (!read.ok) return sendPage(c, 422, name, formPage(name, read.values, read.errors), { wide: true });
      // The operation's own validation, as runForConsole reports it (field errors as `body.<field>`).
      const parsed = schemaOf(name).safeParse(read.body);
      if (!parsed.success) {
        const errors = fieldErrorsOf({
          title: 'Validation failed',
          errors: parsed.error.issues.map((i) => ({
            field: ['body', ...i.path].join('.'),
            message: i.message,
          })),
        });
        return sendPage(c, 422, name, formPage(name, read.body, errors), { wide: true });
      }
      saved.set(name, read.body);
      return c.redirect(`/saved/${name}`, 303);
    });
    app.get('/saved/:name', (c) => {
      const name = c.req.param('name');
      return sendPage(
        c,
        200,
        'Saved',
        html`<h1>Saved</h1>${displayValue(schemaOf(name), saved.get(name), fc)}`,
        { wide: true },
      );
    });
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
  });

  after(async () => {
    if (skip) return;
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('a course form is filled in with the keyboard, posted and shown back in words and euros', {
    skip,
  }, async () => {
    const response = await page.goto(`${base}/form/courses.create`);
    assert.equal(response?.status(), 200);
    await checkPage(page, 'console-fields', 'course-new');
    // The title comes first; the slug after it may be left for the title to make.
    await page.getByLabel('Title').focus();
    await page.keyboard.type('Introduction to Python');
    await page.keyboard.press('Tab');
    await page.keyboard.type('intro-python');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Learn Python from scratch.');
    await page.getByLabel('Status').selectOption('published');
    await page.getByLabel('Price').fill('49.90');
    await page.getByLabel('Grace Hopper').check();
    await Promise.all([
      page.waitForURL(/\/saved\//),
      page.getByRole('button', { name: 'Save' }).press('Enter'),
    ]);
    const text = await page.locator('main').innerText();
    assert.match(text, /Title\s+Introduction to Python/);
    assert.match(text, /Price\s+€49\.90/);
    assert.match(text, /Status\s+Published/);
    assert.match(text, /Lecturers\s+lec_2/);
    assert.deepEqual(saved.get('courses.create'), {
      slug: 'intro-python',
      title: 'Introduction to Python',
      description: 'Learn Python from scratch.',
      status: 'published',
      price_amount: 4990,
      lecturer_ids: ['lec_2'],
      ...pick(saved.get('courses.create'), ['checkout_url', 'image_url', 'currency']),
    });
    await checkPage(page, 'console-fields', 'course-saved');
  });

  it('a bad amount and a bad address come back beside their fields, with what was typed', {
    skip,
  }, async () => {
    await page.goto(`${base}/form/coupons.create`);
    await page.getByLabel('Code').fill('SPRING');
    await page.getByLabel('Discount type').selectOption('fixed');
    await page.getByLabel('Amount off').fill('12.345');
    await page.getByLabel('Expires').fill('2026-03-29T02:30');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Save' }).click()]);
    assert.equal(await page.getByLabel('Amount off').inputValue(), '12.345');
    assert.equal(await page.getByLabel('Amount off').getAttribute('aria-invalid'), 'true');
    assert.match(
      await page.locator('#f-amount_off-error').innerText(),
      /Amount off can have at most 2 decimals\./,
    );
    await checkPage(page, 'console-fields', 'coupon-errors');
    await page.getByLabel('Amount off').fill('12.50');
    await Promise.all([page.waitForURL(/\/saved\//), page.getByRole('button', { name: 'Save' }).click()]);
    const body = saved.get('coupons.create');
    assert.equal(body?.amount_off, 1250);
    assert.equal(
      body?.expires_at,
      '2026-03-29T01:30:00.000Z',
      '02:30 skipped by the clocks is read as 03:30 CEST',
    );
    assert.match(await page.locator('main').innerText(), /Expires\s+29 Mar 2026, 03:30/);
  });

  it('page blocks: one fieldset per block, empty ones to add, errors beside the block’s fields', {
    skip,
  }, async () => {
    await page.goto(`${base}/form/pages.update?preset=1`);
    assert.match(
      await page.locator('#f-blocks-0-text-error').innerText(),
      /Text must have at most 300 characters\./,
    );
    await checkPage(page, 'console-fields', 'page-blocks');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkPage(page, 'console-fields', 'page-blocks-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('#f-blocks-2-type').selectOption('button');
    await page.locator('#f-blocks-2-label').fill('Browse courses');
    await page.locator('#f-blocks-2-url').fill('https://school.example.com/courses');
    await page.getByLabel('Remove this block').first().check();
    await Promise.all([page.waitForURL(/\/saved\//), page.getByRole('button', { name: 'Save' }).click()]);
    assert.deepEqual(saved.get('pages.update')?.blocks, [
      { type: 'course_list', course_ids: ['crs_1', 'crs_2'] },
      { type: 'button', label: 'Browse courses', url: 'https://school.example.com/courses' },
    ]);
    await checkPage(page, 'console-fields', 'page-saved');
  });

  it('school settings, an invitation and an enrollment render with selects, checkboxes and instants', {
    skip,
  }, async () => {
    await page.goto(`${base}/form/school.update?preset=1`);
    assert.equal(await page.getByLabel('Time zone').inputValue(), 'Europe/Berlin');
    assert.equal(await page.getByLabel('Currency').inputValue(), 'EUR');
    await checkPage(page, 'console-fields', 'school-settings');
    await page.goto(`${base}/form/members.invite?preset=1`);
    assert.equal(await page.getByLabel('Lecturer').isChecked(), true);
    await checkPage(page, 'console-fields', 'invite');
    await page.goto(`${base}/form/students.enroll?preset=1`);
    assert.equal(await page.getByLabel('Expires').inputValue(), '2026-10-25T02:30');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkPage(page, 'console-fields', 'enroll-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });
});

function pick(from: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (from && Object.hasOwn(from, k)) out[k] = from[k];
  return out;
}

const PRESETS: Record<string, { values: Record<string, unknown>; errors: Record<string, string> }> = {
  'pages.update': {
    values: {
      slug: 'home',
      title: 'Home',
      published: true,
      blocks: [
        { type: 'heading', text: 'Welcome to a very long heading', level: 2 },
        { type: 'course_list', course_ids: ['crs_1', 'crs_2'] },
      ],
    },
    errors: { 'blocks.0.text': 'Text must have at most 300 characters.', '': 'The page was not saved.' },
  },
  'school.update': {
    values: {
      name: 'Demo Academy',
      subdomain: 'demo',
      locale: 'en-GB',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      contact_email: 'hello@demo.example',
      beta_features: ['mcp_connections'],
    },
    errors: {},
  },
  'members.invite': {
    values: { email: 'new@example.com', roles: ['lecturer'] },
    errors: { email: 'Email: this person is already a member.' },
  },
  'students.enroll': {
    values: { course_id: 'crs_1', expires_at: '2026-10-25T00:30:00.000Z' },
    errors: {},
  },
};
