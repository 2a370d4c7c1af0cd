import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, csrfOf, locationOf, signedIn, submit } from './pages-support.ts';

/** The hidden value `name` of the first form on a page. */
function hidden(page: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  assert.ok(m, `no hidden ${name}`);
  return m[1]
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('the console’s generated pages (catalogue → pages)', () => {
  let t: TestApp;
  let world: World;
  let demo: string;
  let owner: Browser;
  let call: ReturnType<typeof api>;
  let otherCourse: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    demo = world.demo.schoolId;
    owner = await signedIn(t, 'owner@example.com');
    call = api(t, await world.demo.token());
    otherCourse = Object.values(world.other.courseIds)[0];
  });
  after(() => t.close());

  const coursesTitled = async (title: string) => {
    const res = await call('GET', `/api/v1/courses?search=${encodeURIComponent(title)}&limit=100`);
    assert.equal(res.status, 200);
    return (res.body.data as { id: string; title: string }[]).filter((c) => c.title === title);
  };

  it('an enrollment’s page shows its progress lecture by lecture, by the lectures’ titles', async () => {
    const enrollments = await call(
      'GET',
      `/api/v1/enrollments?course_id=${world.demo.courseIds.typescript}&email=student@example.com`,
    );
    const enrollment = enrollments.body.data[0] as { id: string };
    const res = await owner.request(`/admin/${demo}/students/${enrollment.id}`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<h2>Progress by lecture<\/h2>/);
    assert.match(page, /<td data-label="Lecture">Welcome and setup<\/td><td data-label="Progress">Done, /);
    assert.match(
      page,
      /<td data-label="Lecture">Generics<\/td><td data-label="Progress">Stopped at 1:35<\/td>/,
    );
    assert.match(
      page,
      /<td data-label="Lecture">Cheat sheet \(PDF\)<\/td><td data-label="Progress">Not started<\/td>/,
    );
  });

  describe('lists', () => {
    it('pages with "Next page" and back to the first page, keeping the filters', async () => {
      for (let i = 0; i < 23; i++) {
        const res = await call('POST', '/api/v1/courses', {
          title: `Paged draft ${String(i).padStart(2, '0')}`,
          slug: `paged-draft-${i}`,
          status: 'draft',
        });
        assert.equal(res.status, 201);
      }
      const first = await owner.request(`/admin/${demo}/courses?status=draft&search=Paged+draft`);
      assert.equal(first.status, 200);
      assertPageHeaders(first);
      const page1 = await first.text();
      assert.match(page1, /<h1>Courses<\/h1>/);
      assert.equal((page1.match(/>Paged draft \d\d<\/a>/g) ?? []).length, 20);
      assert.match(page1, /<option value="draft" selected>Draft<\/option>/);
      const next = /<a href="([^"]+)">Next page<\/a>/.exec(page1)?.[1].replace(/&amp;/g, '&');
      assert.ok(next, 'a Next page link');
      assert.match(next, /status=draft/);
      assert.match(next, /search=Paged\+draft/);
      assert.match(next, /cursor=/);
      assert.doesNotMatch(page1, /First page/);
      const page2 = await (await owner.request(next)).text();
      assert.equal((page2.match(/>Paged draft \d\d<\/a>/g) ?? []).length, 3);
      assert.doesNotMatch(page2, /Next page/);
      const firstLink = /<a href="([^"]+)">First page<\/a>/.exec(page2)?.[1].replace(/&amp;/g, '&');
      assert.equal(firstLink, `/admin/${demo}/courses?status=draft&search=Paged+draft`);
      // Rows link by name, never show raw ids.
      assert.doesNotMatch(page1.replace(/href="[^"]*"/g, ''), /crs_/);
    });

    it('a filter the schema refuses is an HTML page saying so (422), never a 500', async () => {
      const res = await owner.request(`/admin/${demo}/courses?status=exploded`);
      assert.equal(res.status, 422);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await res.text(), /These filters could not be used/);
    });
  });

  describe('create', () => {
    it('field errors come back beside the fields (422), values kept, nothing made', async () => {
      const res = await submit(owner, `/admin/${demo}/courses/new`, `/admin/${demo}/courses`, {
        _key: 'k-field-errors',
        title: 'Kept title',
        slug: 'Not A Slug!',
        price_amount: '12.50',
      });
      assert.equal(res.status, 422);
      const page = await res.text();
      assert.match(page, /aria-invalid="true"/);
      assert.match(page, /value="Kept title"/);
      assert.equal((await coursesTitled('Kept title')).length, 0);
    });

    it('a bound the schema states is said from its rule, in words and in the school’s money (USD)', async () => {
      const res = await submit(owner, `/admin/${demo}/courses/new`, `/admin/${demo}/courses`, {
        _key: 'k-rule-words',
        title: 'x'.repeat(201),
        price_amount: '1000000000.01',
      });
      assert.equal(res.status, 422);
      const page = await res.text();
      assert.match(
        page,
        /<p class="field-error" id="f-title-error">Title must have at most 200 characters\.<\/p>/,
      );
      assert.match(
        page,
        /<p class="field-error" id="f-price_amount-error">Price must be at most \$1,000,000,000\.00\.<\/p>/,
      );
    });

    it('the same form sent twice makes one course and both answers lead to it', async () => {
      const page = await (await owner.request(`/admin/${demo}/courses/new`)).text();
      const key = hidden(page, '_key');
      const fields = { _key: key, title: 'Sent twice', slug: 'sent-twice', price_amount: '49.00' };
      const one = await submit(owner, `/admin/${demo}/courses/new`, `/admin/${demo}/courses`, fields);
      const two = await submit(owner, `/admin/${demo}/courses/new`, `/admin/${demo}/courses`, fields);
      assert.equal(one.status, 303);
      assert.equal(two.status, 303);
      assert.equal(locationOf(two), locationOf(one));
      const made = await coursesTitled('Sent twice');
      assert.equal(made.length, 1);
      assert.equal(locationOf(one), `/admin/${demo}/courses/${made[0].id}?done=created`);
      const detail = await (await owner.request(locationOf(one))).text();
      assert.match(detail, /<h1>Sent twice<\/h1>/);
      assert.match(detail, /Created\./);
      assert.match(detail, />Edit course<\/a>/);
      assert.match(detail, />Edit curriculum<\/a>/);
      assert.match(detail, />Delete course<\/a>/);
    });
  });

  describe('edit', () => {
    it('a stale ETag shows their version beside yours; a second Save overwrites on purpose', async () => {
      const made = await call('POST', '/api/v1/courses', { title: 'Raced', slug: 'raced' });
      const id = made.body.id as string;
      const editPath = `/admin/${demo}/courses/${id}/edit`;
      const opened = await (await owner.request(editPath)).text();
      const etag = hidden(opened, '_etag');
      assert.equal(etag, made.headers.get('etag'));
      // Someone else saves first, through the API.
      assert.equal((await call('PATCH', `/api/v1/courses/${id}`, { title: 'Theirs' })).status, 200);
      const csrf = await csrfOf(owner, editPath);
      const mine = { csrf_token: csrf, _etag: etag, title: 'Mine', slug: 'raced' };
      const lost = await owner.postForm(editPath, new URLSearchParams(mine));
      assert.equal(lost.status, 409);
      const page = await lost.text();
      assert.match(page, /Someone changed this course since you opened it/);
      assert.match(page, /<dd>Theirs<\/dd>/);
      assert.match(page, /value="Mine"/);
      assert.equal((await call('GET', `/api/v1/courses/${id}`)).body.title, 'Theirs');
      const fresh = hidden(page, '_etag');
      assert.notEqual(fresh, etag);
      const saved = await owner.postForm(editPath, new URLSearchParams({ ...mine, _etag: fresh }));
      assert.equal(saved.status, 303);
      assert.equal(locationOf(saved), `/admin/${demo}/courses/${id}?done=saved`);
      assert.equal((await call('GET', `/api/v1/courses/${id}`)).body.title, 'Mine');
    });
  });

  describe('delete', () => {
    it('needs the confirmation page: without it nothing is deleted', async () => {
      const made = await call('POST', '/api/v1/coupons', {
        code: 'GONE10',
        kind: 'percent',
        percent_off: 10,
      });
      assert.equal(made.status, 201);
      const id = made.body.id as string;
      const confirm = await owner.request(`/admin/${demo}/coupons/${id}/delete`);
      assert.equal(confirm.status, 200);
      assert.match(await confirm.text(), /Delete coupon/);
      const bare = await submit(
        owner,
        `/admin/${demo}/coupons/${id}`,
        `/admin/${demo}/coupons/${id}/delete`,
        {},
      );
      assert.equal(bare.status, 303);
      assert.equal(locationOf(bare), `/admin/${demo}/coupons/${id}/delete`);
      assert.equal((await call('GET', `/api/v1/coupons/${id}`)).status, 200);
      const done = await submit(
        owner,
        `/admin/${demo}/coupons/${id}/delete`,
        `/admin/${demo}/coupons/${id}/delete`,
        {
          confirm: 'yes',
        },
      );
      assert.equal(done.status, 303);
      assert.equal(locationOf(done), `/admin/${demo}/coupons?done=deleted`);
      assert.equal((await call('GET', `/api/v1/coupons/${id}`)).status, 404);
    });
  });

  describe('who and what', () => {
    it('another school’s course is the same 404 page as an unknown id, for reads and writes', async () => {
      const theirs = await owner.request(`/admin/${demo}/courses/${otherCourse}`);
      const unknown = await owner.request(`/admin/${demo}/courses/crs_nope`);
      assert.equal(theirs.status, 404);
      assert.equal(unknown.status, 404);
      const a = await theirs.text();
      const b = await unknown.text();
      assert.match(a, /No such course at this school/);
      assert.match(a, new RegExp(`href="/admin/${demo}/courses"`));
      assert.equal(a.replace(/crs_\w+/g, ''), b.replace(/crs_\w+/g, ''));
      const del = await submit(
        owner,
        `/admin/${demo}/courses`,
        `/admin/${demo}/courses/${otherCourse}/delete`,
        {
          confirm: 'yes',
        },
      );
      assert.equal(del.status, 404);
      const edit = await submit(
        owner,
        `/admin/${demo}/courses`,
        `/admin/${demo}/courses/${otherCourse}/edit`,
        {
          title: 'Taken over',
          slug: 'taken',
        },
      );
      assert.equal(edit.status, 404);
      const otherCall = api(t, await world.other.token());
      const still = await otherCall('GET', `/api/v1/courses/${otherCourse}`);
      assert.equal(still.status, 200);
      assert.notEqual(still.body.title, 'Taken over');
    });

    it('a student gets the 403 page and makes nothing', async () => {
      const student = await signedIn(t, 'student@example.com');
      const res = await student.request(`/admin/${demo}/courses`);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /Not an operator/);
      const post = await student.postForm(
        `/admin/${demo}/courses`,
        new URLSearchParams({ title: 'By a student', slug: 'by-a-student' }),
      );
      assert.equal(post.status, 403);
      assert.equal((await coursesTitled('By a student')).length, 0);
    });

    it('a lecturer opens the courses they teach, read-only here, and no other group', async () => {
      const lecturer = await signedIn(t, 'lecturer@example.com');
      const res = await lecturer.request(`/admin/${demo}/courses`);
      assert.equal(res.status, 200);
      const list = await res.text();
      assert.doesNotMatch(list, />New course</);
      const nav = /<nav class="top"[\s\S]*?<\/nav>/.exec(list)?.[0] ?? '';
      assert.doesNotMatch(nav, />Coupons</);
      const row = new RegExp(`href="/admin/${demo}/courses/([^"/?]+)"`).exec(list);
      assert.ok(row, 'a course they teach');
      const detail = await (await lecturer.request(`/admin/${demo}/courses/${row[1]}`)).text();
      assert.match(detail, />Edit curriculum<\/a>/);
      assert.doesNotMatch(detail, />Edit course<\/a>|>Delete course<\/a>/);
      assert.equal((await lecturer.request(`/admin/${demo}/courses/${row[1]}/edit`)).status, 403);
      assert.equal((await lecturer.request(`/admin/${demo}/coupons`)).status, 403);
    });

    it('a form without its CSRF field is refused (403) and makes nothing', async () => {
      const res = await owner.postForm(
        `/admin/${demo}/courses`,
        new URLSearchParams({ _key: 'no-csrf', title: 'Forged', slug: 'forged' }),
      );
      assert.equal(res.status, 403);
      assert.match(await res.text(), /Form expired/);
      assert.equal((await coursesTitled('Forged')).length, 0);
    });
  });

  describe('actions and nested lists', () => {
    it('an event’s registrations are listed by name and one is canceled by its row’s button', async () => {
      const events = await call('GET', '/api/v1/events?limit=100');
      const event = (events.body.data as { id: string; registered_count: number }[]).find(
        (e) => e.registered_count > 0,
      );
      assert.ok(event, 'a demo event with a registration');
      const regs = await call('GET', `/api/v1/events/${event.id}/registrations`);
      const reg = regs.body.data[0] as { id: string; user: { name: string } };
      const detailPath = `/admin/${demo}/events/${event.id}`;
      const page = await (await owner.request(detailPath)).text();
      assert.match(page, /<h2 id="sub-registrations">Registrations<\/h2>/);
      assert.ok(page.includes(reg.user.name), 'the registered person by name');
      const action = `${detailPath}/registrations/${reg.id}/cancel`;
      assert.ok(page.includes(`action="${action}"`), 'a cancel form on the row');
      assert.match(page, />Cancel registration<\/button>/);
      const res = await submit(owner, detailPath, action, {});
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `${detailPath}?done=cancel`);
      const after = await call('GET', `/api/v1/events/${event.id}/registrations`);
      assert.equal(after.body.data.find((r: { id: string }) => r.id === reg.id).status, 'canceled');
    });

    it('"Cancel subscription" runs the catalogue’s action with its own field', async () => {
      const subs = await call('GET', '/api/v1/subscriptions?status=active');
      const sub = subs.body.data[0] as { id: string };
      assert.ok(sub, 'a demo subscription');
      const detailPath = `/admin/${demo}/subscriptions/${sub.id}`;
      const page = await (await owner.request(detailPath)).text();
      assert.match(page, />Cancel subscription<\/button>/);
      assert.match(page, /Cancel at the end of the period/);
      const res = await submit(owner, detailPath, `${detailPath}/cancel`, { at_period_end: 'true' });
      assert.equal(res.status, 303);
      assert.equal(locationOf(res), `${detailPath}?done=cancel`);
      const after = await call('GET', `/api/v1/subscriptions/${sub.id}`);
      assert.equal(after.body.cancel_at_period_end, true);
    });

    it('references are chosen and shown by name: an enrollment’s course and student, a coupon’s products', async () => {
      const form = await (await owner.request(`/admin/${demo}/students/new`)).text();
      const course = await call(
        'GET',
        `/api/v1/courses/${world.demo.courseIds[Object.keys(world.demo.courseIds)[0]]}`,
      );
      assert.ok(form.includes(`<option value="${course.body.id}"`), 'the course as an option');
      assert.ok(form.includes(`>${course.body.title}</option>`), 'named by its title');
      assert.match(form, /\(student@example\.com\)<\/option>/);
      const coupon = await call('POST', '/api/v1/coupons', {
        code: 'ONLYONE',
        kind: 'percent',
        percent_off: 5,
        applies_to: [{ type: 'course', id: course.body.id }],
      });
      assert.equal(coupon.status, 201);
      const detail = await (await owner.request(`/admin/${demo}/coupons/${coupon.body.id}`)).text();
      assert.ok(detail.includes(`Course: ${course.body.title}`), 'the product by name');
      assert.ok(!detail.includes(`>${course.body.id}<`), 'not by id');
      // Ids inside a page's blocks (a course list) are named too.
      const pages = await call('GET', '/api/v1/pages?limit=100');
      const home = (pages.body.data as { id: string; slug: string }[]).find((p) => p.slug === 'home');
      assert.ok(home, 'the demo home page');
      const shown = await (await owner.request(`/admin/${demo}/pages/${home.id}`)).text();
      assert.doesNotMatch(shown.replace(/href="[^"]*"/g, ''), /crs_/);
      assert.ok(shown.includes(course.body.title), 'its courses by title');
    });
  });

  describe('every generated group', () => {
    it('lists, shows, and opens its forms without a server error', async () => {
      for (const slug of [
        'courses',
        'students',
        'lecturers',
        'coupons',
        'membership-plans',
        'subscriptions',
        'digital-products',
        'events',
        'posts',
        'comments',
        'pages',
        'forms',
      ]) {
        const list = await owner.request(`/admin/${demo}/${slug}`);
        assert.equal(list.status, 200, slug);
        const html = await list.text();
        const row = new RegExp(`href="/admin/${demo}/${slug}/([^"/?]+)"`).exec(html);
        if (row && row[1] !== 'new') {
          const detail = await owner.request(`/admin/${demo}/${slug}/${row[1]}`);
          assert.equal(detail.status, 200, `${slug} detail`);
          const body = await detail.text();
          if (body.includes('/edit"')) {
            assert.equal(
              (await owner.request(`/admin/${demo}/${slug}/${row[1]}/edit`)).status,
              200,
              `${slug} edit`,
            );
          }
        }
        if (html.includes(`href="/admin/${demo}/${slug}/new"`)) {
          assert.equal((await owner.request(`/admin/${demo}/${slug}/new`)).status, 200, `${slug} new`);
        }
      }
      for (const path of ['school', 'school/edit', 'appearance', 'appearance/edit']) {
        assert.equal((await owner.request(`/admin/${demo}/${path}`)).status, 200, path);
      }
    });
  });
});
