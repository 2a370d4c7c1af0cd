/**
 * Enrolling from the site of a school whose sign-up is closed, over HTTP: enrolling makes a
 * student of the school, so while it takes people by invitation only, a signed-in person who is
 * not yet a member is shown "sign-up is closed" instead of Enrol, and posting Enrol anyway gets
 * the same page the sign-up form shows (no enrollment, no membership). Members still enrol.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { formFields } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { locationOf, signedIn } from './pages-support.ts';

const SQL = `/schools/demo/courses/${DEMO.courses.sql}`;
const ENROL = '<button class="primary" type="submit">Enrol</button>';

describe('enrolling at a school whose sign-up is closed', () => {
  let t: TestApp;
  let w: World;
  let demoApi: ReturnType<typeof api>;

  before(async () => {
    t = await createTestApp();
    w = await createWorld(t);
    demoApi = api(t, await w.demo.token());
    const closed = await demoApi('PATCH', '/api/v1/school', { signup_open: false });
    assert.equal(closed.status, 200);
    assert.equal(closed.body.signup_open, false);
  });
  after(() => t.close());

  it('a signed-in person who is not a member is told sign-up is closed, and Enrol posted anyway is refused', async () => {
    const browser = await signedIn(t, 'other-student@example.com');
    const userId = (await findUserByEmail(t.runtime.db, 'other-student@example.com'))!.id;
    const res = await browser.request(SQL);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.ok(!page.includes(ENROL), 'no Enrol button');
    assert.ok(!page.includes(`action="${SQL}/enroll"`));
    assert.ok(
      page.includes(
        '<p><strong>Sign-up is closed.</strong></p>\n<p>Demo Academy takes new students by invitation only at the moment. To join, ask Demo Academy for an invitation.</p>',
      ),
    );
    // The form of before (or a hand-made one) with a valid CSRF token: the sign-up form's closed page.
    const csrf = formFields(page, '/logout').get('csrf_token')!;
    assert.ok(csrf);
    const refused = await browser.postForm(`${SQL}/enroll`, { csrf_token: csrf });
    assert.equal(refused.status, 403);
    const html = await refused.text();
    assert.ok(html.includes('<title>Sign-up is closed · Demo Academy · Lectern</title>'));
    assert.ok(html.includes('<h1>Sign-up is closed</h1>'));
    assert.ok(html.includes('Demo Academy is not taking new sign-ups on its site at the moment.'));
    assert.ok(html.includes('To join, ask Demo Academy for an invitation.'));
    assert.equal(await findMembership(t.runtime.db, w.demo.schoolId, userId), undefined, 'no membership');
    const listed = await demoApi('GET', `/api/v1/enrollments?user_id=${userId}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data, [], 'no enrollment');
    // So the members-only learning area stays closed to them too.
    assert.equal((await browser.request('/schools/demo/learn')).status, 403);
  });

  it('a member of the school still sees Enrol and enrols', async () => {
    const browser = await signedIn(t, 'lecturer@example.com');
    const res = await browser.request(SQL);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.ok(page.includes(ENROL));
    assert.ok(!page.includes('Sign-up is closed'));
    const enrolled = await browser.postForm(`${SQL}/enroll`, formFields(page, `${SQL}/enroll`));
    assert.equal(enrolled.status, 303);
    assert.equal(locationOf(enrolled), '/schools/demo/learn');
    const listed = await demoApi('GET', `/api/v1/enrollments?user_id=${w.demo.lecturerId}`);
    assert.deepEqual(
      listed.body.data.map((e: { course_id: string }) => e.course_id),
      [w.demo.courseIds.sql],
    );
  });

  it('once sign-up opens again, the non-member is offered Enrol', async () => {
    assert.equal((await demoApi('PATCH', '/api/v1/school', { signup_open: true })).status, 200);
    const browser = await signedIn(t, 'other-student@example.com');
    const page = await (await browser.request(SQL)).text();
    assert.ok(page.includes(ENROL));
    assert.ok(!page.includes('Sign-up is closed'));
  });
});
