/**
 * The public pages of a school's site kept rendered for visitors who are not signed in
 * (src/web/shared/page-cache.ts): a change shows on the very next load, whether it came through
 * the admin API or from another instance on the same database; a browser that has the page gets
 * 304 Not Modified (RFC 9110 §13.1.2, §15.4.5); a signed-in or otherwise personal page is never
 * kept nor served from what was kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { type Db, openDatabase } from '../../src/store/database.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { createWorld, type World } from '../support/world.ts';
import { signedIn } from './pages-support.ts';

const COURSE = `/schools/demo/courses/${DEMO.courses.typescript}`;
const CATALOGUE = '/schools/demo/courses';

describe('public pages kept rendered', () => {
  let t: TestApp;
  let w: World;
  let demoApi: ReturnType<typeof api>;
  let second: Db;
  let smtp: TestSmtpServer;

  before(async () => {
    // Sign-up is offered only where mail can confirm the address.
    smtp = await startTestSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Lectern <no-reply@lectern.test>' });
    w = await createWorld(t);
    demoApi = api(t, await w.demo.token());
    // Another instance's connection to the same database.
    second = openDatabase(t.database.options);
  });
  after(async () => {
    await second.destroy();
    await t.close();
    await smtp.close();
  });

  const load = async (path: string, headers: Record<string, string> = {}) => {
    const res = await t.request(path, { headers });
    return { res, text: await res.text() };
  };

  const rename = (title: string) =>
    demoApi('PATCH', `/api/v1/courses/${w.demo.courseIds.typescript}`, { title });

  it('a visitor’s page carries an ETag, is revalidated on every use and varies with the cookie', async () => {
    const first = await load(COURSE);
    assert.equal(first.res.status, 200);
    const etag = first.res.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(first.res.headers.get('cache-control'), 'no-cache');
    assert.equal(first.res.headers.get('vary'), 'Cookie');
    assert.equal(first.res.headers.get('pragma'), null);
    assert.match(first.res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(first.res.headers.get('x-frame-options'), 'DENY');
    const again = await load(COURSE);
    assert.equal(again.res.status, 200);
    assert.equal(again.res.headers.get('etag'), etag);
    assert.equal(again.text, first.text);
    const head = await t.request(COURSE, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), etag);
    assert.equal(await head.text(), '');
  });

  it('answers 304 without content to a matching If-None-Match, 200 to any other (RFC 9110 §13.1.2)', async () => {
    const { res, text } = await load(CATALOGUE);
    const etag = res.headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await load(CATALOGUE, { 'if-none-match': ifNoneMatch });
      assert.equal(cached.res.status, 304, ifNoneMatch);
      assert.equal(cached.text, '');
      // §15.4.5: the fields a 200 would carry for caches.
      assert.equal(cached.res.headers.get('etag'), etag);
      assert.equal(cached.res.headers.get('cache-control'), 'no-cache');
      assert.equal(cached.res.headers.get('vary'), 'Cookie');
    }
    const stale = await load(CATALOGUE, { 'if-none-match': '"not-this-page"' });
    assert.equal(stale.res.status, 200);
    assert.equal(stale.text, text);
  });

  it('a change through the admin API shows on the next load, with a new ETag', async () => {
    const before = await load(COURSE);
    const beforeList = await load(CATALOGUE);
    assert.ok(before.text.includes('<h1>Getting Started with TypeScript</h1>'));
    assert.equal((await rename('TypeScript, Renamed')).status, 200);
    const after = await load(COURSE);
    assert.equal(after.res.status, 200);
    assert.ok(after.text.includes('<h1>TypeScript, Renamed</h1>'), after.text.slice(0, 500));
    assert.notEqual(after.res.headers.get('etag'), before.res.headers.get('etag'));
    const list = await load(CATALOGUE);
    assert.ok(list.text.includes('TypeScript, Renamed'));
    // The browser's copy from before the change is not confirmed.
    const revalidated = await load(COURSE, { 'if-none-match': before.res.headers.get('etag')! });
    assert.equal(revalidated.res.status, 200);
    const listRevalidated = await load(CATALOGUE, { 'if-none-match': beforeList.res.headers.get('etag')! });
    assert.equal(listRevalidated.res.status, 200);
    assert.equal((await rename('Getting Started with TypeScript')).status, 200);
  });

  it('a change written by another instance on the same database shows on the next load', async () => {
    await load(COURSE);
    await second
      .updateTable('courses')
      .set({ title: 'Written Elsewhere' })
      .where('id', '=', w.demo.courseIds.typescript)
      .execute();
    const after = await load(COURSE);
    assert.ok(after.text.includes('<h1>Written Elsewhere</h1>'));
    // An unpublished course is gone at once: the same 404 as a course that never existed.
    await second
      .updateTable('courses')
      .set({ status: 'draft' })
      .where('id', '=', w.demo.courseIds.typescript)
      .execute();
    assert.equal((await load(COURSE)).res.status, 404);
    await second
      .updateTable('courses')
      .set({ status: 'published', title: 'Getting Started with TypeScript' })
      .where('id', '=', w.demo.courseIds.typescript)
      .execute();
    assert.equal((await load(COURSE)).res.status, 200);
  });

  it('never serves a signed-in person’s page from what was kept, nor keeps it', async () => {
    const student = await signedIn(t, 'student@example.com');
    // A visitor's copy is kept first; the student still gets their own page.
    const visitor = await load(COURSE);
    assert.ok(visitor.text.includes('Sign in'));
    const own = await student.request(COURSE);
    const ownText = await own.text();
    assert.equal(own.status, 200);
    assert.ok(ownText.includes('Sign out'), 'the student’s own header');
    assert.ok(ownText.includes('csrf_token'));
    assert.equal(own.headers.get('cache-control'), 'no-store');
    assert.equal(own.headers.get('etag'), null);
    // …and what the student saw is never handed to a visitor.
    const next = await load(COURSE, { 'if-none-match': '*' });
    assert.equal(next.res.status, 304);
    const fresh = await load(COURSE);
    assert.ok(!fresh.text.includes('Sign out'));
    assert.ok(!fresh.text.includes('csrf_token'));
    assert.equal(fresh.text, visitor.text);
  });

  it('keeps nothing for a request with any cookie, a query string, an error or the learning area', async () => {
    const withCookie = await load(COURSE, { cookie: 'lectern_csrf=x' });
    assert.equal(withCookie.res.status, 200);
    assert.equal(withCookie.res.headers.get('cache-control'), 'no-store');
    assert.equal(withCookie.res.headers.get('etag'), null);
    const withQuery = await load(`${COURSE}?done=enrolled`);
    assert.equal(withQuery.res.headers.get('cache-control'), 'no-store');
    const missing = await load('/schools/demo/courses/no-such-course');
    assert.equal(missing.res.status, 404);
    assert.equal(missing.res.headers.get('cache-control'), 'no-store');
    assert.equal(missing.res.headers.get('etag'), null);
    const learn = await load('/schools/demo/learn');
    assert.equal(learn.res.status, 302);
    assert.equal(learn.res.headers.get('etag'), null);
    // A page that sets the visitor's form cookie is theirs (its token is bound to it).
    const signup = await load('/schools/demo/signup');
    assert.equal(signup.res.status, 200);
    assert.ok(signup.res.headers.getSetCookie().length > 0);
    assert.equal(signup.res.headers.get('etag'), null);
    assert.equal(signup.res.headers.get('cache-control'), 'no-store');
    // A public form carries a signed token that expires: its page is rendered for each visitor.
    const form = await t.runtime.db
      .selectFrom('forms')
      .select('id')
      .where('school_id', '=', w.demo.schoolId)
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 2; i++) {
      const page = await load(`/schools/demo/forms/${form.id}`);
      assert.equal(page.res.status, 200);
      assert.ok(page.text.includes('name="form_token"'));
      assert.equal(page.res.headers.get('cache-control'), 'no-store');
      assert.equal(page.res.headers.get('etag'), null);
    }
  });
});
