/**
 * A school's public site as a visitor meets it over HTTP: the front page's list of schools, the
 * home page's blocks in the school's theme, the catalogue of published courses with prices in the
 * school's currency and locale, course pages with their outline and checkout link, free previews,
 * events, posts and pages; and the 404 page for everything a visitor may not see (drafts, archived
 * courses, members-only events, unpublished pages, another school's things, unknown schools).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { localFileStore } from '../../src/domain/school/file-store.ts';
import { storeFile } from '../../src/domain/school/storage.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, schoolFixture, type World } from '../support/world.ts';
import { assertPageHeaders } from './pages-support.ts';

const HTML = { accept: 'text/html' };

describe('the school site', () => {
  let t: TestApp;
  let w: World;
  let demoApi: ReturnType<typeof api>;
  let smtp: TestSmtpServer;

  before(async () => {
    // A deployment that sends email: the sites take sign-ups (domain/school/sign-up.ts).
    smtp = await startTestSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    w = await createWorld(t);
    demoApi = api(t, await w.demo.token());
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const page = async (path: string, status = 200) => {
    const res = await t.request(path, { headers: HTML });
    const text = await res.text();
    assert.equal(res.status, status, `${path}: ${text.slice(0, 2000)}`);
    return { res, text };
  };

  /** The lecture ids of a course of the demo school, with whether each is a free preview. */
  async function lectures(courseId: string): Promise<Array<{ id: string; free: boolean }>> {
    const rows = await t.runtime.db
      .selectFrom('lectures')
      .select(['id', 'is_free_preview'])
      .where('course_id', '=', courseId)
      .orderBy('position')
      .execute();
    return rows.map((r) => ({ id: r.id, free: Boolean(r.is_free_preview) }));
  }

  it('the front page lists every school with a public catalogue by name, and not the others', async () => {
    const empty = await schoolFixture(t, 'Empty School');
    const { text } = await page('/');
    assert.ok(text.includes('<h2>Schools</h2>'));
    assert.ok(text.includes('<li><a href="/schools/demo/">Demo Academy</a></li>'), text);
    assert.ok(text.includes('<li><a href="/schools/other/">Other School</a></li>'));
    assert.ok(!text.includes('Empty School'), 'a school without a published course is not listed');
    assert.ok(empty.schoolId);
    // The links of before stay, and API clients keep the JSON index.
    assert.ok(text.includes('<a href="/login">Sign in</a>'));
    const json = await t.request('/', { headers: { accept: 'application/json' } });
    assert.equal((await json.json()).service, 'lectern');
  });

  it('home: the home page’s blocks in the school’s theme, with the header and footer', async () => {
    const { res, text } = await page('/schools/demo/');
    assertPageHeaders(res, 'no-cache');
    assert.ok(text.includes('<title>Home · Demo Academy · Lectern</title>'));
    assert.ok(text.includes('<a class="school" href="/schools/demo/" aria-current="page">Demo Academy</a>'));
    for (const [href, label] of [
      ['/schools/demo/courses', 'Courses'],
      ['/schools/demo/events', 'Events'],
      ['/schools/demo/posts', 'Posts'],
      ['/login?return_to=%2Fschools%2Fdemo%2F', 'Sign in'],
      ['/schools/demo/signup?return_to=%2Fschools%2Fdemo%2F', 'Sign up'],
    ]) {
      assert.ok(text.includes(`<a href="${href}">${label}</a>`), label);
    }
    assert.ok(text.includes('<h1>Demo Academy</h1><section class="hero">\n<h2>Learn the modern web</h2>'));
    assert.ok(text.includes('Short courses on <strong>TypeScript</strong>, accessibility and SQL.'));
    assert.ok(text.includes('<h2>Popular courses</h2>'));
    assert.ok(
      text.includes('<a href="/schools/demo/courses/sql-for-course-creators">SQL for Course Creators</a>'),
    );
    assert.ok(
      text.includes(
        '<a class="button" href="https://demo-academy.example.com/about" rel="noopener noreferrer">Read about us</a>',
      ),
    );
    assert.ok(text.includes('<li><a href="/schools/demo/pages/about">About us</a></li>'), 'footer: pages');
    assert.match(text, /<li><a href="\/schools\/demo\/forms\/frm_[0-9a-z]{26}">Contact us<\/a><\/li>/);
    // The theme: the school's colours as custom properties, in a style block the CSP allows by hash.
    assert.ok(
      text.includes(':root{--brand:#0f5c4d;--brand-fg:#ffffff;--brand-accent:#e0a526;--accent:#0f5c4d}'),
    );
    const hashes = res.headers.get('content-security-policy')?.match(/'sha256-[^']+'/g) ?? [];
    assert.equal(hashes.length, 2, 'the stylesheet and the theme');
    assert.doesNotMatch(text, /<script/);
  });

  it('a theme value that is not a colour never reaches the CSS; a font outside the list falls back', async () => {
    const f = await schoolFixture(t, 'Themed');
    const sub = (
      await t.runtime.db
        .selectFrom('schools')
        .select('subdomain')
        .where('id', '=', f.schoolId)
        .executeTakeFirstOrThrow()
    ).subdomain;
    await t.runtime.db
      .updateTable('appearance')
      .set({ primary_color: 'red}body{display:none', accent_color: '#ABCDEF', font: '"><script>' })
      .where('school_id', '=', f.schoolId)
      .execute();
    const { text } = await page(`/schools/${sub}/`);
    assert.ok(text.includes('--brand:#1f4b99;'), 'the default colour');
    assert.ok(text.includes('--brand-accent:#abcdef;'));
    assert.ok(text.includes('body{font-family:system-ui,'));
    assert.ok(!text.includes('display:none') && !text.includes('<script'));
    // No home page: the school's name and its courses (none yet).
    assert.ok(text.includes(`<h1>${'Themed'}`));
    assert.ok(text.includes('<p>No courses yet.</p>'));
  });

  it('the logo and a page’s images are served; other files of the school are not', async () => {
    // A 1×1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const store = (filename: string) =>
      storeFile(t.runtime.db, localFileStore(t.config.filesDir), 1_000_000, w.demo.schoolId, {
        bytes: png,
        contentType: 'image/png',
        filename,
      });
    const logo = await store('logo.png');
    const pictured = await store('class.png');
    const unlisted = await store('private.png');
    assert.equal((await demoApi('PATCH', '/api/v1/appearance', { logo_file_id: logo.id })).status, 200);
    const created = await demoApi('POST', '/api/v1/pages', {
      slug: 'gallery',
      title: 'Gallery',
      published: true,
      blocks: [{ type: 'image', file_id: pictured.id, alt: 'Our classroom' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    try {
      const home = await page('/schools/demo/');
      assert.ok(
        home.text.includes(
          '<a class="school" href="/schools/demo/" aria-current="page"><img src="/schools/demo/logo" alt="">Demo Academy</a>',
        ),
      );
      const served = await t.request('/schools/demo/logo');
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), png);
      const gallery = await page('/schools/demo/pages/gallery');
      const src = `/schools/demo/pages/gallery/images/${pictured.id}`;
      assert.ok(gallery.text.includes(`<figure><img src="${src}" alt="Our classroom"></figure>`));
      assert.equal((await t.request(src)).status, 200);
      // A file the page does not show, and the image under another page, are not served.
      await page(`/schools/demo/pages/gallery/images/${unlisted.id}`, 404);
      await page(`/schools/demo/pages/about/images/${pictured.id}`, 404);
      await page(`/schools/other/pages/gallery/images/${pictured.id}`, 404);
      await page('/schools/other/logo', 404);
    } finally {
      await demoApi('PATCH', '/api/v1/appearance', { logo_file_id: null });
    }
  });

  it('the catalogue: published courses only, prices in the school’s currency and locale, lecturers', async () => {
    const { text } = await page('/schools/demo/courses');
    assert.ok(text.includes('<h1>Courses</h1>'));
    assert.ok(
      text.includes(
        '<h2><a href="/schools/demo/courses/getting-started-with-typescript">Getting Started with TypeScript</a></h2>\n<p class="price">$49.00</p>\n<p>Types, functions and generics from the ground up, with small projects.</p>\n<p class="muted">Taught by Leo Lecturer</p>',
      ),
    );
    assert.ok(text.includes('<p class="price">$29.00</p>'));
    assert.ok(
      text.includes(
        '<h2><a href="/schools/demo/courses/sql-for-course-creators">SQL for Course Creators</a></h2>\n<p class="price">Free</p>',
      ),
    );
    assert.equal(text.match(/<li><h2>/g)?.length, 3, 'three published courses');
    assert.ok(!text.includes('Advanced Course Marketing'), 'no draft');
    assert.ok(!text.includes('Python'), 'nothing of another school');
    // Another school, another currency and locale: euros written the German way.
    const other = await page('/schools/other/courses');
    assert.ok(other.text.includes('<p class="price">39,00\u00a0€</p>'), other.text);
  });

  it('a course page: outline with durations and free previews, lecturers, price and the checkout link', async () => {
    const { text } = await page(`/schools/demo/courses/${DEMO.courses.typescript}`);
    assert.ok(text.includes('<h1>Getting Started with TypeScript</h1>'));
    assert.ok(text.includes('<p class="muted">Taught by Leo Lecturer</p>'));
    assert.ok(
      text.includes(
        `<div class="offer"><p class="price">$49.00</p><a class="button" href="${DEMO.checkoutUrl}" rel="noopener noreferrer external">Buy for $49.00</a>`,
      ),
    );
    assert.ok(text.includes('<p class="muted">6 lectures, 51 min in all</p>'));
    assert.ok(text.includes('<h3>Foundations</h3>'));
    const [first] = await lectures(w.demo.courseIds.typescript);
    assert.ok(
      text.includes(
        `<li><a href="/schools/demo/courses/${DEMO.courses.typescript}/preview/${first.id}">Welcome and setup</a> <span class="badge">Free preview</span> <span class="muted">· Video · 8 min</span></li>`,
      ),
    );
    assert.ok(text.includes('<li>Types and values <span class="muted">· Video · 13 min</span></li>'));
    assert.ok(text.includes('<li>Cheat sheet (PDF) <span class="muted">· Download</span></li>'));
    assert.ok(!text.includes('videos.example.com'), 'no video links of paid lectures');
  });

  it('a paid course without a checkout link is not on sale; the operator sets the link through the admin API', async () => {
    const id = w.demo.courseIds.accessibility;
    const before = await page(`/schools/demo/courses/${DEMO.courses.accessibility}`);
    assert.ok(
      before.text.includes(
        '<div class="offer"><p class="price">$29.00</p><p><strong>Not on sale yet.</strong></p></div>',
      ),
    );
    const bad = await demoApi('PATCH', `/api/v1/courses/${id}`, { checkout_url: 'javascript:alert(1)' });
    assert.equal(bad.status, 422);
    assert.deepEqual(
      bad.body.errors.map((e: { field: string }) => e.field),
      ['body.checkout_url'],
    );
    const set = await demoApi('PATCH', `/api/v1/courses/${id}`, {
      checkout_url: 'https://pay.example.com/a11y',
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.checkout_url, 'https://pay.example.com/a11y');
    const after = await page(`/schools/demo/courses/${DEMO.courses.accessibility}`);
    assert.ok(
      after.text.includes(
        '<a class="button" href="https://pay.example.com/a11y" rel="noopener noreferrer external">Buy for $29.00</a>',
      ),
    );
    await demoApi('PATCH', `/api/v1/courses/${id}`, { checkout_url: null });
  });

  it('a free course offers sign-up or sign-in to enrol to a visitor', async () => {
    const { text } = await page(`/schools/demo/courses/${DEMO.courses.sql}`);
    const back = encodeURIComponent(`/schools/demo/courses/${DEMO.courses.sql}`);
    assert.ok(
      text.includes(
        `<div class="offer"><p class="price">Free</p><a class="button" href="/schools/demo/signup?return_to=${back}">Sign up to enrol</a>\n<p>Already have an account? <a href="/login?return_to=${back}">Sign in to enrol</a></p></div>`,
      ),
      text,
    );
  });

  it('drafts, archived courses, another school’s course and unknown slugs are the same 404 page', async () => {
    const archived = await demoApi('POST', '/api/v1/courses', {
      slug: 'old-course',
      title: 'Old Course',
      status: 'archived',
    });
    assert.equal(archived.status, 201);
    const bodies = new Set<string>();
    for (const slug of [DEMO.courses.draft, 'old-course', DEMO.courses.other, 'no-such-course', '%3Cb%3E']) {
      const { res, text } = await page(`/schools/demo/courses/${slug}`, 404);
      assertPageHeaders(res);
      assert.ok(text.includes('<h1>Not found</h1>'));
      assert.ok(text.includes('This course does not exist or is not open to the public.'));
      assert.ok(text.includes('See the <a href="/schools/demo/courses">courses of Demo Academy</a>'));
      bodies.add(text.replace(/return_to=[^"]+/g, ''));
    }
    assert.equal(bodies.size, 1, 'the pages differ only in where sign-in returns to');
  });

  it('unknown schools get a 404 that points to the list of schools', async () => {
    for (const path of [
      '/schools/nope/',
      '/schools/nope/courses',
      '/schools/NOT..valid/',
      '/schools/nope/signup',
    ]) {
      const { text } = await page(path, 404);
      assert.ok(text.includes('<h1>School not found</h1>'));
      assert.ok(text.includes('find your school on the <a href="/">list of schools</a>'));
    }
    const bare = await t.request('/schools/demo', { headers: HTML });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/schools/demo/');
  });

  it('a free preview opens signed-out; any other lecture, or a preview under another course, is a 404', async () => {
    const [free, paid] = await lectures(w.demo.courseIds.typescript);
    const { text } = await page(`/schools/demo/courses/${DEMO.courses.typescript}/preview/${free.id}`);
    assert.ok(text.includes('<h1>Welcome and setup</h1>'));
    assert.ok(text.includes('<span class="badge">Free preview</span> Video · 8 min'));
    assert.ok(
      text.includes(
        '<a class="button" href="https://videos.example.com/demo/welcome-and-setup.mp4" rel="noopener noreferrer">Watch the video</a>',
      ),
    );
    await page(`/schools/demo/courses/${DEMO.courses.typescript}/preview/${paid.id}`, 404);
    await page(`/schools/demo/courses/${DEMO.courses.accessibility}/preview/${free.id}`, 404);
    // A free preview of a draft course, and of another school's course, are not found either.
    const [draftFree] = await lectures(w.demo.courseIds.draft);
    await page(`/schools/demo/courses/${DEMO.courses.draft}/preview/${draftFree.id}`, 404);
    const [otherFree] = await lectures(w.other.courseIds.other);
    assert.ok(otherFree.free);
    await page(`/schools/demo/courses/${DEMO.courses.other}/preview/${otherFree.id}`, 404);
    const { text: missing } = await page(
      `/schools/demo/courses/${DEMO.courses.typescript}/preview/nope`,
      404,
    );
    assert.ok(missing.includes('This lecture is not a free preview.'));
  });

  it('events: upcoming public ones in the school’s time zone; members-only and past ones are not shown', async () => {
    const { text } = await page('/schools/demo/events');
    assert.ok(text.includes('<h2>Live Q&amp;A: TypeScript generics</h2>'));
    assert.match(
      text,
      /<p><time datetime="[^"]+">\w{3}, \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}(\s[AP]M)?\s–\s\d{1,2}:\d{2}\s[AP]M UTC<\/time><\/p>/,
    );
    assert.ok(text.includes('<p>Online · 49 of 50 places left</p>'));
    assert.ok(!text.includes(DEMO.events.workshop), 'members only');
    assert.ok(!text.includes(DEMO.events.past), 'past');
    assert.ok(!text.includes('meet.example.com'), 'the online link is for registered people');
    const other = await demoApi('GET', '/api/v1/school');
    assert.equal(other.body.timezone, 'UTC');
    // Other School is in Europe/Berlin: its times carry its zone.
    const { other: o } = w;
    await t.runtime.db
      .insertInto('events')
      .values({
        id: 'evt_01jf3k6m2v8w9x0y1z2a3b4c5d',
        school_id: o.schoolId,
        title: 'Sprechstunde',
        description: '',
        starts_at: '2030-01-15T09:00:00.000Z',
        ends_at: '2030-01-15T10:00:00.000Z',
        capacity: null,
        online_url: null,
        location: 'Berlin',
        visibility: 'public',
        status: 'scheduled',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    const berlin = await page('/schools/other/events');
    assert.ok(
      berlin.text.includes(
        '<p><time datetime="2030-01-15T09:00:00.000Z">Di., 15. Jan. 2030, 10:00–11:00 Uhr MEZ</time></p>',
      ),
      berlin.text,
    );
  });

  it('posts and pages: published ones only', async () => {
    const { text } = await page('/schools/demo/posts');
    assert.ok(
      text.includes(`<a href="/schools/demo/posts/${DEMO.posts.welcome}">Welcome to Demo Academy</a>`),
    );
    assert.ok(!text.includes('Roadmap'), 'no draft');
    const post = await page(`/schools/demo/posts/${DEMO.posts.welcome}`);
    assert.ok(post.text.includes('<h1>Welcome to Demo Academy</h1>'));
    assert.ok(
      post.text.includes('<p>We are glad you are here. Start with Getting Started with TypeScript.</p>'),
    );
    const draft = await page(`/schools/demo/posts/${DEMO.posts.roadmap}`, 404);
    assert.ok(draft.text.includes('This post does not exist or is not published.'));
    const about = await page('/schools/demo/pages/about');
    assert.ok(
      about.text.includes(
        '<h1>About us</h1><div class="text"><p>Demo Academy is a sample school.</p><p>Its teachers work on the web every day.</p></div>',
      ),
    );
    const faq = await page('/schools/demo/pages/faq', 404);
    assert.ok(faq.text.includes('This page does not exist or is not published.'));
    await page('/schools/other/pages/about', 404);
  });

  it('a page’s blocks: every value escaped, unknown blocks skipped, only http(s) links', async () => {
    const res = await demoApi('POST', '/api/v1/pages', {
      slug: 'hostile',
      title: '<script>alert(1)</script>',
      published: true,
      blocks: [
        { type: 'heading', text: '<img src=x onerror=alert(1)>', level: 3 },
        { type: 'text', markdown: '**<b>bold</b>**\n\n- one\n- <i>two</i>' },
        { type: 'video', url: 'https://video.example.com/v', title: 'Intro' },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    // Stored shapes the API no longer writes: shown when they make sense, skipped otherwise.
    await t.runtime.db
      .updateTable('pages')
      .set({
        blocks: JSON.stringify([
          { type: 'heading', text: '<img src=x onerror=alert(1)>', level: 3 },
          { type: 'text', markdown: '**<b>bold</b>**\n\n- one\n- <i>two</i>' },
          { type: 'button', label: 'Click', url: 'javascript:alert(1)' },
          { type: 'carousel', items: [1, 2] },
          {
            type: 'course_list',
            course_ids: [w.other.courseIds.other, w.demo.courseIds.draft, w.demo.courseIds.sql],
          },
        ]),
      })
      .where('slug', '=', 'hostile')
      .execute();
    const { text } = await page('/schools/demo/pages/hostile');
    assert.ok(text.includes('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>'));
    assert.ok(text.includes('<h3>&lt;img src=x onerror=alert(1)&gt;</h3>'));
    assert.ok(
      text.includes(
        '<p><strong>&lt;b&gt;bold&lt;/b&gt;</strong></p><ul><li>one</li><li>&lt;i&gt;two&lt;/i&gt;</li></ul>',
      ),
    );
    assert.ok(!text.includes('javascript:'));
    assert.ok(!text.includes('carousel'));
    assert.equal(text.match(/<ul class="courses"><li>/g)?.length, 1);
    assert.ok(text.includes('SQL for Course Creators'));
    assert.ok(!text.includes('Python') && !text.includes('Advanced Course Marketing'));
  });
});
