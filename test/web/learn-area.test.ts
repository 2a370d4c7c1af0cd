/**
 * The learning area over HTTP, the way a student meets it: My courses, the player, progress
 * through the one rule the Account API reads back, the expired and not-enrolled pages, and
 * hostile input.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { setEnrollmentExpiry } from '../../src/domain/learning/enrollments.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { gql } from '../account/graphql.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { csrfOf, locationOf, signedIn } from './pages-support.ts';

const LEARN = '/schools/demo/learn';
const TS = `${LEARN}/courses/${DEMO.courses.typescript}`;

/** The page's text without tags, whitespace collapsed: what a reader sees. */
function textOf(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<\/?(?:a|time|span|strong)\b[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('learning area: My courses, the player and progress', () => {
  let t: TestApp;
  let world: World;
  let student: Browser;
  let lectures: Array<{ id: string; title: string }>;
  let memberToken: string;

  const lectureId = (title: string) => {
    const found = lectures.find((l) => l.title === title);
    assert.ok(found, title);
    return found.id;
  };

  /** What the Account API reports about the TypeScript enrollment. */
  async function accountView() {
    const res = await gql(
      t,
      memberToken,
      `{ viewer { enrolledCourses(first: 10) { nodes { slug progressPercent
        lastWatchedLecture { lectureId positionSeconds }
        course { sections { lectures { title progress { positionSeconds completed } } } } } } } }`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const course = res.body.data.viewer.enrolledCourses.nodes.find(
      (n: { slug: string }) => n.slug === DEMO.courses.typescript,
    );
    assert.ok(course);
    return course as {
      progressPercent: number;
      lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
      course: {
        sections: Array<{
          lectures: Array<{
            title: string;
            progress: { positionSeconds: number; completed: boolean } | null;
          }>;
        }>;
      };
    };
  }

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    student = await signedIn(t, 'student@example.com');
    lectures = await t.runtime.db
      .selectFrom('lectures')
      .select(['id', 'title'])
      .where('course_id', '=', world.demo.courseIds.typescript)
      .execute();
    memberToken = await world.demo.token(
      ['openid', 'account:read', 'account:write'],
      'member',
      world.demo.studentId,
    );
  });
  after(() => t.close());

  it('a student of one school lands in its learning area after signing in', async () => {
    const login = await signIn(new Browser(t), 'student@example.com');
    assert.equal(login.status, 303);
    assert.equal(locationOf(login), LEARN);
  });

  it('/account links the learning area of each school the person belongs to', async () => {
    const res = await student.request('/account');
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<h2>Your courses<\/h2>/);
    assert.match(page, /<a href="\/schools\/demo\/learn">My courses at Demo Academy<\/a>/);
  });

  it('a student of two schools lands on /account, which links both learning areas', async () => {
    const email = 'two-schools@example.com';
    const userId = await world.demo.person(['student'], email);
    await addRoles(t.runtime.db, world.other.schoolId, userId, ['student']);
    const hash = await t.runtime.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', world.demo.studentId)
      .executeTakeFirstOrThrow();
    await t.runtime.db
      .updateTable('users')
      .set({ password_hash: hash.password_hash })
      .where('id', '=', userId)
      .execute();
    const browser = new Browser(t);
    const login = await signIn(browser, email);
    assert.equal(login.status, 303);
    assert.equal(locationOf(login), '/account');
    const page = await (await browser.request('/account')).text();
    assert.match(page, /<a href="\/schools\/demo\/learn">My courses at Demo Academy<\/a>/);
    assert.match(page, /<a href="\/schools\/other\/learn">My courses at Other School<\/a>/);
    const empty = await browser.request(LEARN);
    assert.equal(empty.status, 200);
    assert.match(
      textOf(await empty.text()),
      /You are not enrolled in any course yet\. Browse the courses of Demo Academy\./,
    );
  });

  it('the course lecturer sees the lectures without progress and without Mark complete', async () => {
    const lecturer = await signedIn(t, 'lecturer@example.com');
    const res = await lecturer.request(`${TS}/lectures/${lectureId('Generics')}`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /You teach this course or run this school: no progress is recorded\./);
    assert.match(
      page,
      /<video controls preload="metadata" src="https:\/\/videos\.example\.com\/demo\/generics\.mp4" data-start="0" aria-label="Video: Generics">/,
    );
    assert.doesNotMatch(page, /Mark complete|data-progress-url|<script/);
    const csrf = await csrfOf(lecturer, `${TS}/lectures/${lectureId('Generics')}`);
    const complete = await lecturer.postForm(`${TS}/lectures/${lectureId('Generics')}/complete`, {
      csrf_token: csrf,
    });
    assert.equal(complete.status, 403);
    assert.match(await complete.text(), /<h1>No progress to record<\/h1>/);
  });

  it('signed out, the area sends to /login and comes back', async () => {
    const res = await new Browser(t).request(`${LEARN}/orders`);
    assert.equal(res.status, 302);
    assert.equal(locationOf(res), `/login?return_to=${encodeURIComponent(`${LEARN}/orders`)}`);
  });

  it('My courses: TypeScript at 50 % with Continue on Generics; access in words', async () => {
    const res = await student.request(LEARN);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.doesNotMatch(csp, /script-src/, 'no script outside the player');
    const page = await res.text();
    const text = textOf(page);
    assert.match(
      text,
      /Getting Started with TypeScript 50 % complete 50 % Lifetime access Continue Web Accessibility Essentials 25 % complete 25 % Access until \w+ \d+, \d{4} Continue SQL for Course Creators 100 % complete 100 % Lifetime access Continue/,
    );
    assert.match(page, /<progress max="100" value="50" aria-labelledby="progress-[^"]+">50 %<\/progress>/);
    assert.ok(
      page.includes(`<a class="button" href="${TS}/lectures/${lectureId('Generics')}"`),
      'Continue → Generics',
    );
    // The section navigation, the current section marked.
    assert.match(page, /<a href="\/schools\/demo\/learn" aria-current="page">My courses<\/a>/);
    for (const [href, label] of [
      [`${LEARN}/orders`, 'Orders'],
      [`${LEARN}/events`, 'Events'],
      [`${LEARN}/subscription`, 'Subscription'],
      ['/schools/demo', 'Demo Academy site'],
    ]) {
      assert.ok(page.includes(`<a href="${href}">${label}</a>`), label);
    }
  });

  it('the course overview ticks done lectures and says how many', async () => {
    const res = await student.request(TS);
    assert.equal(res.status, 200);
    const text = textOf(await res.text());
    assert.match(text, /50 % complete 50 % 3 of 6 lectures completed Lifetime access Continue/);
    assert.match(
      text,
      /Foundations ✓ Completed: Welcome and setup \(8 min\) ✓ Completed: Types and values \(13 min\) ✓ Completed: Reading: compiler options \(10 min\) Putting it to work ○ Generics \(15 min\) ○ Check your understanding \(5 min\) ○ Cheat sheet \(PDF\)/,
    );
  });

  it('Continue opens Generics at the saved position, with the player script allowed on this page only', async () => {
    const res = await student.request(`${TS}/lectures/${lectureId('Generics')}`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /media-src https:\/\/videos\.example\.com/);
    assert.match(csp, /default-src 'none'/);
    const page = await res.text();
    assert.match(page, /<h1 id="lecture-title">Generics<\/h1>/);
    assert.match(
      page,
      /<video controls preload="metadata" src="https:\/\/videos\.example\.com\/demo\/generics\.mp4#t=95" data-start="95" data-progress-url="\/schools\/demo\/learn\/courses\/getting-started-with-typescript\/lectures\/lec_[0-9a-z]+\/position" data-csrf="[^"]+" aria-label="Video: Generics">/,
    );
    assert.match(page, /You stopped at 1:35; the video starts there\./);
    assert.match(page, /<script src="\/schools\/demo\/learn\/player\.js" defer><\/script>/);
    assert.ok(
      page.includes(
        `href="${TS}/lectures/${lectureId('Generics')}" aria-current="page">Generics (15 min)</a>`,
      ),
    );
    assert.match(page, /rel="prev">Previous: Reading: compiler options<\/a>/);
    assert.match(page, /rel="next">Next: Check your understanding<\/a>/);
    assert.match(page, /<button class="primary" type="submit">Mark complete<\/button>/);
  });

  it('the player script is served from this origin as JavaScript', async () => {
    const res = await t.request('/schools/demo/learn/player.js');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(await res.text(), /data-progress-url|progressUrl/);
  });

  it('a text lecture shows its text escaped; no script on pages without a video', async () => {
    const res = await student.request(`${TS}/lectures/${lectureId('Reading: compiler options')}`);
    assert.equal(res.status, 200);
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /script-src/);
    const page = await res.text();
    assert.match(page, /<p class="prose">The options that matter most: strict, target, module\.<\/p>/);
    assert.match(page, /· Completed/);
    assert.doesNotMatch(page, /<script/);
  });

  it('the position endpoint saves a position the Account API then reports', async () => {
    const id = lectureId('Generics');
    const csrf = await csrfOf(student, `${TS}/lectures/${id}`);
    const res = await student.postForm(`${TS}/lectures/${id}/position`, {
      csrf_token: csrf,
      position: '321',
    });
    assert.equal(res.status, 204);
    const view = await accountView();
    assert.deepEqual(view.lastWatchedLecture, { lectureId: id, positionSeconds: 321 });
    assert.equal(view.progressPercent, 50, 'a position completes nothing');
    const again = await (await student.request(`${TS}/lectures/${id}`)).text();
    assert.match(again, /data-start="321"/);
  });

  it('CSRF missing or wrong: 403 page, nothing recorded', async () => {
    const id = lectureId('Generics');
    for (const path of [`${TS}/lectures/${id}/complete`, `${TS}/lectures/${id}/position`]) {
      const missing = await student.postForm(path, { position: '5' });
      assert.equal(missing.status, 403, path);
      assert.match(await missing.text(), /<h1>Form expired<\/h1>/);
      const wrong = await student.postForm(path, { csrf_token: 'forged', position: '5' });
      assert.equal(wrong.status, 403, path);
    }
    const view = await accountView();
    assert.equal(view.progressPercent, 50);
    assert.equal(view.lastWatchedLecture?.positionSeconds, 321);
  });

  it('hostile positions and ids: a clear 4xx page, never a 500', async () => {
    const id = lectureId('Generics');
    const csrf = await csrfOf(student, `${TS}/lectures/${id}`);
    for (const position of ['-5', '1.5', '99999999999999999999', 'abc', '', '1000001']) {
      const res = await student.postForm(`${TS}/lectures/${id}/position`, { csrf_token: csrf, position });
      assert.equal(res.status, 400, `position ${JSON.stringify(position)}`);
      assert.match(await res.text(), /<h1>Position not valid<\/h1>/);
    }
    for (const path of [
      `${TS}/lectures/lec_00000000000000000000000000`,
      `${TS}/lectures/..%2F..%2Fetc`,
      `${TS}/lectures/${'x'.repeat(5000)}`,
      `${TS}/lectures/lec_%00abc`,
      `${LEARN}/courses/NOT%20A%20SLUG/lectures/${id}`,
      `${LEARN}/courses/${DEMO.courses.draft}`,
      `${LEARN}/courses/no-such-course`,
      '/schools/no-such-school/learn',
      '/schools/%00/learn',
      `${LEARN}/files/not-an-id`,
      `${LEARN}/nowhere`,
    ]) {
      const res = await student.request(path);
      assert.equal(res.status, 404, path);
      assert.match(await res.text(), /<h1>Page not found<\/h1>/, path);
    }
    const bad = await student.postForm(`${TS}/lectures/lec_00000000000000000000000000/position`, {
      csrf_token: csrf,
      position: '10',
    });
    assert.equal(bad.status, 404);
  });

  it('Mark complete records through the one rule, goes to the next lecture, and the Account API sees it', async () => {
    const id = lectureId('Generics');
    const csrf = await csrfOf(student, `${TS}/lectures/${id}`);
    const res = await student.postForm(`${TS}/lectures/${id}/complete`, { csrf_token: csrf });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${TS}/lectures/${lectureId('Check your understanding')}?done=next`);
    const view = await accountView();
    assert.equal(view.progressPercent, 66);
    const generics = view.course.sections.flatMap((s) => s.lectures).find((l) => l.title === 'Generics');
    assert.deepEqual(generics?.progress, { positionSeconds: 321, completed: true });
    const next = await student.request(locationOf(res));
    const text = textOf(await next.text());
    assert.match(text, /The previous lecture is marked complete\. Here is the next one\./);
    assert.match(text, /66 % complete/);
    const list = textOf(await (await student.request(LEARN)).text());
    assert.match(list, /Getting Started with TypeScript 66 % complete/);
  });

  it('the last lecture completes in place', async () => {
    const id = lectureId('Cheat sheet (PDF)');
    const csrf = await csrfOf(student, `${TS}/lectures/${id}`);
    const res = await student.postForm(`${TS}/lectures/${id}/complete`, { csrf_token: csrf });
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${TS}/lectures/${id}?done=completed`);
    const page = textOf(await (await student.request(locationOf(res))).text());
    assert.match(page, /Lecture marked complete\./);
    assert.match(page, /Completed\. That was the last lecture of the course\./);
    assert.equal((await accountView()).progressPercent, 83);
  });

  it('a course the student is not enrolled in: the page says so and links the course page', async () => {
    const course = await createCourse(t.runtime.db, world.demo.schoolId, {
      slug: 'design-basics',
      title: 'Design Basics',
      status: 'published',
      priceAmount: 1500,
    });
    const section = await createSection(t.runtime.db, world.demo.schoolId, course.id, { title: 'One' });
    const lecture = await createLecture(t.runtime.db, world.demo.schoolId, section.id, {
      title: 'Colour',
      type: 'text',
      body: 'Paid words.',
    });
    for (const path of [
      `${LEARN}/courses/design-basics`,
      `${LEARN}/courses/design-basics/lectures/${lecture.id}`,
    ]) {
      const res = await student.request(path);
      assert.equal(res.status, 403, path);
      const page = await res.text();
      assert.match(page, /<h1>You&#39;re not enrolled in this course<\/h1>/);
      assert.match(page, /<a href="\/schools\/demo\/courses\/design-basics">See Design Basics<\/a>/);
      assert.doesNotMatch(page, /Paid words/);
    }
    const csrf = await csrfOf(student, LEARN);
    const res = await student.postForm(`${LEARN}/courses/design-basics/lectures/${lecture.id}/complete`, {
      csrf_token: csrf,
    });
    assert.equal(res.status, 403);
    const position = await student.postForm(
      `${LEARN}/courses/design-basics/lectures/${lecture.id}/position`,
      {
        csrf_token: csrf,
        position: '3',
      },
    );
    assert.equal(position.status, 403);
  });

  it('a student of Other School cannot open a paid Demo Academy lecture', async () => {
    const other = await signedIn(t, 'other-student@example.com');
    const res = await other.request(`${TS}/lectures/${lectureId('Generics')}`);
    assert.equal(res.status, 403);
    const page = await res.text();
    assert.match(page, /<h1>Not a student of Demo Academy<\/h1>/);
    assert.doesNotMatch(page, /videos\.example\.com/);
    // Their own school's area shows their course in the school's language of money and dates.
    const own = await other.request('/schools/other/learn');
    assert.equal(own.status, 200);
    assert.match(textOf(await own.text()), /Einführung in Python 50 % complete/);
    // A Demo Academy lecture id inside their own school's area is simply not there.
    const crossed = await other.request(
      `/schools/other/learn/courses/${DEMO.courses.other}/lectures/${lectureId('Generics')}`,
    );
    assert.equal(crossed.status, 404);
  });

  it('an expired enrollment: My courses and the player say so and what to do, with no content', async () => {
    const enrollment = await t.runtime.db
      .selectFrom('enrollments')
      .select('id')
      .where('user_id', '=', world.demo.studentId)
      .where('course_id', '=', world.demo.courseIds.accessibility)
      .executeTakeFirstOrThrow();
    await setEnrollmentExpiry(t.runtime.db, world.demo.schoolId, enrollment.id, '2026-03-03T12:00:00.000Z');
    const list = textOf(await (await student.request(LEARN)).text());
    assert.match(
      list,
      /Web Accessibility Essentials 25 % complete 25 % Your access ended on March 3, 2026; contact the school \(owner@example\.com\) to renew\. SQL/,
    );
    const a11y = await t.runtime.db
      .selectFrom('lectures')
      .select(['id', 'title'])
      .where('course_id', '=', world.demo.courseIds.accessibility)
      .orderBy('position')
      .execute();
    const keyboard = a11y.find((l) => l.title === 'Keyboard navigation')!;
    const res = await student.request(
      `${LEARN}/courses/${DEMO.courses.accessibility}/lectures/${keyboard.id}`,
    );
    assert.equal(res.status, 403);
    const page = await res.text();
    assert.match(
      textOf(page),
      /Your access ended on March 3, 2026; contact the school \(owner@example\.com\) to renew\./,
    );
    assert.doesNotMatch(page, /<video/);
    assert.doesNotMatch(page, /Mark complete/);
    const csrf = await csrfOf(student, LEARN);
    const position = await student.postForm(
      `${LEARN}/courses/${DEMO.courses.accessibility}/lectures/${keyboard.id}/position`,
      { csrf_token: csrf, position: '10' },
    );
    assert.equal(position.status, 403);
    assert.match(await position.text(), /<h1>Your access has ended<\/h1>/);
  });
});
